/**
 * The handlers of two rooms of the mount table (core/mounts.ts), which never share a route:
 *  - the keyed routes (/v1): thin adapters that parse parameters strictly, call one service function and
 *    serialize. Only the gate calls them, after authentication and admission.
 *  - the open routes: what anyone may call (GET /, /healthz, /openapi.json, /docs).
 * No router runs and no schema: the gate found the request's row, and each handler's strict parser (core/params)
 * is the validation. The schemas (http/schemas.ts) document the API in GET /openapi.json (http/openapi.ts).
 */
import { mountParam, type MountHandler, type ServeOf } from "../core/mounts";
import type { ServedForecast } from "../forecast/service";
import { homeResponse } from "./home";
import { queryOf } from "../core/query";
import { noneMatchHolds } from "../core/etag";
import type { App } from "../app";
import { ApiError, notFound } from "../core/errors";
import { andThen, type MaybePromise } from "../core/maybe-promise";
import { publicStatusOf } from "../ops/status";
import { docsBundle, docsInit, docsPage } from "./docs";
import { parseBestSpotsParams, parseDaysParams, parseNearbyParams, parseSearchParams, parseUnitsParams, parseVerificationParams } from "../core/params";
import { principalOf, type KeyedRoutes } from "./gate";
import { routeLabel } from "../core/route-label";
import { openApiDocument } from "./openapi";
import { errorResponse, failureResponse, headersFor, json, JSON_TYPE, noSuchEndpoint, respond } from "./respond";
import { acceptedEncoding, compressedOnce, encodedEtag } from "./compress";
import { parseNowManyParams } from "../now/params";
import { tidesIn } from "../tides/units";
import { climateIn } from "../climate/units";
import { climateUnavailable, type ClimateState } from "../climate/service";
import type { Units } from "../core/units";

/** A now answer, or 304 when the client holds it; cacheable until the minute ends. */
function nowResponse(request: Request, served: { body: string; etag: string; maxAgeSeconds: number }): Response {
  const headers = headersFor(request, { ETag: served.etag, "Cache-Control": `private, max-age=${served.maxAgeSeconds}`, Vary: "X-API-Key, Authorization" });
  if (noneMatchHolds(request.headers.get("if-none-match"), served.etag)) return respond(null, 304, headers);
  return json(served.body, 200, headers);
}

/** The path's spot id; an id that does not even decode is null: it names no spot (404, as the spec lists for spot paths). */
function spotId(id: string | null): string {
  if (id === null) throw notFound("No spot with that id.");
  return id;
}

/** A route's failure as the spec's JSON error, the route's rate-limit headers kept. */
function routeFailure(request: Request, path: string, error: unknown): Response {
  const headers = headersFor(request);
  if (error instanceof ApiError) return errorResponse(error, headers);
  // The route's template, never the path or the query: either may carry what a client should not have sent (a key).
  return failureResponse(error, routeLabel(path), headers);
}

/** A handler's answer, a promise's failure answered as routeFailure() does. */
function caught(request: Request, path: string, answer: MaybePromise<Response>): MaybePromise<Response> {
  return answer instanceof Promise ? answer.catch((error: unknown) => routeFailure(request, path, error)) : answer;
}

/** The climate, or 202 while its cell is fetched, or 503 after a failed fetch: both with when to ask again. */
function climateResponse(request: Request, state: ClimateState, units: Units): Response {
  if (state.status === "ready") return json(climateIn(state.climate, units), 200, headersFor(request));
  const headers = headersFor(request, { "Retry-After": String(state.retryAfterSeconds) });
  if (state.status === "pending") return json({ status: "pending" }, 202, headers);
  return errorResponse(climateUnavailable(state), headers);
}

/** A forecast body with its ETag (304 when the client has it) and the encoding the client accepts, compressed once. */
function forecastResponse(request: Request, served: ServedForecast): Response {
  const encoding = acceptedEncoding(request.headers.get("accept-encoding"));
  const etag = encodedEtag(served.etag, encoding);
  const headers = headersFor(request, { ETag: etag, "Cache-Control": `private, max-age=${served.maxAgeSeconds}`, Vary: "X-API-Key, Authorization, Accept-Encoding" });
  if (noneMatchHolds(request.headers.get("if-none-match"), etag)) return respond(null, 304, headers);
  if (encoding === null) return respond(served.blob, 200, headers, JSON_TYPE);
  headers.own["Content-Encoding"] = encoding;
  return respond(compressedOnce(served.spotId, served.etag, encoding, served.body), 200, headers, JSON_TYPE);
}

/** A keyed operation's answer to a request, given its path's `{id}` (null: none, or one that does not decode). */
type KeyedHandler = (request: Request, id: string | null, path: string) => MaybePromise<Response>;

/** Each /v1 row's handler: a thin adapter that parses parameters strictly, calls one service and serializes. */
function keyedHandlers(app: App): Record<ServeOf<"v1">, KeyedHandler> {
  /**
   * Answers once these spots' first forecasts are fetched, in the refresh scope `requested` (forecast/demand.ts);
   * at once, without a turn of the event loop, when there is nothing to wait for.
   */
  const afterFirstForecasts = (spotIds: Parameters<typeof app.demand.ready>[0], answer: () => MaybePromise<Response>): MaybePromise<Response> => {
    const waiting = app.demand.ready(spotIds);
    return waiting ? waiting.then(answer) : answer();
  };
  return {
    // A path below /v1 that no operation serves, answered on the key's headers.
    unknown: (request, _id, path) => noSuchEndpoint(request, path),
    searchSpots: (request) => json(app.spots.search(parseSearchParams(queryOf(request))), 200, headersFor(request)),
    spotsNearby: (request) => json(app.spots.nearby(parseNearbyParams(queryOf(request))), 200, headersFor(request)),
    bestSpots: (request) => {
      const params = parseBestSpotsParams(queryOf(request));
      return afterFirstForecasts(() => app.bestSpots.candidates(params), () => andThen(app.bestSpots.find(params), (found) => json(found, 200, headersFor(request))));
    },
    // The guide's best months only when the spot's climate is already in memory: a lookup, never a fetch.
    getSpot: (request, id) => json(app.climate.withBestMonths(app.spots.detail(spotId(id))), 200, headersFor(request)),
    getForecast: (request, id) => {
      const { days, units } = parseDaysParams(queryOf(request));
      return afterFirstForecasts([spotId(id)], () => andThen(app.forecasts.get(spotId(id), days, units), (served) => forecastResponse(request, served)));
    },
    getTides: (request, id) => {
      const { days, units } = parseDaysParams(queryOf(request));
      return andThen(app.tides.get(spotId(id), days), (tides) => json(tidesIn(tides, units), 200, headersFor(request)));
    },
    getSpotNow: (request, id) => {
      const { units } = parseUnitsParams(queryOf(request));
      return afterFirstForecasts([spotId(id)], () => andThen(app.now.get(spotId(id), units), (served) => nowResponse(request, served)));
    },
    getNow: (request) => {
      const { spots, units } = parseNowManyParams(queryOf(request));
      const ids = app.now.idsOf(spots);
      return afterFirstForecasts(ids, () => andThen(app.now.many(ids, units), (served) => nowResponse(request, served)));
    },
    getObservations: (request, id) => {
      const { units } = parseUnitsParams(queryOf(request));
      // The reading stands beside the forecast served for its hour: the spot's first forecast is fetched for it.
      return afterFirstForecasts([spotId(id)], () => app.servedObservations.body(app.spots.get(spotId(id)), units).then((body) => json(body, 200, headersFor(request))));
    },
    getVerification: (request, id) => {
      const { days } = parseVerificationParams(queryOf(request));
      return app.verification.verification(app.spots.get(spotId(id)), days).then((answer) => json(answer, 200, headersFor(request)));
    },
    getClimate: (request, id) => {
      const { units } = parseUnitsParams(queryOf(request));
      return app.climate.climate(app.spots.get(spotId(id))).then((state) => climateResponse(request, state, units));
    },
    getUsage: (request) => {
      const usage = (text: string) => json(text, 200, headersFor(request, { "Cache-Control": "private, no-store" }));
      // From memory once the key's report is kept (a day's first ask reads the stored counts).
      const text = app.meter.reportText(principalOf(request));
      return typeof text === "string" ? usage(text) : text.then(usage);
    },
  };
}

/** A path parameter as routers decode it; null when it does not decode (it names nothing). */
function decodedParameter(raw: string | null): string | null {
  if (raw === null || !raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/**
 * The keyed routes, served: the row the gate found in the mount table runs its handler, whose answer goes back as
 * it comes — a Response when it was had at once, which Bun writes without waiting for a promise.
 */
export function createKeyedRoutes(app: App): KeyedRoutes {
  const handlers = keyedHandlers(app);
  return (request, path, mount) => {
    try {
      return caught(request, path, handlers[mount.serve](request, decodedParameter(mountParam(mount, path, "id")), path));
    } catch (error) {
      return routeFailure(request, path, error);
    }
  };
}

/** What anyone may call: one handler per open row. */
export function createOpenRoutes(app: App): MountHandler<"open"> {
  const publicStatus = publicStatusOf(app);
  const handlers: Record<ServeOf<"open">, (request: Request) => Response | Promise<Response>> = {
    // Cheap for load balancers; `?verbose=1` adds what a status page needs (nothing about the machines, nor the
    // last refresh's error text: those are on the metrics port's /status and in `surfcast status`).
    health: async (request) => json(queryOf(request).has("verbose") ? await publicStatus() : { status: "ok" }, 200, headersFor(request)),
    home: (request) => homeResponse(request, app.config.console),
    openapi: openApiDocument(),
    docs: () => docsPage(),
    docsBundle: () => docsBundle(),
    docsInit: () => docsInit(),
  };
  return (request, path, mount) => {
    try {
      return caught(request, path, handlers[mount.serve](request));
    } catch (error) {
      return routeFailure(request, path, error);
    }
  };
}
