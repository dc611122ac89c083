/**
 * The gate in front of the Elysia app. It runs before routing and validation, so a bad key always wins
 * (401 beats 400/404), and it puts the rate-limit headers on every /v1 response produced under a key —
 * including 400, 404, 429 and 500. Order per /v1 request:
 *   CORS preflight → authenticate → method check → admit (quota + burst, count) → route → headers.
 * /mcp requests are authenticated here too; their tool calls are admitted per call by the MCP adapter.
 */
import type { App } from "../app";
import { ApiError } from "../core/errors";
import { log } from "../core/log";
import { keyFromHeaders } from "../access/keys";
import type { EndpointName } from "../access/meter";
import { refusalMessage } from "../access/limiter";
import type { Principal } from "../access/registry";
import { CORS_EXPOSE, errorResponse, internalError, withHeaders } from "./respond";

type Handler = (req: Request) => Response | Promise<Response>;
export type McpHandler = (req: Request, principal: Principal) => Promise<Response>;

const principals = new WeakMap<Request, Principal>();

/** The principal the gate authenticated for this request (kept for GET /v1/usage, the one route that needs it). */
export function principalOf(req: Request): Principal {
  const p = principals.get(req);
  if (!p) throw new Error("principalOf: request did not pass the gate");
  return p;
}

const CORS_BASE = { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": CORS_EXPOSE };
const NO_HEADERS = {};

/** CORS headers matter only to browsers, which always send Origin cross-origin: other clients are spared the bytes. */
function corsFor(req: Request): Record<string, string> {
  return req.headers.has("origin") ? CORS_BASE : NO_HEADERS;
}

function preflight(path: string): Response {
  const mcp = path === "/mcp";
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS_BASE,
      "Access-Control-Allow-Methods": mcp ? "GET, POST, DELETE, OPTIONS" : "GET, HEAD, OPTIONS",
      "Access-Control-Allow-Headers": "X-API-Key, Authorization, Content-Type, If-None-Match, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID",
      "Access-Control-Max-Age": "86400",
    },
  });
}

/** Which usage counter a /v1 path belongs to; null = not counted (usage itself, unknown paths). */
export function endpointOf(path: string): EndpointName | null {
  if (path === "/v1/spots") return "spots.search";
  if (path === "/v1/spots/nearby") return "spots.nearby";
  if (!path.startsWith("/v1/spots/")) return null;
  const rest = path.slice("/v1/spots/".length);
  const slash = rest.indexOf("/");
  if (slash === -1) return rest.length > 0 ? "spots.get" : null;
  if (slash === 0) return null;
  const tail = rest.slice(slash);
  return tail === "/forecast" ? "forecast" : tail === "/tides" ? "tides" : null;
}

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const q = url.indexOf("?", start);
  return q === -1 ? url.slice(start) : url.slice(start, q);
}

export function createGate(app: App, routes: Handler, mcp: McpHandler): Handler {
  const guarded = async (req: Request, path: string): Promise<Response> => {
    app.keys.poll();
    const principal = app.keys.authenticate(keyFromHeaders(req.headers));
    if (principal instanceof ApiError) return errorResponse(principal, corsFor(req));

    if (path === "/mcp") return mcp(req, principal);

    if (req.method !== "GET" && req.method !== "HEAD") {
      const res = errorResponse(new ApiError("invalid_request", `Method ${req.method} is not allowed; every /v1 endpoint is GET.`), {
        ...corsFor(req),
        ...app.meter.headers(principal),
        Allow: "GET, HEAD",
      });
      return new Response(res.body, { status: 405, headers: res.headers });
    }

    const verdict = app.meter.admit(principal, endpointOf(path));
    if (!verdict.allowed) {
      return errorResponse(new ApiError("rate_limited", refusalMessage(verdict)), {
        ...corsFor(req),
        ...app.meter.headers(principal),
        "Retry-After": String(verdict.retryAfterSeconds),
      });
    }
    if (path === "/v1/usage") principals.set(req, principal);
    let res: Response;
    try {
      res = await routes(req);
    } catch (err) {
      log.error("unhandled error in route", { path, error: String(err) });
      res = errorResponse(internalError());
    }
    const headers = res.headers;
    if (req.headers.has("origin")) {
      headers.set("Access-Control-Allow-Origin", "*");
      headers.set("Access-Control-Expose-Headers", CORS_EXPOSE);
    }
    app.meter.applyHeaders(principal, headers);
    return res;
  };

  // Not `async`: one promise layer less per request on the hot path; failures still end as a logged 500.
  return (req: Request): Response | Promise<Response> => {
    const path = pathOf(req.url);
    const fail = (err: unknown) => {
      log.error("unhandled error", { path, error: String(err) });
      return errorResponse(internalError(), corsFor(req));
    };
    try {
      if (req.method === "OPTIONS") return preflight(path);
      if (path === "/mcp" || path === "/v1" || path.startsWith("/v1/")) return guarded(req, path).catch(fail);
      return Promise.resolve(routes(req)).then((res) => withHeaders(res, corsFor(req)), fail);
    } catch (err) {
      return fail(err);
    }
  };
}
