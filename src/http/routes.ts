/**
 * The routes, in two routers that never share a route:
 *  - the keyed router (/v1): thin adapters that parse parameters strictly, call one service function and
 *    serialize. Only the gate calls it, after authentication and admission.
 *  - the open router: what anyone may call (GET /, /healthz, /openapi.json, /docs).
 * The schemas (http/schemas.ts) document the API: the routes built for GET /openapi.json carry them, the serving
 * ones do not (see RoutesUse).
 * Each route's `detail` is its OpenAPI operation (http/openapi.ts); GET /openapi.json serves the document.
 */
import { routerPath } from "../core/endpoints";
import type { ServedForecast } from "../forecast/service";
import { homeResponse } from "./home";
import { queryOf } from "../core/query";
import { Elysia, type TSchema } from "elysia";
import type { App } from "../app";
import { ApiError, notFound } from "../core/errors";
import { andThen, type MaybePromise } from "../core/maybe-promise";
import { publicStatus } from "../ops/status";
import { docsBundle, docsInit, docsPage } from "./docs";
import { parseBestSpotsParams, parseDaysParams, parseNearbyParams, parseSearchParams } from "../core/params";
import { principalOf } from "./gate";
import { routeLabel } from "../core/route-label";
import { openApiRoute, operationDoc, type OperationId } from "./openapi";
import { errorResponse, failureResponse, headersFor, json, JSON_TYPE, respond } from "./respond";
import { acceptedEncoding, compressedOnce, encodedEtag } from "./compress";
import { bestSpotsQuery, daysQuery, idParams, nearbyQuery, nowManyQuery, nowQuery, searchQuery } from "./schemas";
import { parseNowManyParams, parseNowParams } from "../now/params";

/** A now answer, or 304 when the client holds it; cacheable until the minute ends. */
function nowResponse(request: Request, served: { body: string; etag: string; maxAgeSeconds: number }): Response {
  const headers = headersFor(request, { ETag: served.etag, "Cache-Control": `private, max-age=${served.maxAgeSeconds}`, Vary: "X-API-Key, Authorization" });
  if (request.headers.get("if-none-match") === served.etag) return respond(null, 304, headers);
  return json(served.body, 200, headers);
}

/** The path's spot id; Elysia leaves an id that does not even decode null: it names no spot (404, as the spec lists for spot paths). */
function spotId(params: { id: string | null }): string {
  if (params.id === null) throw notFound("No spot with that id.");
  return params.id;
}

/** The path of a request the gate let through (its URL is canonical: see http/target.ts). */
function pathOf(request: Request): string {
  return new URL(request.url).pathname;
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
    // The route's template, never the path or the query: either may carry what a client should not have sent (a key).
    return failureResponse(error, routeLabel(pathOf(request)), headers);
  });
}

/**
 * What the keyed routes are built for. Serving, they carry no schemas: each handler's strict parser (core/params)
 * is the validation, and Elysia's own validator, run before it, only repeated it (2–3 µs a request on nearby and
 * tides, measured). Documenting, they carry the schemas the OpenAPI generator reads, and never serve.
 */
export type RoutesUse = "serve" | "document";

/** A forecast body with its ETag (304 when the client has it) and the encoding the client accepts, compressed once. */
function forecastResponse(request: Request, served: ServedForecast): Response {
  const encoding = acceptedEncoding(request.headers.get("accept-encoding"));
  const etag = encodedEtag(served.etag, encoding);
  const headers = headersFor(request, { ETag: etag, "Cache-Control": `private, max-age=${served.maxAgeSeconds}`, Vary: "X-API-Key, Authorization, Accept-Encoding" });
  if (request.headers.get("if-none-match") === etag) return respond(null, 304, headers);
  if (encoding === null) return json(served.body, 200, headers);
  headers.own["Content-Encoding"] = encoding;
  return respond(compressedOnce(served.spotId, served.etag, encoding, served.body), 200, headers, JSON_TYPE);
}

export function createKeyedRoutes(app: App, use: RoutesUse = "serve") {
  const hooks = (operation: OperationId, schemas: { query?: TSchema; params?: TSchema }) =>
    use === "document" ? { ...schemas, detail: operationDoc(operation) } : {};
  /**
   * Answers once these spots' first forecasts are fetched, in the refresh scope `requested` (forecast/demand.ts);
   * at once, without a turn of the event loop, when there is nothing to wait for.
   */
  const afterFirstForecasts = (spotIds: Parameters<typeof app.demand.ready>[0], answer: () => MaybePromise<Response>): MaybePromise<Response> => {
    const waiting = app.demand.ready(spotIds);
    return waiting ? waiting.then(answer) : answer();
  };
  // Strict paths: `/v1/spots/` is not `/v1/spots`. Only the documented paths answer, and the gate's
  // endpointOf() (which counts requests) sees exactly the paths the router serves.
  return routeErrors(new Elysia(ROUTER_OPTIONS))
    .get(routerPath("searchSpots"), ({ request }) => json(app.spots.search(parseSearchParams(queryOf(request))), 200, headersFor(request)), hooks("searchSpots", { query: searchQuery }))
    .get(routerPath("spotsNearby"), ({ request }) => json(app.spots.nearby(parseNearbyParams(queryOf(request))), 200, headersFor(request)), hooks("spotsNearby", { query: nearbyQuery }))
    // A static path: registered like /nearby, so `best` is never taken for a spot id (no slug is `best`).
    .get(
      routerPath("bestSpots"),
      ({ request }) => {
        const params = parseBestSpotsParams(queryOf(request));
        return afterFirstForecasts(() => app.bestSpots.candidates(params), () => andThen(app.bestSpots.find(params), (found) => json(found, 200, headersFor(request))));
      },
      hooks("bestSpots", { query: bestSpotsQuery }),
    )
    .get(routerPath("getSpot"), ({ params, request }) => json(app.spots.detail(spotId(params)), 200, headersFor(request)), hooks("getSpot", { params: idParams }))
    .get(
      routerPath("getForecast"),
      ({ params, request }) => {
        const { days } = parseDaysParams(queryOf(request));
        return afterFirstForecasts([spotId(params)], () => andThen(app.forecasts.get(spotId(params), days), (served) => forecastResponse(request, served)));
      },
      hooks("getForecast", { params: idParams, query: daysQuery }),
    )
    .get(
      routerPath("getTides"),
      ({ params, request }) => andThen(app.tides.get(spotId(params), parseDaysParams(queryOf(request)).days), (tides) => json(tides, 200, headersFor(request))),
      hooks("getTides", { params: idParams, query: daysQuery }),
    )
    .get(
      routerPath("getSpotNow"),
      ({ params, request }) => {
        const { units } = parseNowParams(queryOf(request));
        return afterFirstForecasts([spotId(params)], () => andThen(app.now.get(spotId(params), units), (served) => nowResponse(request, served)));
      },
      hooks("getSpotNow", { params: idParams, query: nowQuery }),
    )
    .get(
      routerPath("getNow"),
      ({ request }) => {
        const { spots, units } = parseNowManyParams(queryOf(request));
        return afterFirstForecasts(spots, () => andThen(app.now.many(spots, units), (served) => nowResponse(request, served)));
      },
      hooks("getNow", { query: nowManyQuery }),
    )
    .get(
      routerPath("getUsage"),
      ({ request }) => {
        const usage = (text: string) => json(text, 200, headersFor(request, { "Cache-Control": "private, no-store" }));
        // From memory once the key's report is kept (a day's first ask reads the stored counts).
        const text = app.meter.reportText(principalOf(request));
        return typeof text === "string" ? usage(text) : text.then(usage);
      },
      hooks("getUsage", {}),
    );
}

/** What anyone may call. GET /openapi.json documents the keyed routes (built for it on its first request). */
export function createOpenRoutes(app: App) {
  return (
    routeErrors(new Elysia(ROUTER_OPTIONS))
      // Cheap for load balancers; `?verbose=1` adds the operator's status (no account data, nothing secret: the
      // last refresh's error text is only on the metrics port's /status and in `surfcast status`).
      .get("/healthz", async ({ request }) => json(queryOf(request).has("verbose") ? await publicStatus(app) : { status: "ok" }, 200, headersFor(request)), { detail: { hide: true } })
      .get("/", ({ request }) => homeResponse(request, app.config.console), { detail: { hide: true } })
      .get("/docs", () => docsPage(), { detail: { hide: true } })
      .get("/docs/scalar.js", () => docsBundle(), { detail: { hide: true } })
      .get("/docs/init.js", () => docsInit(), { detail: { hide: true } })
      .use(openApiRoute(() => createKeyedRoutes(app, "document")))
  );
}
