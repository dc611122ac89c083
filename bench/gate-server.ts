/**
 * Benchmark-only server that isolates the cost of the access layer: the same Elysia routes
 *  - `gated`: behind the production gate (auth, quota, burst, usage accounting, rate-limit headers, usage flushes);
 *  - `ungated`: called directly;
 *  - `floor`: behind the least any gate that meets the spec must do — read the key from the request headers and
 *    send the five rate-limit headers, two of them with values that change per request — with no key lookup, no
 *    limits and no usage accounting (one counter). What `floor` costs over `ungated` is the runtime's price for the
 *    spec's headers, whatever the implementation.
 * Usage: bun bench/gate-server.ts gated|ungated|floor DATA_DIR — prints "listening <port>" on stdout.
 * No production flag is needed for this: it is built from createKeyedRoutes(app) vs createFetchHandler(app).
 */
import { loadConfig } from "../src/config";
import { openApp } from "../src/app";
import { createKeyedRoutes } from "../src/http/routes";
import { createFetchHandler } from "../src/http/server";
import { keyFromHeaders } from "../src/access/keys";
import { rateLimitField } from "../src/access/limiter";
import { dayHeaders } from "../src/access/meter";
import { prepareHeaders, type ResponseHeaders } from "../src/http/respond";

/** As in `surfcast serve`, usage counts and burst windows are written to SQLite every half second. */
const FLUSH_MS = 500;
const MODES = ["gated", "ungated", "floor"] as const;

const [mode, dataDir] = process.argv.slice(2) as [(typeof MODES)[number], string | undefined];
if (!MODES.includes(mode) || !dataDir) throw new Error("usage: bun bench/gate-server.ts gated|ungated|floor DATA_DIR");

/**
 * The floor's headers for one request: the day-fixed ones shared (rate limits and the caching headers #20 requires), the two per-request ones fresh, as a
 * conforming gate must send them (Remaining changes with every request), from a plain counter instead of limits.
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

const app = openApp(loadConfig({ dataDir, port: 0, host: "127.0.0.1", scheduler: false }));
let fetchHandler: (req: Request) => Response | Promise<Response>;
if (mode === "gated") {
  fetchHandler = createFetchHandler(app);
  setInterval(() => app.meter.flush(), FLUSH_MS);
} else {
  const routes = createKeyedRoutes(app).compile();
  fetchHandler = routes.fetch;
  if (mode === "floor") {
    const headersNow = floorHeaders();
    fetchHandler = (req) => {
      if (keyFromHeaders(req.headers) === null) return new Response("no key", { status: 401 });
      prepareHeaders(req, headersNow());
      return routes.fetch(req);
    };
  }
}
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: fetchHandler, idleTimeout: 30 });
console.log(`listening ${server.port}`);
