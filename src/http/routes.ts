/**
 * The routes, in two routers that never share a route:
 *  - the keyed router (/v1): thin adapters that parse parameters strictly, call one service function and
 *    serialize. Only the gate calls it, after authentication and admission.
 *  - the open router: what anyone may call (GET /healthz, GET /openapi.json, GET /docs).
 * Elysia's own validation runs too (the schemas document the API); its failures map to the same 400.
 * Each route's `detail` is its OpenAPI operation (http/openapi.ts); GET /openapi.json serves the document.
 */
import { queryOf } from "./target";
import { Elysia, type AnyElysia } from "elysia";
import type { App } from "../app";
import { ApiError, notFound } from "../core/errors";
import { log } from "../core/log";
import { operationalStatus } from "../ops/status";
import { docsBundle, docsPage } from "./docs";
import { parseBestSpotsParams, parseDaysParams, parseNearbyParams, parseSearchParams } from "../core/params";
import { principalOf } from "./gate";
import { openApiRoute, operationDoc } from "./openapi";
import { errorResponse, headersFor, internalError, json, JSON_TYPE, respond } from "./respond";
import { acceptedEncoding, compressedOnce, encodedEtag } from "./compress";
import { bestSpotsQuery, daysQuery, idParams, nearbyQuery, nowManyQuery, nowQuery, searchQuery } from "./schemas";
import { parseNowManyParams, parseNowParams } from "../now/params";

/** A now answer, or 304 when the client holds it; cacheable until the minute ends. */
function nowResponse(request: Request, served: { body: string; etag: string; maxAgeSeconds: number }): Response {
  const headers = headersFor(request, { ETag: served.etag, "Cache-Control": `private, max-age=${served.maxAgeSeconds}`, Vary: "X-API-Key, Authorization" });
  if (request.headers.get("if-none-match") === served.etag) return respond(null, 304, headers);
  return json(served.body, 200, headers);
}

/** The path of a request the gate let through (its URL is canonical: see http/target.ts). */
function pathOf(request: Request): string {
  return new URL(request.url).pathname;
}


/**
 * Elysia's validator rejected the request: re-run the strict parser of that route for the canonical message
 * (the strict parser rejects everything Elysia's does), else name the property Elysia reported.
 */
function validationMessage(request: Request, error: unknown): string {
  const path = pathOf(request);
  const parser =
    path === "/v1/spots"
      ? parseSearchParams
      : path === "/v1/spots/nearby"
        ? parseNearbyParams
        : path === "/v1/spots/best"
          ? parseBestSpotsParams
          : path === "/v1/now"
            ? parseNowManyParams
            : path.endsWith("/now")
              ? parseNowParams
              : parseDaysParams;
  try {
    parser(queryOf(request));
  } catch (err) {
    if (err instanceof ApiError) return err.message;
  }
  const property = (error as { valueError?: { path?: string } }).valueError?.path?.replace(/^\//, "");
  return property ? `Parameter '${property}' is invalid.` : "Invalid request parameters.";
}

/**
 * Elysia reads the path at a fixed offset of the URL unless told the host may be short (`Host: api` from a
 * proxy); the gate hands over canonical URLs, so the short-host scan is always right.
 */
const ROUTER_OPTIONS = { strictPath: true, handler: { standardHostname: false } } as const;

/** Errors of either router, as the spec's JSON error (the route's rate-limit headers kept). */
function routeErrors(app: Elysia) {
  return app.onError(({ code, error, request }) => {
    const headers = headersFor(request);
    if (error instanceof ApiError) return errorResponse(error, headers);
    if (code === "NOT_FOUND") return errorResponse(new ApiError("not_found", `No such endpoint: ${pathOf(request)}`), headers);
    // A path id that does not even decode names no spot: 404, as the spec lists for spot paths.
    if (code === "VALIDATION" && (error as { type?: string }).type === "params") return errorResponse(notFound("No spot with that id."), headers);
    if (code === "VALIDATION" || code === "PARSE") return errorResponse(new ApiError("invalid_request", validationMessage(request, error)), headers);
    // The path only: a query string may carry what a client should not have sent (a key).
    log.error("route failed", { path: pathOf(request), error: String(error) });
    return errorResponse(internalError(), headers);
  });
}

export function createKeyedRoutes(app: App) {
  // Strict paths: `/v1/spots/` is not `/v1/spots`. Only the documented paths answer, and the gate's
  // endpointOf() (which counts requests) sees exactly the paths the router serves.
  return routeErrors(new Elysia(ROUTER_OPTIONS))
    .get("/v1/spots", ({ request }) => json(app.spots.search(parseSearchParams(queryOf(request))), 200, headersFor(request)), {
      query: searchQuery,
      detail: operationDoc("searchSpots"),
    })
    .get("/v1/spots/nearby", ({ request }) => json(app.spots.nearby(parseNearbyParams(queryOf(request))), 200, headersFor(request)), {
      query: nearbyQuery,
      detail: operationDoc("spotsNearby"),
    })
    // A static path: registered like /nearby, so `best` is never taken for a spot id (no slug is `best`).
    .get("/v1/spots/best", ({ request }) => json(app.bestSpots.find(parseBestSpotsParams(queryOf(request))), 200, headersFor(request)), {
      query: bestSpotsQuery,
      detail: operationDoc("bestSpots"),
    })
    .get("/v1/spots/:id", ({ params, request }) => json(app.spots.detail(params.id), 200, headersFor(request)), {
      params: idParams,
      detail: operationDoc("getSpot"),
    })
    .get(
      "/v1/spots/:id/forecast",
      ({ params, request }) => {
        const { days } = parseDaysParams(queryOf(request));
        const served = app.forecasts.get(params.id, days);
        const encoding = acceptedEncoding(request.headers.get("accept-encoding"));
        const etag = encodedEtag(served.etag, encoding);
        const headers = headersFor(request, { ETag: etag, "Cache-Control": `private, max-age=${served.maxAgeSeconds}`, Vary: "X-API-Key, Authorization, Accept-Encoding" });
        if (request.headers.get("if-none-match") === etag) return respond(null, 304, headers);
        if (encoding === null) return json(served.body, 200, headers);
        headers.own["Content-Encoding"] = encoding;
        return respond(compressedOnce(served.spotId, served.etag, encoding, served.body), 200, headers, JSON_TYPE);
      },
      {
        params: idParams,
        query: daysQuery,
        detail: operationDoc("getForecast"),
      },
    )
    .get("/v1/spots/:id/tides", ({ params, request }) => json(app.tides.get(params.id, parseDaysParams(queryOf(request)).days), 200, headersFor(request)), {
      params: idParams,
      query: daysQuery,
      detail: operationDoc("getTides"),
    })
    .get("/v1/spots/:id/now", ({ params, request }) => nowResponse(request, app.now.get(params.id, parseNowParams(queryOf(request)).units)), {
      params: idParams,
      query: nowQuery,
      detail: operationDoc("getSpotNow"),
    })
    .get(
      "/v1/now",
      ({ request }) => {
        const { spots, units } = parseNowManyParams(queryOf(request));
        return nowResponse(request, app.now.many(spots, units));
      },
      { query: nowManyQuery, detail: operationDoc("getNow") },
    )
    .get("/v1/usage", ({ request }) => json(app.meter.reportText(principalOf(request)), 200, headersFor(request, { "Cache-Control": "private, no-store" })), {
      detail: operationDoc("getUsage"),
    });
}

/** What anyone may call. `keyed` is read for the OpenAPI document only, never routed to. */
export function createOpenRoutes(app: App, keyed: AnyElysia) {
  return (
    routeErrors(new Elysia(ROUTER_OPTIONS))
      // Cheap for load balancers; `?verbose=1` adds the operator's status (no account data, nothing secret).
      .get("/healthz", ({ request }) => json(queryOf(request).has("verbose") ? operationalStatus(app) : { status: "ok" }, 200, headersFor(request)), { detail: { hide: true } })
      .get("/docs", () => docsPage(), { detail: { hide: true } })
      .get("/docs/scalar.js", () => docsBundle(), { detail: { hide: true } })
      .use(openApiRoute(keyed))
  );
}
