/**
 * The OpenAPI 3.1 document of /v1, served at GET /openapi.json (public, not counted: the gate only guards /v1
 * and /mcp). It is built from declarations, not from a router: each row of the endpoint table (core/endpoints.ts,
 * mounted by core/mounts.ts) gives the path and the operation id, and its entry here (`OPERATIONS`) the texts,
 * the responses and the parameter schemas (http/schemas.ts):
 *  - path and query parameters are read from the operation's `params`/`query` object schemas, as OpenAPI
 *    generators read them; Elysia's coercing `t.Integer` puts a string branch into a numeric schema, which
 *    clients see as plain `integer`/`number` here;
 *  - components (schemas, shared responses, headers, security schemes) and the overview are added.
 * The document is built on first request and served from memory.
 */
import { MCP_ENDPOINTS, V1_ENDPOINTS, type OperationId } from "../core/endpoints";
import { LIVE_KEY_PREFIX } from "../access/keys";
import { PLAN_DEFAULTS, type PlanLimits } from "../access/plans";
import { bestSpotsQuery, climateQuery, COMPONENT_SCHEMAS, daysQuery, idParams, nearbyQuery, nowManyQuery, nowQuery, observationsQuery, searchQuery, verificationQuery, type ComponentName } from "./schemas";
import { headersFor, json } from "./respond";
import { ERROR_EXAMPLES, OK_EXAMPLES } from "./examples";

export const OPENAPI_VERSION = "3.1.1";
/** The interface version of /v1 (the spec's "Versioning"), not the release of the program. */
export const API_VERSION = "1.0.0";

type Json = Record<string, unknown>;
/** An object schema of parameters, as http/schemas.ts declares them. */
type ParameterSchema = { readonly properties: Readonly<Record<string, unknown>>; readonly required?: readonly string[] };

const schemaRef = (name: ComponentName): Json => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string): Json => ({ $ref: `#/components/headers/${name}` });
const responseRef = (name: ErrorResponseName): Json => ({ $ref: `#/components/responses/${name}` });

// ---------------------------------------------------------------- headers

const RATE_LIMIT_HEADERS: Record<string, Json> = {
  "X-RateLimit-Limit": {
    description: "The key's daily request limit.",
    schema: { type: "integer", minimum: 0 },
  },
  "X-RateLimit-Remaining": {
    description: "Requests left today (UTC), this one already deducted.",
    schema: { type: "integer", minimum: 0 },
  },
  "X-RateLimit-Reset": {
    description: "When the daily quota resets: the next UTC midnight, ISO 8601 (for example `2026-03-02T00:00:00Z`).",
    schema: { type: "string", format: "date-time", pattern: "^\\d{4}-\\d{2}-\\d{2}T00:00:00Z$" },
  },
  "RateLimit-Policy": {
    description:
      'Both limits as IETF RateLimit-Policy items (draft-ietf-httpapi-ratelimit-headers): `"burst"` allows `q` requests per `w` = 60 seconds, `"daily"` allows `q` requests per UTC day (`w` = 86400). Example: `"burst";q=60;w=60, "daily";q=500;w=86400`.',
    schema: { type: "string", pattern: '^"burst";q=\\d+;w=60, "daily";q=\\d+;w=86400$' },
  },
  RateLimit: {
    description:
      'What is left of each policy, IETF RateLimit items: `r` requests remain, and the window frees up completely in `t` seconds. Example: `"burst";r=59;t=60, "daily";r=499;t=43200`.',
    schema: { type: "string", pattern: '^"burst";r=\\d+;t=\\d+, "daily";r=\\d+;t=\\d+$' },
  },
};

const HEADERS: Record<string, Json> = {
  ...RATE_LIMIT_HEADERS,
  "Retry-After": {
    description:
      "Delta-seconds (an integer of at least 1) until the limit that refused the request lets one through: the next UTC midnight for the daily quota, the oldest request leaving the 60-second window for the burst limit.",
    schema: { type: "integer", minimum: 1 },
  },
  ETag: {
    description: "Strong validator of this body; send it back in `If-None-Match` to get 304 while it is unchanged.",
    schema: { type: "string", pattern: '^(W/)?"[^"]*"$' },
  },
  "Cache-Control": {
    description: "`private, max-age=N`: the body is good until the served window moves: the next UTC hour for a forecast, the next minute for now.",
    schema: { type: "string", pattern: "^private, max-age=\\d+$" },
  },
};

const required = (headers: Record<string, Json>, isRequired: boolean) =>
  Object.fromEntries(Object.entries(headers).map(([name, header]) => [name, { ...header, required: isRequired }]));

/** The rate-limit headers, as references: every /v1 response produced under a key carries them. */
const rateLimitHeaderRefs = () => Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, headerRef(name)]));

const errorContent = (name: keyof typeof ERROR_EXAMPLES) => ({ "application/json": { schema: schemaRef("Error"), example: ERROR_EXAMPLES[name] } });

// ---------------------------------------------------------------- shared responses

const RESPONSES = {
  BadRequest: {
    description:
      "`invalid_request`: a required parameter is missing or given twice, `q` is shorter than 2 characters, or a value is not of its type (decimal number, integer) or outside its bound.",
    headers: rateLimitHeaderRefs(),
    content: errorContent("BadRequest"),
  },
  Unauthorized: {
    description: "`invalid_key`: the API key is missing, unknown or revoked. `account_disabled`: the key's account is disabled. No rate-limit headers: no key was admitted.",
    content: errorContent("Unauthorized"),
  },
  SpotNotFound: {
    description: "`not_found`: no spot has this id.",
    headers: rateLimitHeaderRefs(),
    content: errorContent("SpotNotFound"),
  },
  ForecastNotFound: {
    description: "`not_found`: no spot has this id. `no_forecast`: the spot exists but has no forecast document yet.",
    headers: rateLimitHeaderRefs(),
    content: errorContent("ForecastNotFound"),
  },
  RateLimited: {
    description: "`rate_limited`: the daily quota or the per-minute burst limit is exhausted. Retry after `Retry-After` seconds. A refused request is not counted.",
    headers: { ...rateLimitHeaderRefs(), "Retry-After": headerRef("Retry-After") },
    content: errorContent("RateLimited"),
  },
  InternalError: {
    description: "`internal`: a server-side failure (logged). The rate-limit headers are present when the failure happened after the key was admitted.",
    headers: required(RATE_LIMIT_HEADERS, false),
    content: errorContent("InternalError"),
  },
  Unavailable: {
    description:
      "`internal` with 503: on several servers, the shared database or the Redis that counts requests does not answer. The request was neither served nor counted; retry after `Retry-After` seconds. A single server never answers it.",
    headers: { ...required(RATE_LIMIT_HEADERS, false), "Retry-After": headerRef("Retry-After") },
    content: errorContent("Unavailable"),
  },
  ClimateUnavailable: {
    description:
      "`climate_unavailable`: the last fetch of the spot's climate from Open-Meteo failed (the message says why); nothing of it was kept, and it is tried again after `Retry-After` seconds. `internal`: as for every operation, a shared part of several servers does not answer.",
    headers: { ...required(RATE_LIMIT_HEADERS, false), "Retry-After": headerRef("Retry-After") },
    content: errorContent("ClimateUnavailable"),
  },

} satisfies Record<string, Json>;

type ErrorResponseName = keyof typeof RESPONSES;

const ERROR_RESPONSE_STATUS: Record<ErrorResponseName, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  SpotNotFound: 404,
  ForecastNotFound: 404,
  RateLimited: 429,
  InternalError: 500,
  Unavailable: 503,
  ClimateUnavailable: 503,
};

// ---------------------------------------------------------------- operations

export type { OperationId };

interface OperationDoc {
  tag: "Spots" | "Forecast" | "Tides" | "Usage" | "Now" | "Observations" | "Climate";
  summary: string;
  description: string;
  ok: { description: string; schema: Json; cached?: true };
  /** A 202 while the answer is being made, with when to ask again. */
  accepted?: { description: string; schema: Json };
  /** Beyond 401, 429 and 500, which every /v1 operation can answer. */
  errors: ErrorResponseName[];
  /** The path's parameters and the query's, as object schemas. */
  params?: ParameterSchema;
  query?: ParameterSchema;
  headerParameters?: Json[];
}

const ifNoneMatch = (what: string): Json => ({
  name: "If-None-Match",
  in: "header",
  required: false,
  description: `The \`ETag\` of ${what} you hold; answered with 304 and no body when it still matches.`,
  schema: { type: "string" },
});

const NOW_DESCRIPTION =
  "From stored data only (no upstream call), at most 1.5 KB per spot. The answer describes the current UTC minute (`time`): its content, and so its `ETag`, changes at most once a minute — when the tide height or the minutes until the next turn move, the UTC hour turns, or a refresh stores a new forecast — so a poller gets 304 with `If-None-Match` until then; a 304 counts like a 200.";

const OPERATIONS: Record<OperationId, OperationDoc> = {
  searchSpots: {
    tag: "Spots",
    summary: "Search spots by name, alias or country",
    description:
      "Case- and diacritic-insensitive search over spot names, aliases, countries and regions, and the towns within 10 km of each spot (GeoNames, CC BY 4.0). There is no unfiltered listing.",
    ok: { description: "Matching spots, best match first (a bare array, possibly empty).", schema: { type: "array", items: schemaRef("Spot") } },
    errors: ["BadRequest"],
    query: searchQuery,
  },
  spotsNearby: {
    tag: "Spots",
    summary: "Spots within a radius of a coordinate",
    description: "Spots within `radius` km of the coordinate, closest first.",
    ok: { description: "Spots with their distance, closest first (a bare array, possibly empty).", schema: { type: "array", items: schemaRef("SpotWithDistance") } },
    errors: ["BadRequest"],
    query: nearbyQuery,
  },
  bestSpots: {
    tag: "Forecast",
    summary: "Where to surf: spots near a coordinate ranked by their best window",
    description:
      "Beyond the spec. Spots within `radius` km that have a forecast, ranked by the best window of consecutive daylight hours for `level` over the next `hours` hours from the current UTC hour: best rating first, then the closer spot. Each comes with its window, the surf range over it and the wind type. Spots without a forecast are left out. Counted in usage as `spots.best`.",
    ok: { description: "Ranked spots (a bare array, possibly empty).", schema: { type: "array", items: schemaRef("BestSpot") } },
    errors: ["BadRequest"],
    query: bestSpotsQuery,
  },
  getSpot: {
    tag: "Spots",
    summary: "One spot by slug or 16-hex id",
    description: "One spot, with its guide (beyond the spec: offshore wind directions, swell window, tide station). Query parameters are ignored.",
    ok: { description: "The spot.", schema: schemaRef("SpotDetail") },
    errors: ["SpotNotFound"],
    params: idParams,
  },
  getForecast: {
    tag: "Forecast",
    summary: "Hourly forecast with ratings",
    description:
      "Hourly conditions with a 1..5 rating per surfer level, from the current UTC hour forward, for up to 7 days. Forecasts are refreshed twice a day. Conditional requests with `If-None-Match` get 304 while the body is unchanged; a 304 counts like a 200.",
    ok: { description: "The forecast. `tide` is null in every hour of a tideless spot.", schema: schemaRef("ForecastResponse"), cached: true },
    errors: ["BadRequest", "ForecastNotFound"],
    headerParameters: [ifNoneMatch("a forecast body")],
    params: idParams,
    query: daysQuery,
  },
  getTides: {
    tag: "Tides",
    summary: "Tide extremes from now forward",
    description:
      "Stored high and low waters from now forward. A tideless spot answers 200 with `extremes: []` and `tideless: true`. Beyond the spec, `source` names where the tides come from (a tide station, or Open-Meteo Marine's sea-level model where no station serves the spot; heights then above MSL), `tidelessReason` says why a spot is tideless, and `unavailable` why a tidal spot has no extremes to show yet (`awaiting_model`) or any more (`model_expired`).",
    ok: { description: "The tide extremes.", schema: schemaRef("TidesResponse") },
    errors: ["BadRequest", "SpotNotFound"],
    params: idParams,
    query: daysQuery,
  },
  getSpotNow: {
    tag: "Now",
    summary: "The current state at a spot",
    description: `The current forecast hour, the tide at this minute (height, rising or falling, next high, low and turn) and the sun, for dashboards, home automation and bots. ${NOW_DESCRIPTION} Counted as \`now\` in usage.`,
    ok: { description: "Now at the spot.", schema: schemaRef("NowResponse"), cached: true },
    errors: ["BadRequest", "SpotNotFound"],
    headerParameters: [ifNoneMatch("an answer")],
    params: idParams,
    query: nowQuery,
  },
  getNow: {
    tag: "Now",
    summary: "The current state at several spots",
    description: `The answer of \`GET /v1/spots/{id}/now\` for each spot asked, in the order asked. ${NOW_DESCRIPTION} Counts once per spot (as \`now\`) toward the daily quota and the burst limit; a request for more spots than either has left is refused whole with 429. An unknown id answers 404 naming every unknown id.`,
    ok: { description: "Now at each spot.", schema: schemaRef("NowManyResponse"), cached: true },
    errors: ["BadRequest", "SpotNotFound"],
    headerParameters: [ifNoneMatch("an answer")],
    query: nowManyQuery,
  },
  getObservations: {
    tag: "Observations",
    summary: "The nearest wave buoy's readings beside the forecast",
    description:
      "Beyond the spec. The nearest NOAA NDBC station within reach whose files carry a wave height: its newest reading (at most 3 hours old) beside what this API serves for that hour, and its last 24 hours. `latest` is null with a `reason` when there is no buoy in reach, its readings are stale, NDBC cannot be read, or observations are off. A buoy's files are read at most once per 30 minutes. Counted as `observations` in usage.",
    ok: { description: "The spot's buoy and its readings.", schema: schemaRef("ObservationsResponse") },
    errors: ["BadRequest", "SpotNotFound"],
    params: idParams,
    query: observationsQuery,
  },
  getVerification: {
    tag: "Observations",
    summary: "How right each wave model has been at the spot's buoy",
    description:
      "Beyond the spec. Over the last `days` days, each configured wave model's hourly wave heights, and the median this API serves, against the buoy's readings: bias, RMSE and scatter index; by lead day as issued forecasts meet their readings. `reason` says why there are no figures. Counted as `verification` in usage.",
    ok: { description: "The error figures at the spot's buoy.", schema: schemaRef("VerificationResponse") },
    errors: ["BadRequest", "SpotNotFound"],
    params: idParams,
    query: verificationQuery,
  },
  getClimate: {
    tag: "Climate",
    summary: "The spot's months: sea, wind and good days per level, from ERA5",
    description:
      "Beyond the spec. Twelve months over the last full years (`source.years`) of ERA5 reanalysis at the spot's ERA5-Ocean cell (0.5°, shared by every spot near it): wave height percentiles, the median period, the direction rose, the median wind, the share of offshore hours at the spot, and per surfer level the share of days with at least two daylight hours rated 3 or more by the forecast's rating; `bestMonths` per level. A cell is fetched from Open-Meteo once, the first time one of its spots is asked for: until it is whole the answer is 202 `{\"status\": \"pending\"}` with `Retry-After`, and 503 `climate_unavailable` after a failed fetch. Counted as `climate` in usage.",
    ok: { description: "The spot's climate.", schema: schemaRef("ClimateResponse") },
    accepted: { description: "The spot's climate is being computed: ask again after `Retry-After` seconds.", schema: schemaRef("ClimatePending") },
    errors: ["BadRequest", "SpotNotFound", "ClimateUnavailable"],
    params: idParams,
    query: climateQuery,
  },
  getUsage: {
    tag: "Usage",
    summary: "Usage of the presented key",
    description:
      "Daily totals of the presented key for the last 30 UTC days, today last, zero-filled. This call does not count toward the daily quota (it does use the per-minute burst window). No parameters.",
    ok: { description: "The key's usage.", schema: schemaRef("UsageResponse") },
    errors: [],
  },
};

/** The operation's parameters: the path's, the query's (from their object schemas), then the headers it reads. */
function parametersOf(op: OperationDoc): Json[] {
  const from = (schema: ParameterSchema | undefined, location: "path" | "query") =>
    Object.entries(schema?.properties ?? {}).map(([name, property]) => ({
      name,
      in: location,
      // Path parameters are always required.
      required: location === "path" || (schema!.required ?? []).includes(name),
      // JSON round trip: TypeBox's symbol-keyed bookkeeping stays behind.
      schema: plainNumber(JSON.parse(JSON.stringify(property)) as Json),
    }));
  return [...from(op.params, "path"), ...from(op.query, "query"), ...(op.headerParameters ?? [])];
}

/** The GET operation: its id, texts, responses and parameters. */
function operationOf(id: OperationId): Json {
  const op = OPERATIONS[id];
  const cacheHeaders = op.ok.cached ? { ETag: headerRef("ETag"), "Cache-Control": headerRef("Cache-Control") } : {};
  const responses: Record<number, Json> = {
    200: { description: op.ok.description, headers: { ...rateLimitHeaderRefs(), ...cacheHeaders }, content: { "application/json": { schema: op.ok.schema, example: OK_EXAMPLES[id] } } },
  };
  if (op.accepted) {
    responses[202] = { description: op.accepted.description, headers: { ...rateLimitHeaderRefs(), "Retry-After": headerRef("Retry-After") }, content: { "application/json": { schema: op.accepted.schema, example: { status: "pending" } } } };
  }
  if (op.ok.cached) {
    responses[304] = { description: "Not modified: the `If-None-Match` value is the current `ETag`. No body.", headers: { ...rateLimitHeaderRefs(), ...cacheHeaders } };
  }
  // An operation's own answer of a status (a 503 of its own) stands for the shared one, whose case it also tells.
  for (const name of ["Unauthorized", "RateLimited", "InternalError", "Unavailable", ...op.errors] as const) responses[ERROR_RESPONSE_STATUS[name]] = responseRef(name);
  const parameters = parametersOf(op);
  return { operationId: id, tags: [op.tag], summary: op.summary, description: op.description, responses, ...(parameters.length > 0 ? { parameters } : {}) };
}

// ---------------------------------------------------------------- the document

const formatCount = (n: number) => n.toLocaleString("en-US");

function planTable(): string {
  const row = (name: string, p: PlanLimits) =>
    `| ${name} | ${formatCount(p.dailyLimit)} | ${formatCount(p.minuteLimit)} | ${p.maxKeys} | ${p.attributionRequired ? "yes" : "no"} |`;
  return [
    "| Plan | Calls per day | Calls per minute | API keys | Attribution link required |",
    "|---|---|---|---|---|",
    row("Starter", PLAN_DEFAULTS.starter),
    row("Growth", PLAN_DEFAULTS.growth),
    row("Pro", PLAN_DEFAULTS.pro),
    `| Scale | ${formatCount(PLAN_DEFAULTS.scale.dailyLimit)} or more, custom | custom | custom | custom terms |`,
  ].join("\n");
}

const early = PLAN_DEFAULTS["early-access"];


const OVERVIEW = `Surf spots worldwide, hourly surf forecasts with a 1..5 rating for three surfer levels, and tide extremes: a read-only JSON API. Every operation is a GET. Units are metric (meters, km/h, Celsius, seconds, degrees); all times are UTC, ISO 8601. Weather inputs come from Open-Meteo under CC BY 4.0, and every forecast carries a fixed \`attribution\` string saying so.

## Authentication

Every /v1 request carries an API key, in either of two equivalent headers: \`X-API-Key: <key>\` or \`Authorization: Bearer <key>\`. Live keys start with \`${LIVE_KEY_PREFIX}\`. Keys are created by the account owner in the developer console (access is by invitation); the API has no endpoint for accounts or keys. A missing, unknown or revoked key answers 401 \`invalid_key\`; a key whose account is disabled answers 401 \`account_disabled\`. The key is checked before anything else, so a bad key wins over a bad parameter.

This document (\`/openapi.json\`) needs no key and is never counted.

## Limits

- **Daily quota** per key, counted per UTC day; it resets at the next UTC midnight.
- **Burst limit** per key: at most N requests in any 60 seconds.
- What counts toward the daily quota: every request to the spot, forecast, tide and now operations that was let through, whatever its status (200, 304, 400, 404, 500); \`GET /v1/now\` counts once per spot it asks for. Not counted: \`GET /v1/usage\`, requests refused with 429, and requests refused with 401. Every request let through (usage included) uses the burst window.
- Exceeding either limit answers 429 \`rate_limited\` with \`Retry-After\` in delta-seconds.
- A request whose request line and headers exceed 16 KiB (or about 200 headers) is refused by the HTTP server before Surfcast reads it: 431 Request Header Fields Too Large, no body, no rate-limit headers, the connection closed, not counted. It is not listed under each operation: a bodiless error there would make every typed client's success data possibly undefined.
- Every /v1 response produced under a key (200, 304, 400, 404, 429, 500) carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (next UTC midnight), plus the IETF draft headers \`RateLimit-Policy\` and \`RateLimit\` describing both limits. 401 responses carry none.
- Parameter bounds: \`q\` at least 2 characters; \`limit\` 1..50 (default 10); \`radius\` 0..100 km (default 50); \`days\` 1..7 (default 7); \`lat\` -90..90; \`lng\` -180..180. Beyond the spec, \`GET /v1/spots/best\` also takes \`level\` (beginner, intermediate or advanced; default intermediate) and \`hours\` 1..72 (default 24).

### Plans

${planTable()}

Early-access keys have ${formatCount(early.dailyLimit)} requests per day and a burst of ${formatCount(early.minuteLimit)} per minute. \`GET /v1/usage\` reports the plan, the limit and the last 30 UTC days of the presented key.

## MCP server

The same data is available to AI agents as Model Context Protocol tools at \`/mcp\` (Streamable HTTP transport, JSON-RPC over POST), with the same API key in the same headers. Its tools are not operations of this document:

| Tool | Arguments (? = optional) |
|---|---|
${MCP_ENDPOINTS.map(({ tool, args }) => `| \`${tool}\` | ${args || "none"} |`).join("\n")}

\`best_spots\`, \`surf_summary\` and \`list_alerts\` go beyond the spec: \`best_spots\` answers what \`GET /v1/spots/best\` answers; \`surf_summary\` condenses a spot's forecast and tides to one line per day; \`list_alerts\` lists the calling key's condition alerts (made by the owner in the console) with their next windows. \`spot_climate\` answers what \`GET /v1/spots/{id}/climate\` answers, in metric units.

Each tool call counts toward the daily quota like a /v1 request, reported in usage as \`mcp.<tool>\`.`;

/**
 * What the document can say of terms: a self-hosted server's operator sets them; the forecast and sea-level inputs
 * are Open-Meteo's under CC BY 4.0, which every forecast's `attribution` repeats.
 */
const LICENSE = {
  name: "Terms set by this server's operator; weather and marine inputs from Open-Meteo under CC BY 4.0",
  url: "https://creativecommons.org/licenses/by/4.0/",
};

const TAGS = [
  { name: "Spots", description: "The spot catalog: search by name, nearby by position, one spot by id." },
  { name: "Forecast", description: "Hourly surf forecasts with ratings, refreshed twice a day." },
  { name: "Tides", description: "Stored tide extremes." },
  { name: "Now", description: "The current state at a spot in one small answer (beyond the spec): conditions, tide, sun." },
  { name: "Observations", description: "The nearest wave buoy's readings and each model's measured error there (beyond the spec; NOAA NDBC)." },
  { name: "Climate", description: "A spot's months from forty years of reanalysis (beyond the spec; Copernicus/ECMWF ERA5 through Open-Meteo)." },
  { name: "Usage", description: "Usage of the presented key." },
];

/** Replaces the coercion union Elysia puts into numeric query parameters by its numeric branch. */
function plainNumber(schema: Json): Json {
  const branches = schema.anyOf as Json[] | undefined;
  if (!branches) return schema;
  const numeric = branches.filter((b) => b.type !== "string");
  if (numeric.length !== 1 || numeric.length === branches.length) return schema;
  const { anyOf: _coercion, ...outer } = schema;
  return { ...outer, ...numeric[0] };
}

/** A response as HEAD answers it: its status, description and headers, no body. */
function withoutBody(response: Json): Json {
  const ref = response.$ref as string | undefined;
  const { content: _body, ...head } = ref ? RESPONSES[ref.slice(ref.lastIndexOf("/") + 1) as ErrorResponseName] : response;
  return head;
}

/** HEAD of a GET operation: answered and counted as the GET is, with its status and headers and no body. */
function headOf(get: Json): Json {
  const responses = Object.fromEntries(Object.entries(get.responses as Record<string, Json>).map(([status, response]) => [status, withoutBody(response)]));
  return {
    ...get,
    operationId: `${get.operationId as string}Head`,
    summary: `${get.summary as string} (headers only)`,
    description: `\`${get.operationId as string}\` without the body: the same status and headers (\`ETag\` and 304 included), counted as the GET is.`,
    responses,
  };
}

/** The complete document: the /v1 operations in the order they are documented here. */
export function buildOpenApiDocument(): Json {
  const paths = Object.fromEntries(
    (Object.keys(OPERATIONS) as OperationId[]).map((id) => {
      const get = operationOf(id);
      return [V1_ENDPOINTS.find((e) => e.operationId === id)!.path, { get, head: headOf(get) }];
    }),
  );
  return {
    openapi: OPENAPI_VERSION,
    info: { title: "Surfcast API", version: API_VERSION, description: OVERVIEW, license: LICENSE },
    servers: [{ url: "/", description: "The server that serves this document." }],
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }],
    tags: TAGS,
    paths,
    components: {
      // JSON round trip: TypeBox's symbol-keyed bookkeeping stays behind.
      schemas: JSON.parse(JSON.stringify(COMPONENT_SCHEMAS)),
      responses: RESPONSES,
      headers: required(HEADERS, true),
      securitySchemes: {
        ApiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key", description: "The API key as the value of `X-API-Key`." },
        BearerAuth: { type: "http", scheme: "bearer", description: "The API key as a bearer token: `Authorization: Bearer <key>`." },
      },
    },
  };
}

/**
 * What /openapi.json carries besides its type and caching: a JSON document runs nothing, loads nothing and is
 * framed nowhere, and nosniff keeps a browser from taking it for anything but JSON. It stays readable from other
 * origins (the gate's CORS headers), for viewers and client generators elsewhere.
 */
export const DOCUMENT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Content-Security-Policy": "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
});

/** GET /openapi.json; the document is built once, on first request. */
export function openApiDocument(): (request: Request) => Response {
  let body: string | undefined;
  return (request) => {
    body ??= JSON.stringify(buildOpenApiDocument());
    return json(body, 200, headersFor(request, { ...DOCUMENT_HEADERS, "Cache-Control": "public, max-age=300" }));
  };
}
