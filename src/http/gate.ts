/**
 * The gate in front of everything the server answers. Every request first passes `targetOf()` (http/target.ts):
 * one canonical path, or a 400 for a target or Host that cannot be understood. Then its row of the mount table
 * (core/mounts.ts) decides, by its guard:
 *  - `key` (/v1 and /mcp): authentication and the meter, and only from there to the keyed routes or the MCP
 *    handler, which nothing else calls: no request reaches a /v1 handler without a key (fail closed).
 *  - every other guard goes to its room's adapter, which checks what the guard asks for itself (the console its
 *    session, an embed or an alert link its token) or nothing (public).
 *  - no row: a 404 in the spec's shape.
 * Bodies over the limit are refused first (http/body.ts). Order per /v1 request: CORS preflight → authenticate → burst and quota (admit, count) → method check →
 * prepare headers → route. The gate runs before routing and validation, so a bad key always wins (401 beats
 * 400/404), and the rate-limit headers go on every /v1 response produced under a key, 400/404/405/429/500 included.
 */
import type { Peer } from "../core/proxy";
import { mountAt, type KeyedMount, type Mount, type MountHandler, type OpenRoom, type RoomMount } from "../core/mounts";
import type { App } from "../app";
import { ApiError, invalidRequest } from "../core/errors";
import { tally } from "../core/log";
import { keyFromHeaders } from "../access/keys";
import { refusalMessage } from "../access/limiter";
import { nowWeight } from "../now/params";
import type { Principal } from "../access/registry";
import type { Metered } from "../access/meter";
import { CORS_EXPOSE, errorResponse, failureResponse, json, noSuchEndpoint, prepareHeaders, type ResponseHeaders } from "./respond";
import { targetOf } from "./target";
import { queryOf } from "../core/query";
import { bodyRefusal, CLOSE } from "./body";
import { routeLabel } from "../core/route-label";

/** The keyed routes (http/routes.ts), given the request, its canonical path (http/target.ts) and its /v1 row. */
export type KeyedRoutes = (req: Request, path: string, mount: RoomMount<"v1">) => Response | Promise<Response>;
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

function preflight(mount: Mount): Response {
  const mcp = mount.room === "mcp";
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

export interface GateRoutes {
  /** The /v1 routes, given the request, its canonical path and its row. Called only after authentication and admission. */
  keyed: KeyedRoutes;
  mcp: McpHandler;
  /** Each other room's adapter: the routes that pass no key. */
  open: { [R in OpenRoom]: MountHandler<R> };
}

/** A row whose guard the gate does not decide is refused, never served: a new guard must be decided here first. */
function refuseUndecided(mount: Mount): Response {
  throw new Error(`no guard of the API port decides ${mount.path}`);
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

  const guarded = (req: Request, path: string, mount: KeyedMount): Response | Promise<Response> => {
    // A reload that another process's commit started is waited for: no answer comes from keys older than a change seen.
    const reloading = app.keys.poll();
    return reloading === null ? authenticated(req, path, mount) : after(reloading, req, path, () => authenticated(req, path, mount));
  };

  const authenticated = (req: Request, path: string, mount: KeyedMount): Response | Promise<Response> => {
    const principal = app.keys.authenticate(keyFromHeaders(req.headers));
    if (principal instanceof ApiError) return errorResponse(principal, { own: corsFor(req) });
    const loading = app.meter.ready(principal);
    return loading === null ? metered(req, path, mount, principal) : after(loading, req, path, () => metered(req, path, mount, principal));
  };

  const metered = (req: Request, path: string, mount: KeyedMount, principal: Principal): Response | Promise<Response> => {
    if (mount.room === "mcp") return mcp(req, principal).catch((err: unknown) => failed(req, path, err));

    // Every authenticated request passes the burst window before any work, wrong methods included.
    const allowedMethod = req.method === "GET" || req.method === "HEAD";
    const endpoint = "endpoint" in mount ? mount.endpoint : null;
    // GET /v1/now counts once per spot it asks for.
    const weight = allowedMethod && mount.serve === "getNow" ? nowWeight(queryOf(req), (id) => app.spots.find(id)) : 1;
    // Counted under the endpoint's usage key; usage itself, unknown paths and wrong methods are not counted.
    const decision = app.meter.admit(principal, allowedMethod ? (endpoint?.usage ?? null) : null, weight);
    // Several servers count in Redis: a promise, and an outage there answers 503, never an uncounted request.
    if (!(decision instanceof Promise)) return admitted(req, path, mount, principal, allowedMethod, decision);
    return decision.then((d) => admitted(req, path, mount, principal, allowedMethod, d)).catch((err: unknown) => failed(req, path, err));
  };

  const admitted = (req: Request, path: string, mount: RoomMount<"v1">, principal: Principal, allowedMethod: boolean, { verdict, headers: counted }: Metered): Response | Promise<Response> => {
    const headers = withCors(req, counted);
    if (!verdict.allowed) {
      headers.own["Retry-After"] = String(verdict.retryAfterSeconds);
      return errorResponse(new ApiError("rate_limited", refusalMessage(verdict)), headers);
    }
    if (!allowedMethod) {
      headers.own.Allow = "GET, HEAD";
      return json(invalidRequest(`Method ${req.method} is not allowed; every /v1 endpoint is GET.`).toBody(), 405, headers);
    }
    if (mount.serve === "getUsage") principals.set(req, principal);
    // The route builds its response on these headers (400, 404 and 500 included): see respond.ts.
    prepareHeaders(req, headers);
    return keyed(req, path, mount);
  };

  return (raw: Request, peer?: Peer): Response | Promise<Response> => {
    const target = targetOf(raw);
    if (!target.ok) {
      countMalformed();
      return errorResponse(invalidRequest(target.reason));
    }
    const { path, request: req } = target;
    const mount = mountAt(path, req.method);
    // A load balancer's health probes every few seconds must not keep an idle server from handing memory back.
    if (mount?.serve !== "health") activity.requests++;
    const tooLarge = bodyRefusal(req, mount?.room === "mcp");
    if (tooLarge) return json(tooLarge.error.toBody(), tooLarge.status, { own: { ...corsFor(req), ...CLOSE } });
    try {
      if (mount?.guard === "key") return req.method === "OPTIONS" ? preflight(mount) : guarded(req, path, mount);
      if (req.headers.has("origin")) prepareHeaders(req, { own: CORS_BASE });
      if (mount === null) return noSuchEndpoint(req, path);
      switch (mount.guard) {
        // These rooms check what their guard asks for themselves: the console its session, embeds and alert links their token.
        case "public":
        case "visitor":
        case "session":
        case "admin":
        case "token":
          // Each room's adapter is given only its own rows; TypeScript cannot pair the two by itself.
          return (open[mount.room] as MountHandler)(req, path, mount, peer);
        default:
          return refuseUndecided(mount);
      }
    } catch (err) {
      return failed(req, path, err);
    }
  };
}
