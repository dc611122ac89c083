/**
 * The Open-Meteo client: the two requests the refresh makes (Marine API and Forecast API), multi-location,
 * GET for short lists and form-encoded POST for long ones, parsing of both `timeformat`s, call-weight
 * accounting, and retries with backoff. Pure I/O adapter: it knows nothing about spots or documents.
 * See docs/forecast.md for the exact requests.
 */

import { SWELL_COMPONENT_VARIABLES } from "./swells";

export const MARINE_HOURLY = [
  "wave_height",
  "wave_direction",
  "wave_period",
  "swell_wave_height",
  "swell_wave_direction",
  "swell_wave_period",
  "sea_surface_temperature",
  // The other wave components (forecast/swells.ts): the secondary and tertiary swell and the wind sea.
  ...SWELL_COMPONENT_VARIABLES,
  // The tide where no station serves a spot (tides/source.ts).
  "sea_level_height_msl",
] as const;
/**
 * Requested, but a response without them is still whole: a component series the server left out is a component
 * without data; a server without the sea-level model (an older self-hosted Open-Meteo) leaves it out, and its spots
 * then wait for model tides instead of being read as "no sea level here" (tideless).
 */
const OPTIONAL_SERIES: ReadonlySet<string> = new Set([...SWELL_COMPONENT_VARIABLES, "sea_level_height_msl"]);
export const FORECAST_HOURLY = ["temperature_2m", "weather_code", "wind_speed_10m", "wind_direction_10m", "wind_gusts_10m"] as const;
export const FORECAST_DAILY = ["sunrise", "sunset", "uv_index_max"] as const;
export const FORECAST_DAYS = 7;

/** Open-Meteo's documented location limit per request on the free API. */
export const MAX_LOCATIONS = 1000;
/** Above this URL length the parameters go in a form-encoded POST body (the server accepts both). */
const MAX_GET_URL = 4000;

export type Endpoint = "marine" | "forecast";

export interface Point {
  lat: number;
  lng: number;
}

/**
 * One location of a response, times as epoch ms (UTC). `values` is keyed as the response names its columns: plain
 * variable names for one model, `<variable>_<model>` for several (`modelSeries` gives each model's view).
 */
export interface LocationSeries {
  lat: number;
  lng: number;
  hourly: { time: number[]; values: Record<string, (number | null)[]> };
  /** Forecast API only: `date` is `YYYY-MM-DD`, sunrise/sunset epoch ms or null. */
  daily?: { date: string[]; sunrise: (number | null)[]; sunset: (number | null)[]; uvIndexMax: (number | null)[] };
}

export interface OpenMeteoOptions {
  marineUrl: string;
  forecastUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
  retries: number;
  /** Injectable so tests do not wait for real backoff. */
  sleep?: (ms: number) => Promise<void>;
  /** Base of the exponential backoff (doubles per attempt). */
  backoffMs?: number;
  /** Most time spent waiting between retries while no request succeeds (default RETRY_WAIT_BUDGET_MS). */
  waitBudgetMs?: number;
  timeformat?: "iso8601" | "unixtime";
  /** In place of the global fetch (demo mode's synthetic upstream, forecast/demo.ts). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Marine models asked for in one request (forecast/models.ts `requestedModels`); default `best_match` alone. */
  marineModels?: readonly string[];
}

/** Open-Meteo call weight per location: max(1, nVars/10 × max(1, days/14)); see docs/forecast.md for ours. */
export function callWeight(variableCount: number, days: number): number {
  return Math.max(1, (variableCount / 10) * Math.max(1, days / 14));
}

export const WEIGHT_PER_LOCATION: Record<Endpoint, number> = {
  marine: callWeight(MARINE_HOURLY.length, FORECAST_DAYS),
  forecast: callWeight(FORECAST_HOURLY.length + FORECAST_DAILY.length, FORECAST_DAYS),
};

/** What a request asks for unless told otherwise: Open-Meteo's own marine default. */
const SINGLE_MODEL: readonly string[] = ["best_match"];

/** Weight per location of one request: Open-Meteo counts every variable once per model asked for. */
export function weightPerLocation(endpoint: Endpoint, marineModels: readonly string[] = SINGLE_MODEL): number {
  return endpoint === "marine" ? callWeight(MARINE_HOURLY.length * marineModels.length, FORECAST_DAYS) : WEIGHT_PER_LOCATION.forecast;
}

/** The response's name of a marine variable's column: plain for one model, suffixed with the model for several. */
export const columnOf = (variable: string, model: string, models: readonly string[]) => (models.length > 1 ? `${variable}_${model}` : variable);

/** One model's series of a marine location, under the plain variable names. */
export interface ModelSeries {
  model: string;
  values: Record<string, (number | null)[] | undefined>;
}

/** Each requested model's view of a marine location, in request order. */
export function modelSeries(location: LocationSeries, models: readonly string[] = SINGLE_MODEL): ModelSeries[] {
  if (models.length === 1) return [{ model: models[0]!, values: location.hourly.values }];
  return models.map((model) => ({
    model,
    values: Object.fromEntries(MARINE_HOURLY.map((v) => [v, location.hourly.values[columnOf(v, model, models)]])),
  }));
}

/** Coordinates with 4 decimals (~10 m) keep URLs short; the grid cells are far coarser. */
const coord = (n: number) => String(Math.round(n * 10_000) / 10_000);

export function requestParams(endpoint: Endpoint, points: readonly Point[], timeformat: "iso8601" | "unixtime", apiKey?: string, marineModels: readonly string[] = SINGLE_MODEL): URLSearchParams {
  const p = new URLSearchParams();
  p.set("latitude", points.map((x) => coord(x.lat)).join(","));
  p.set("longitude", points.map((x) => coord(x.lng)).join(","));
  if (endpoint === "marine") {
    p.set("hourly", MARINE_HOURLY.join(","));
  } else {
    p.set("hourly", FORECAST_HOURLY.join(","));
    p.set("daily", FORECAST_DAILY.join(","));
  }
  p.set("timezone", "GMT");
  p.set("timeformat", timeformat);
  p.set("forecast_days", String(FORECAST_DAYS));
  if (endpoint === "marine") {
    p.set("cell_selection", "sea");
    p.set("models", marineModels.join(","));
  } else {
    p.set("wind_speed_unit", "kmh");
  }
  if (apiKey) p.set("apikey", apiKey);
  return p;
}

/** Why a request failed, and whether trying again can help. */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** Wait at least this long before the next attempt (minutely rate limit, Retry-After). */
    readonly waitMs = 0,
    /** The upstream quota is gone for hours: retrying or continuing the refresh is pointless. */
    readonly quotaExhausted = false,
    /** No connection at all (DNS, refused, unreachable). */
    readonly unreachable = false,
    /** What the failed fetch cost, retries included (set by OpenMeteoClient.fetch). */
    public cost = { requests: 0, weight: 0 },
  ) {
    super(message);
    this.name = "UpstreamError";
  }
}

// ── parsing ──────────────────────────────────────────────────────────────────────────────────────

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `2026-11-21T13:00` (GMT) or epoch seconds → epoch ms. */
function timeOf(value: unknown, unixtime: boolean): number {
  if (unixtime && typeof value === "number") return value * 1000;
  if (!unixtime && typeof value === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return Date.parse(value + ":00Z");
  throw new UpstreamError(`unexpected time value ${JSON.stringify(value)}`, true);
}

function dateOf(value: unknown, unixtime: boolean): string {
  if (unixtime && typeof value === "number") return new Date(value * 1000).toISOString().slice(0, 10);
  if (!unixtime && typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  throw new UpstreamError(`unexpected date value ${JSON.stringify(value)}`, true);
}

const isReading = (v: unknown) => (typeof v === "number" ? Number.isFinite(v) : v === null);

/**
 * A series as parsed, kept as it is when every value is a finite number or null (what an answer holds): copying it
 * would double a batch's parsed answers while they are read. Anything else reads as null, in a copy.
 */
function numbers(section: Json, name: string, length: number): (number | null)[] {
  const series = section[name];
  if (!Array.isArray(series) || series.length !== length) throw new UpstreamError(`series '${name}' is missing or has the wrong length`, true);
  return series.every(isReading) ? (series as (number | null)[]) : series.map((v) => (isReading(v) ? (v as number) : null));
}

function parseLocation(raw: unknown, endpoint: Endpoint, models: readonly string[]): LocationSeries {
  if (!isObject(raw) || !isObject(raw.hourly)) throw new UpstreamError("a location has no hourly section", true);
  const hourly = raw.hourly;
  const units = isObject(raw.hourly_units) ? raw.hourly_units : {};
  const unixtime = units.time === "unixtime";
  if (!Array.isArray(hourly.time)) throw new UpstreamError("hourly.time is missing", true);
  const time = hourly.time.map((t) => timeOf(t, unixtime));
  const values: Record<string, (number | null)[]> = {};
  const read = (variable: string, column: string) => {
    if (OPTIONAL_SERIES.has(variable) && !(column in hourly)) return;
    values[column] = numbers(hourly, column, time.length);
  };
  if (endpoint === "marine") for (const model of models) for (const v of MARINE_HOURLY) read(v, columnOf(v, model, models));
  else for (const v of FORECAST_HOURLY) read(v, v);
  const out: LocationSeries = { lat: Number(raw.latitude), lng: Number(raw.longitude), hourly: { time, values } };
  if (endpoint === "forecast") {
    const daily = raw.daily;
    if (!isObject(daily) || !Array.isArray(daily.time)) throw new UpstreamError("daily section is missing", true);
    const dailyUnix = isObject(raw.daily_units) && raw.daily_units.time === "unixtime";
    const n = daily.time.length;
    const instants = (name: string) => {
      const s = daily[name];
      if (!Array.isArray(s) || s.length !== n) throw new UpstreamError(`daily '${name}' is missing or has the wrong length`, true);
      return s.map((v) => (v === null ? null : timeOf(v, dailyUnix)));
    };
    out.daily = { date: daily.time.map((d) => dateOf(d, dailyUnix)), sunrise: instants("sunrise"), sunset: instants("sunset"), uvIndexMax: numbers(daily, "uv_index_max", n) };
  }
  return out;
}

/**
 * Parses a response body for `count` requested locations, in request order (by `location_id`, which the
 * server omits for location 0). Truncated or malformed bodies and responses where every location's series
 * are all null (a model outage upstream) throw a retryable UpstreamError.
 */
export function parseResponse(text: string, endpoint: Endpoint, count: number, marineModels: readonly string[] = SINGLE_MODEL): LocationSeries[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UpstreamError(`invalid or truncated JSON (${text.length} bytes)`, true);
  }
  const list = Array.isArray(json) ? json : [json];
  if (list.length !== count) throw new UpstreamError(`expected ${count} locations, got ${list.length}`, true);
  const ordered: LocationSeries[] = new Array(count);
  const idOf = (raw: unknown) => (isObject(raw) && typeof raw.location_id === "number" ? raw.location_id : null);
  // The server writes `location_id` only when it is not 0; a server that never writes it answers in order.
  const withIds = list.some((raw) => idOf(raw) !== null);
  list.forEach((raw, i) => {
    const id = idOf(raw) ?? (withIds ? 0 : i);
    if (!Number.isInteger(id) || id < 0 || id >= count || ordered[id]) throw new UpstreamError(`unexpected location_id ${id}`, true);
    ordered[id] = parseLocation(raw, endpoint, marineModels);
  });
  if (ordered.every(allNull)) throw new UpstreamError("every series in the response is null", true);
  return ordered;
}

/** True when a location carries no value at all (no sea cell nearby, or an upstream outage). */
export function allNull(location: LocationSeries): boolean {
  return Object.values(location.hourly.values).every((s) => s.every((v) => v === null));
}

// ── fetching ─────────────────────────────────────────────────────────────────────────────────────

export interface FetchResult {
  locations: LocationSeries[];
  /** HTTP requests sent, retries included. */
  requests: number;
  /** Open-Meteo call weight of those requests. */
  weight: number;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function errorFromStatus(status: number, body: string, retryAfter: string | null): UpstreamError {
  let reason = body.slice(0, 200);
  try {
    const parsed = JSON.parse(body) as { reason?: unknown };
    if (typeof parsed.reason === "string") reason = parsed.reason;
  } catch {
    /* not JSON: keep the raw text */
  }
  const message = `HTTP ${status}: ${reason}`;
  const afterSeconds = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : 0;
  if (status === 429) {
    // Open-Meteo sends no Retry-After; its reason names the window that is exhausted.
    if (/hourly|daily/i.test(reason)) return new UpstreamError(message, false, 0, true);
    return new UpstreamError(message, true, afterSeconds || (/minutely/i.test(reason) ? 60_000 : 0));
  }
  if (status >= 500 || status === 408) return new UpstreamError(message, true, afterSeconds);
  return new UpstreamError(message, false);
}

function describeNetworkError(err: unknown, timeoutMs: number): UpstreamError {
  const e = err as { name?: string; code?: string; message?: string };
  if (e.name === "TimeoutError" || e.name === "AbortError") return new UpstreamError(`no answer within ${timeoutMs} ms`, true);
  const text = `${e.code ?? ""} ${e.message ?? String(err)}`.trim();
  return new UpstreamError(`cannot connect: ${text}`, true, 0, false, true);
}

/**
 * While the upstream keeps failing, one client (one refresh) waits at most this long in total between retries;
 * each wait is cut to what is left, and with nothing left a failing request is given up at once. Any success
 * refills it. This is what bounds a refresh against an upstream that is down (a minutely 429 asks for 60 s).
 */
export const RETRY_WAIT_BUDGET_MS = 40_000;

export class OpenMeteoClient {
  private readonly sleep: (ms: number) => Promise<void>;
  /** Retry waits since the last successful request. */
  private waitedMs = 0;

  constructor(private readonly options: OpenMeteoOptions) {
    this.sleep = options.sleep ?? defaultSleep;
  }

  urlOf(endpoint: Endpoint): string {
    return endpoint === "marine" ? `${this.options.marineUrl}/v1/marine` : `${this.options.forecastUrl}/v1/forecast`;
  }

  /** One multi-location request, retried with exponential backoff; throws the last UpstreamError. */
  async fetch(endpoint: Endpoint, points: readonly Point[]): Promise<FetchResult> {
    if (points.length === 0 || points.length > MAX_LOCATIONS) throw new Error(`between 1 and ${MAX_LOCATIONS} locations per request, got ${points.length}`);
    const models = this.options.marineModels ?? SINGLE_MODEL;
    const params = requestParams(endpoint, points, this.options.timeformat ?? "unixtime", this.options.apiKey, models);
    const weight = weightPerLocation(endpoint, models) * points.length;
    const backoff = this.options.backoffMs ?? 1000;
    let requests = 0;
    for (let attempt = 0; ; attempt++) {
      requests++;
      try {
        const locations = parseResponse(await this.send(endpoint, params), endpoint, points.length, models);
        this.waitedMs = 0;
        return { locations, requests, weight: weight * requests };
      } catch (err) {
        const error = err instanceof UpstreamError ? err : new UpstreamError(String(err), false);
        // An upstream may echo the request, key included, in its error text: it must not reach a log.
        if (this.options.apiKey) error.message = error.message.replaceAll(this.options.apiKey, "[apikey]");
        const wait = Math.min(Math.max(error.waitMs, backoff * 2 ** attempt), (this.options.waitBudgetMs ?? RETRY_WAIT_BUDGET_MS) - this.waitedMs);
        if (!error.retryable || attempt >= this.options.retries || wait <= 0) {
          error.cost = { requests, weight: weight * requests };
          throw error;
        }
        this.waitedMs += wait;
        await this.sleep(wait);
      }
    }
  }

  private async send(endpoint: Endpoint, params: URLSearchParams): Promise<string> {
    const query = params.toString();
    const base = this.urlOf(endpoint);
    const usePost = base.length + 1 + query.length > MAX_GET_URL;
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(usePost ? base : `${base}?${query}`, {
        method: usePost ? "POST" : "GET",
        headers: usePost ? { "Content-Type": "application/x-www-form-urlencoded" } : undefined,
        body: usePost ? query : undefined,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (err) {
      throw describeNetworkError(err, this.options.timeoutMs);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      throw describeNetworkError(err, this.options.timeoutMs);
    }
    if (!response.ok) throw errorFromStatus(response.status, text, response.headers.get("retry-after"));
    return text;
  }
}
