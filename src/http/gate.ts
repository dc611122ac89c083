/**
 * The gate in front of everything the server answers. Every request first passes `targetOf()` (http/target.ts):
 * one canonical path, or a 400 for a target or Host that cannot be understood. Then:
 *  - /v1 and /mcp go through authentication and the meter, and only from there to the keyed routes or the MCP
 *    handler. The keyed routes live in their own router that nothing else calls, so no request reaches a /v1
 *    handler without a key, whatever its URL looks like (fail closed).
 *  - everything else goes to the open side (health, the OpenAPI document, the developer console with its own
 *    sign-in), which holds no keyed route.
 * Bodies over the limit are refused first (http/body.ts). Order per /v1 request: CORS preflight → authenticate → burst and quota (admit, count) → method check →
 * prepare headers → route. The gate runs before routing and validation, so a bad key always wins (401 beats
 * 400/404), and the rate-limit headers go on every /v1 response produced under a key, 400/404/405/429/500 included.
 */
import type { Peer } from "../core/proxy";
import { endpointAt } from "../core/endpoints";
import type { App } from "../app";
import { ApiError, invalidRequest } from "../core/errors";
import { tally } from "../core/log";
import { keyFromHeaders } from "../access/keys";
import type { V1Endpoint } from "../core/endpoints";
import { refusalMessage } from "../access/limiter";
import { nowWeight } from "../now/params";
import type { Principal } from "../access/registry";
import type { Metered } from "../access/meter";
import { CORS_EXPOSE, errorResponse, failureResponse, json, prepareHeaders, type ResponseHeaders } from "./respond";
import { targetOf } from "./target";
import { queryOf } from "../core/query";
import { bodyRefusal, CLOSE } from "./body";
import { routeLabel } from "../core/route-label";

/**
 * The keyed routes (http/routes.ts), given the request, its canonical path (http/target.ts) and the endpoint the
 * table serves there (core/endpoints.ts; null: none, a 404).
 */
export type KeyedRoutes = (req: Request, path: string, endpoint: V1Endpoint | null) => Response | Promise<Response>;
/** The open side: the path is the canonical one the gate decided on. */
export type OpenHandler = (req: Request, path: string, peer?: Peer) => Response | Promise<Response>;
/** The MCP adapter: authenticated, not yet admitted (it meters each message itself, before any work). */
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

/** Whether a path belongs to the keyed side: /v1 and everything below it, and /mcp. */
export function isKeyedPath(path: string): boolean {
  return path === "/mcp" || path === "/v1" || path.startsWith("/v1/");
}

export interface GateRoutes {
  /** The /v1 routes, given the request, its canonical path and its endpoint. Called only after authentication and admission. */
  keyed: KeyedRoutes;
  mcp: McpHandler;
  /** Routes anyone may call (health, the OpenAPI document, the developer console); holds no keyed route. */
  open: OpenHandler;
}

/** Requests refused before routing are client mistakes: counted and logged once a minute, never one line each. */
const countMalformed = tally("refused malformed requests (bad Host or request target) with 400");

export function createGate(app: App, { keyed, mcp, open }: GateRoutes): (req: Request, peer?: Peer) => Response | Promise<Response> {
  const { activity } = app;
  // The route, never the path: a path can hold a secret (a console invitation's token).
  const failed = (req: Request, path: string, err: unknown): Response => failureResponse(err, routeLabel(path), { own: { ...corsFor(req) } });
  /** Goes on once `waiting` is done; the request path waits only for a reload or a key's first load of the day. */
  const after = (waiting: Promise<void>, req: Request, path: string, next: () => Response | Promise<Response>) =>
    waiting.then(next).catch((err: unknown) => failed(req, path, err));

  const guarded = (req: Request, path: string): Response | Promise<Response> => {
    // A reload that another process's commit started is waited for: no answer comes from keys older than a change seen.
    const reloading = app.keys.poll();
    return reloading === null ? authenticated(req, path) : after(reloading, req, path, () => authenticated(req, path));
  };

  const authenticated = (req: Request, path: string): Response | Promise<Response> => {
    const principal = app.keys.authenticate(keyFromHeaders(req.headers));
    if (principal instanceof ApiError) return errorResponse(principal, { own: corsFor(req) });
    const loading = app.meter.ready(principal);
    return loading === null ? metered(req, path, principal) : after(loading, req, path, () => metered(req, path, principal));
  };

  const metered = (req: Request, path: string, principal: Principal): Response | Promise<Response> => {
    if (path === "/mcp") return mcp(req, principal).catch((err: unknown) => failed(req, path, err));

    // Every authenticated request passes the burst window before any work, wrong methods included.
    const allowedMethod = req.method === "GET" || req.method === "HEAD";
    const endpoint = endpointAt(path);
    // GET /v1/now counts once per spot it asks for.
    const weight = allowedMethod && path === "/v1/now" ? nowWeight(queryOf(req), (id) => app.spots.find(id)) : 1;
    // Counted under the endpoint's usage key; usage itself, unknown paths and wrong methods are not counted.
    const decision = app.meter.admit(principal, allowedMethod ? (endpoint?.usage ?? null) : null, weight);
    // Several servers count in Redis: a promise, and an outage there answers 503, never an uncounted request.
    if (!(decision instanceof Promise)) return admitted(req, path, endpoint, principal, allowedMethod, decision);
    return decision.then((d) => admitted(req, path, endpoint, principal, allowedMethod, d)).catch((err: unknown) => failed(req, path, err));
  };

  const admitted = (req: Request, path: string, endpoint: V1Endpoint | null, principal: Principal, allowedMethod: boolean, { verdict, headers: counted }: Metered): Response | Promise<Response> => {
    const headers = withCors(req, counted);
    if (!verdict.allowed) {
      headers.own["Retry-After"] = String(verdict.retryAfterSeconds);
      return errorResponse(new ApiError("rate_limited", refusalMessage(verdict)), headers);
    }
    if (!allowedMethod) {
      headers.own.Allow = "GET, HEAD";
      return json(invalidRequest(`Method ${req.method} is not allowed; every /v1 endpoint is GET.`).toBody(), 405, headers);
    }
    if (path === "/v1/usage") principals.set(req, principal);
    // The route builds its response on these headers (400, 404 and 500 included): see respond.ts.
    prepareHeaders(req, headers);
    return keyed(req, path, endpoint);
  };

  return (raw: Request, peer?: Peer): Response | Promise<Response> => {
    const target = targetOf(raw);
    if (!target.ok) {
      countMalformed();
      return errorResponse(invalidRequest(target.reason));
    }
    const { path, request: req } = target;
    // A load balancer's health probes every few seconds must not keep an idle server from handing memory back.
    if (path !== "/healthz") activity.requests++;
    const tooLarge = bodyRefusal(req, path);
    if (tooLarge) return json(tooLarge.error.toBody(), tooLarge.status, { own: { ...corsFor(req), ...CLOSE } });
    try {
      if (isKeyedPath(path)) return req.method === "OPTIONS" ? preflight(path) : guarded(req, path);
      if (req.headers.has("origin")) prepareHeaders(req, { own: CORS_BASE });
      return open(req, path, peer);
    } catch (err) {
      return failed(req, path, err);
    }
  };
}
