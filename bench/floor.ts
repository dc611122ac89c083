/**
 * The floor: the least any gate that meets the spec must do in front of the keyed routes — read the key from the
 * request headers and send the five rate-limit headers, two of them with values that change per request — with no
 * key lookup, no limits and no usage accounting (one counter). Used by bench/gate-server.ts (over HTTP) and
 * bench/gate-inprocess.ts (in process).
 */
import { keyFromHeaders } from "../src/access/keys";
import { rateLimitField } from "../src/access/limiter";
import { dayHeaders } from "../src/access/meter";
import { prepareHeaders, type ResponseHeaders } from "../src/http/respond";
import type { KeyedRoutes } from "../src/http/gate";
import { targetOf } from "../src/http/target";
import { mountAt } from "../src/core/mounts";

/**
 * The floor's headers for one request: the day-fixed ones shared (rate limits and the caching headers #20 requires),
 * the two per-request ones fresh, as a conforming gate must send them (Remaining changes with every request), from a
 * plain counter instead of limits.
 */
function floorHeaders(): () => ResponseHeaders {
  const limits = { dailyLimit: 100_000_000, minuteLimit: 100_000 };
  const shared = dayHeaders(limits, Date.now());
  const midnight = Date.parse(shared.get("X-RateLimit-Reset")!);
  let served = 0;
  return () => {
    const remaining = String(limits.dailyLimit - ++served);
    const resetSeconds = Math.ceil((midnight - Date.now()) / 1000);
    const rateLimit = rateLimitField(limits.minuteLimit - (served % limits.minuteLimit), 60, remaining, resetSeconds);
    return { shared, own: { "X-RateLimit-Remaining": remaining, RateLimit: rateLimit } };
  };
}

/** A fetch handler as the benchmarks call it, in process or behind Bun.serve. */
export type Handler = (req: Request) => Response | Promise<Response>;

/** The keyed routes called directly, with the path the gate would hand them (http/target.ts), and nothing else. */
export function ungatedHandler(routes: KeyedRoutes): Handler {
  return (req) => {
    const target = targetOf(req);
    if (!target.ok) return new Response("bad target", { status: 400 });
    const mount = mountAt(target.path);
    return mount?.room === "v1" ? routes(target.request, target.path, mount) : new Response("not a /v1 path", { status: 404 });
  };
}

/** The keyed routes behind the floor. */
export function floorHandler(routes: KeyedRoutes): Handler {
  const headersNow = floorHeaders();
  const ungated = ungatedHandler(routes);
  return (req) => {
    if (keyFromHeaders(req.headers) === null) return new Response("no key", { status: 401 });
    prepareHeaders(req, headersNow());
    return ungated(req);
  };
}
