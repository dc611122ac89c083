/**
 * The /v1 routes: thin adapters that parse parameters strictly, call one service function and serialize.
 * Elysia's own validation runs too (the schemas document the API); its failures map to the same 400.
 * Each route's `detail` is its OpenAPI operation (http/openapi.ts); GET /openapi.json serves the document.
 */
import { Elysia } from "elysia";
import type { App } from "../app";
import { ApiError, notFound } from "../core/errors";
import { log } from "../core/log";
import { operationalStatus } from "../ops/status";
import { docsBundle, docsPage } from "./docs";
import { parseDaysParams, parseNearbyParams, parseSearchParams } from "../core/params";
import { principalOf } from "./gate";
import { openApiRoute, operationDoc } from "./openapi";
import { errorResponse, headersFor, internalError, json, respond } from "./respond";
import { daysQuery, idParams, nearbyQuery, searchQuery } from "./schemas";

function queryOf(request: Request): URLSearchParams {
  const url = request.url;
  const q = url.indexOf("?");
  return new URLSearchParams(q === -1 ? "" : url.slice(q + 1));
}

/**
 * Elysia's validator rejected the request: re-run the strict parser of that route for the canonical message
 * (the strict parser rejects everything Elysia's does), else name the property Elysia reported.
 */
function validationMessage(request: Request, error: unknown): string {
  const path = new URL(request.url).pathname;
  const parser = path === "/v1/spots" ? parseSearchParams : path === "/v1/spots/nearby" ? parseNearbyParams : parseDaysParams;
  try {
    parser(queryOf(request));
  } catch (err) {
    if (err instanceof ApiError) return err.message;
  }
  const property = (error as { valueError?: { path?: string } }).valueError?.path?.replace(/^\//, "");
  return property ? `Parameter '${property}' is invalid.` : "Invalid request parameters.";
}

export function createRoutes(app: App) {
  // Strict paths: `/v1/spots/` is not `/v1/spots`. Only the documented paths answer, and the gate's
  // endpointOf() (which counts requests) sees exactly the paths the router serves.
  const routes = new Elysia({ strictPath: true })
    .onError(({ code, error, request }) => {
      const headers = headersFor(request);
      if (error instanceof ApiError) return errorResponse(error, headers);
      if (code === "NOT_FOUND") return errorResponse(new ApiError("not_found", `No such endpoint: ${new URL(request.url).pathname}`), headers);
      // A path id that does not even decode names no spot: 404, as the spec lists for spot paths.
      if (code === "VALIDATION" && (error as { type?: string }).type === "params") return errorResponse(notFound("No spot with that id."), headers);
      if (code === "VALIDATION" || code === "PARSE") return errorResponse(new ApiError("invalid_request", validationMessage(request, error)), headers);
      log.error("route failed", { url: request.url, error: String(error) });
      return errorResponse(internalError(), headers);
    })
    // Cheap for load balancers; `?verbose=1` adds the operator's status (no account data, nothing secret).
    .get("/healthz", ({ request }) => json(queryOf(request).has("verbose") ? operationalStatus(app) : { status: "ok" }, 200, headersFor(request)), { detail: { hide: true } })
    .get("/docs", () => docsPage(), { detail: { hide: true } })
    .get("/docs/scalar.js", () => docsBundle(), { detail: { hide: true } })
    .get("/v1/spots", ({ request }) => json(app.spots.search(parseSearchParams(queryOf(request))), 200, headersFor(request)), {
      query: searchQuery,
      detail: operationDoc("searchSpots"),
    })
    .get("/v1/spots/nearby", ({ request }) => json(app.spots.nearby(parseNearbyParams(queryOf(request))), 200, headersFor(request)), {
      query: nearbyQuery,
      detail: operationDoc("spotsNearby"),
    })
    .get("/v1/spots/:id", ({ params, request }) => json(app.spots.get(params.id), 200, headersFor(request)), {
      params: idParams,
      detail: operationDoc("getSpot"),
    })
    .get(
      "/v1/spots/:id/forecast",
      ({ params, request }) => {
        const { days } = parseDaysParams(queryOf(request));
        const served = app.forecasts.get(params.id, days);
        const headers = headersFor(request, { ETag: served.etag, "Cache-Control": `private, max-age=${served.maxAgeSeconds}`, Vary: "X-API-Key, Authorization" });
        if (request.headers.get("if-none-match") === served.etag) return respond(null, 304, headers);
        return json(served.body, 200, headers);
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
    .get("/v1/usage", ({ request }) => json(app.meter.report(principalOf(request)), 200, headersFor(request)), {
      detail: operationDoc("getUsage"),
    });
  return routes.use(openApiRoute(routes));
}
