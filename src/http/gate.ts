/**
 * The gate in front of the Elysia app. It runs before routing and validation, so a bad key always wins
 * (401 beats 400/404), and it puts the rate-limit headers on every /v1 response produced under a key —
 * including 400, 404, 429 and 500. Order per /v1 request:
 *   CORS preflight → authenticate → method check → admit (quota + burst, count) → prepare headers → route.
 * /mcp requests are authenticated here too; their tool calls are admitted per call by the MCP adapter.
 */
import type { App } from "../app";
import { ApiError } from "../core/errors";
import { log } from "../core/log";
import { keyFromHeaders } from "../access/keys";
import type { EndpointName } from "../access/meter";
import { refusalMessage } from "../access/limiter";
import type { Principal } from "../access/registry";
import { CORS_EXPOSE, errorResponse, internalError, json, prepareHeaders, type ResponseHeaders } from "./respond";

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

function withCors(req: Request, headers: ResponseHeaders): ResponseHeaders {
  if (req.headers.has("origin")) Object.assign(headers.own, CORS_BASE);
  return headers;
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
  if (path === "/v1/spots/best") return "spots.best";
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
  const guarded = (req: Request, path: string): Response | Promise<Response> => {
    app.keys.poll();
    const principal = app.keys.authenticate(keyFromHeaders(req.headers));
    if (principal instanceof ApiError) return errorResponse(principal, { own: corsFor(req) });

    if (path === "/mcp") return mcp(req, principal);

    if (req.method !== "GET" && req.method !== "HEAD") {
      const headers = withCors(req, app.meter.headers(principal));
      headers.own.Allow = "GET, HEAD";
      return json(new ApiError("invalid_request", `Method ${req.method} is not allowed; every /v1 endpoint is GET.`).toBody(), 405, headers);
    }

    const verdict = app.meter.admit(principal, endpointOf(path));
    const headers = withCors(req, app.meter.headers(principal));
    if (!verdict.allowed) {
      headers.own["Retry-After"] = String(verdict.retryAfterSeconds);
      return errorResponse(new ApiError("rate_limited", refusalMessage(verdict)), headers);
    }
    if (path === "/v1/usage") principals.set(req, principal);
    // The route builds its response on these headers (400, 404 and 500 included): see respond.ts.
    prepareHeaders(req, headers);
    return routes(req);
  };

  return (req: Request): Response | Promise<Response> => {
    const path = pathOf(req.url);
    try {
      if (req.method === "OPTIONS") return preflight(path);
      if (path === "/mcp" || path === "/v1" || path.startsWith("/v1/")) return guarded(req, path);
      if (req.headers.has("origin")) prepareHeaders(req, { own: CORS_BASE });
      return routes(req);
    } catch (err) {
      log.error("unhandled error", { path, error: String(err) });
      return errorResponse(internalError(), { own: corsFor(req) });
    }
  };
}
