/**
 * A fake Open-Meteo (Marine API + Forecast API) for tests and benchmarks. No network: Bun.serve on 127.0.0.1.
 *
 *   const fake = await startFakeOpenMeteo({ firstDay: "2026-11-21" });
 *   // point Surfcast at it: SURFCAST_OPEN_METEO_MARINE_URL = SURFCAST_OPEN_METEO_FORECAST_URL = fake.url
 *   fake.inject("503", { next: 2 });                      // the next 2 requests answer 503
 *   fake.inject("truncated", { requests: [3] });          // request #3 (1-based, both APIs) is cut short
 *   fake.inject({ delayMs: 500 }, { endpoint: "marine" }); // every marine request is slow
 *   fake.requests            // [{ n, endpoint, method, locations, timeformat, apikey }]
 *   fake.weight()            // Open-Meteo call weight: Σ locations × max(1, nVars/10 × max(1, days/14))
 *   fake.locations()         // summed locations
 *   fake.reset(); await fake.close();
 *
 * Answers GET and form-encoded POST on /v1/marine and /v1/forecast for any list of locations, in the exact
 * shape of the shared fixtures (/work/shared/data/open-meteo): each requested location gets the series of the
 * nearest fixture location (Supertubos, Uluwatu, Pipeline; with their null tails), shifted so the series start
 * at 00:00 GMT of `firstDay` (default: today); array body in request order with `location_id` for i > 0 (a single location
 * answers a bare object); `timeformat=iso8601|unixtime`; latitude/longitude snapped to a grid-cell centre.
 * Bad parameters answer 400 `{"error":true,"reason":…}` like the real server (unknown variable, > 1000
 * locations, list length mismatch); a POST without a form body answers 415.
 *
 * Variables: the fixtures' own series, plus any `<prefix>_height`, `<prefix>_period` or `<prefix>_direction` the
 * fixtures do not carry (secondary/tertiary swell, wind sea…), synthesized from the fixture's total sea
 * (`wave_*`) with the same units, decimals and null tail; `tertiary_swell_wave_*` is null over the whole series
 * at the Pipeline fixture, as at points where the serving model has no tertiary partition.
 * `sea_level_height_msl` is a synthetic tide at the requested point with every regime (semi-diurnal, mixed,
 * diurnal, negligible) and all nulls for lakes and inland waves (./fake-sea-level.ts).
 *
 * Models: `models=` takes a comma list as the real Marine API does. With one model the columns keep their plain names;
 * with several every hourly variable comes once per model as `<variable>_<model>`. Each model reads the fixture's
 * series through its behaviour (`FakeModel`): by default the models agree exactly, ECMWF WAM has no swell
 * partitions, only Météo-France (and `best_match`) carry the sea temperature and sea level, DWD GWAM stops after 96 h
 * and EWAM after 78 h; `setModel(name, behaviour)` makes one differ (a scale, a land cell's zeros, no data, a
 * horizon). An unknown model is a 400 like the real server's.
 *
 * `past_days=N` (0..92) puts N days before the first, each a copy of the first day's hours at its own dates.
 *
 * History: `/v1/marine?models=era5_ocean&start_date=…&end_date=…` (ERA5-Ocean: `wave_height`, `wave_direction`,
 * `wave_period`, `wave_peak_period`) and the Historical Weather API `/v1/archive?start_date=…&end_date=…` (ERA5:
 * `wind_speed_10m`, `wind_direction_10m`, `wind_gusts_10m`) serve every hour of any past range, GMT, from the
 * synthetic climate of `era5At` (northern seasons, turned by six months south of the equator): small summers, big
 * winters, medium springs and autumns, a west swell, a light east wind that turns west from 18:00 UTC, and a null
 * hour now and then. The grid point answered is the nearest of ERA5-Ocean's 0.5° (the archive's 0.25°). A range
 * that ends after yesterday is a 400, as is a missing date (the archive asks for both).
 *
 * Faults: "500", "503", "429" (minutely, the fixture body), "429-daily", "400", "truncated" (200, half a
 * body), "all-null" (200, every series null), { delayMs } (answers late: use more than the client timeout
 * for a timeout), { status, reason } (an error answer with that reason text). `inject` without `requests`/`next` applies to every matching request until `reset()`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { OPEN_METEO_FIXTURES } from "./env";
import { seaLevelSeries } from "./fake-sea-level";

export type Fault = "500" | "503" | "429" | "429-daily" | "400" | "truncated" | "all-null" | { delayMs: number } | { status: number; reason: string };
export type FakeEndpoint = "marine" | "forecast" | "archive";

/** How a model reads the fixture's series. */
export interface FakeModel {
  /** Wave and swell heights × this (default 1). */
  scale?: number;
  /** Null from this hour of the series on (a model past its horizon). */
  horizonHours?: number;
  /** Every wave variable 0: the model's nearest cell is on land. */
  zero?: boolean;
  /** Every variable null: the model has no cell here. */
  missing?: boolean;
  /** Has the swell partitions (primary, secondary, tertiary swell, wind sea); default true. */
  swells?: boolean;
  /** Has the sea temperature, sea level and currents; default false. */
  ocean?: boolean;
}

/** The real models' gaps (../shared/data/open-meteo/README.md, "Several models in one request"). */
const MODEL_DEFAULTS: Record<string, FakeModel> = {
  best_match: { ocean: true },
  meteofrance_wave: { ocean: true },
  meteofrance_currents: { ocean: true, swells: false },
  ecmwf_wam025: { swells: false },
  ecmwf_wam: { swells: false },
  ncep_gfswave025: {},
  ncep_gfswave016: {},
  ncep_gefswave025: {},
  gwam: { horizonHours: 96 },
  dwd_gwam: { horizonHours: 96 },
  ewam: { horizonHours: 78 },
  dwd_ewam: { horizonHours: 78 },
  era5_ocean: {},
};

const OCEAN_VARIABLE = /^(sea_surface_temperature|sea_level_height_msl|invert_barometer_height|ocean_current_)/;
/** The total sea's own series: every model has them. */
const TOTAL_SEA = new Set(["wave_height", "wave_direction", "wave_period", "wave_peak_period"]);

/** One model's reading of a series (`variable` a marine hourly variable) whose first `pastHours` are past days. */
function modelValues(values: readonly (number | null)[], variable: string, model: FakeModel, pastHours: number): (number | null)[] {
  const ocean = OCEAN_VARIABLE.test(variable);
  if (model.missing || (ocean && !model.ocean) || (!ocean && !TOTAL_SEA.has(variable) && model.swells === false)) return values.map(() => null);
  return values.map((v, i) => {
    if (v === null || (model.horizonHours !== undefined && i - pastHours >= model.horizonHours)) return null;
    if (ocean) return v;
    if (model.zero) return 0;
    return variable.endsWith("_height") && model.scale !== undefined ? Math.round(v * model.scale * 100) / 100 : v;
  });
}

export interface FakeRequest {
  n: number;
  endpoint: FakeEndpoint;
  method: string;
  locations: number;
  timeformat: string;
  apikey: string | null;
  latitudes: number[];
  longitudes: number[];
  /** Hourly plus daily variables requested. */
  variables: number;
  days: number;
  /** Marine models asked for (`models=`; empty when the request names none). */
  models: string[];
}

export interface FakeOpenMeteo {
  url: string;
  requests: FakeRequest[];
  /** Moves the series to start at 00:00 GMT of another day (a simulated clock's next day). */
  setFirstDay(day: string): void;
  inject(fault: Fault, when?: { requests?: number[]; next?: number; endpoint?: FakeEndpoint }): void;
  /** Makes a marine model read the series differently (until `reset()`); merged over its defaults. */
  setModel(name: string, behaviour: FakeModel): void;
  /** The ERA5 hour the history requests serve at a point and hour (before the served decimals). */
  era5At(lat: number, lng: number, ms: number): Era5Hour;
  /** The total sea's wave height served (by a model that reads the fixture as it is) for the hour at `ms`, past days included. */
  waveHeightAt(lat: number, lng: number, ms: number): number | null;
  /** Open-Meteo call weight of the requests received (optionally for one API). */
  weight(endpoint?: FakeEndpoint): number;
  /** Locations requested (optionally for one API). */
  locations(endpoint?: FakeEndpoint): number;
  reset(): void;
  close(): Promise<void>;
}

type Fixture = Record<string, unknown> & { hourly: Record<string, unknown[]>; daily?: Record<string, unknown[]>; hourly_units: Record<string, string>; daily_units?: Record<string, string> };

const FIXTURE_DAY = Date.parse("2026-11-21T00:00:00Z");
const load = (name: string) => JSON.parse(readFileSync(join(OPEN_METEO_FIXTURES, name), "utf8")) as Fixture[];

/** The Marine API's other hourly variables: the fixtures lack them, the fake generates them (`seaLevel`, `synthesized`; anything else is 1). */
const GENERATED_MARINE = [
  ...["wind_wave_direction", "wind_wave_period", "wind_wave_peak_period", "swell_wave_peak_period", "sea_level_height_msl", "invert_barometer_height"],
  ...["secondary_swell_wave_height", "secondary_swell_wave_direction", "secondary_swell_wave_period", "ocean_current_velocity", "ocean_current_direction"],
  ...["tertiary_swell_wave_height", "tertiary_swell_wave_direction", "tertiary_swell_wave_period"],
];

const KNOWN: Record<"marine" | "forecast", { hourly: string[]; daily: string[] }> = {
  marine: {
    hourly: ["wave_height", "wave_direction", "wave_period", "swell_wave_height", "swell_wave_direction", "swell_wave_period", "sea_surface_temperature", "wave_peak_period", "wind_wave_height", ...GENERATED_MARINE],
    daily: [],
  },
  forecast: {
    hourly: ["temperature_2m", "weather_code", "wind_speed_10m", "wind_direction_10m", "wind_gusts_10m", "relative_humidity_2m", "precipitation"],
    daily: ["sunrise", "sunset", "uv_index_max", "temperature_2m_max"],
  },
};

/** One hour of the synthetic ERA5 climate. */
export interface Era5Hour {
  waveHeight: number | null;
  wavePeriod: number | null;
  waveDirection: number | null;
  wavePeakPeriod: number | null;
  windSpeed: number;
  windDirection: number;
  windGust: number;
}

/** The sea's base height by month (1..12) in the north: small summers, big winters, medium springs and autumns. */
export const ERA5_SEASON_HEIGHT = [3, 3, 1, 1, 1, 0.2, 0.2, 0.2, 1, 1, 1, 3] as const;
/** Every this many hours the sea's variables are null (an hour the reanalysis lacks). */
const ERA5_GAP_HOURS = 997;

/** The synthetic ERA5 climate (see the header). */
export function era5At(lat: number, _lng: number, ms: number): Era5Hour {
  const hour = Math.floor(ms / 3_600_000);
  const date = new Date(ms);
  const month = lat < 0 ? ((date.getUTCMonth() + 6) % 12) + 1 : date.getUTCMonth() + 1;
  const round = (v: number, decimals: number) => Math.round(v * 10 ** decimals) / 10 ** decimals;
  const windSpeed = round(4 + Math.sin(hour / 5), 1);
  const wind = { windSpeed, windDirection: date.getUTCHours() < 18 ? 90 : 270, windGust: round(windSpeed * 1.4, 1) };
  if (hour % ERA5_GAP_HOURS === 0) return { waveHeight: null, wavePeriod: null, waveDirection: null, wavePeakPeriod: null, ...wind };
  const period = round(10.5 + Math.sin(hour / 7), 2);
  return {
    waveHeight: round(ERA5_SEASON_HEIGHT[month - 1]! * (1 + 0.05 * Math.sin(hour)), 2),
    wavePeriod: period,
    waveDirection: Math.round(280 + 15 * Math.sin(hour / 13)),
    wavePeakPeriod: round(period * 1.2, 2),
    ...wind,
  };
}

const ERA5_VARIABLES: Record<"marine" | "archive", Record<string, { unit: string; of: (h: Era5Hour) => number | null }>> = {
  marine: {
    wave_height: { unit: "m", of: (h) => h.waveHeight },
    wave_direction: { unit: "°", of: (h) => h.waveDirection },
    wave_period: { unit: "s", of: (h) => h.wavePeriod },
    wave_peak_period: { unit: "s", of: (h) => h.wavePeakPeriod },
  },
  archive: {
    wind_speed_10m: { unit: "km/h", of: (h) => h.windSpeed },
    wind_direction_10m: { unit: "°", of: (h) => h.windDirection },
    wind_gusts_10m: { unit: "km/h", of: (h) => h.windGust },
  },
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Days of an inclusive `start_date`..`end_date` range, or an error reason. */
function rangeDays(start: string | null, end: string | null): number | string {
  if (start === null || end === null) return "Parameter 'start_date' and 'end_date' must be set together";
  if (!DATE.test(start) || !DATE.test(end) || Number.isNaN(Date.parse(start)) || Number.isNaN(Date.parse(end))) return `Invalid date ${DATE.test(start) ? end : start}`;
  const days = (Date.parse(end) - Date.parse(start)) / 86_400_000 + 1;
  if (days < 1) return "Parameter 'end_date' must be after 'start_date'";
  return days;
}

/** An ERA5 history answer (Marine `era5_ocean` or the archive), as the real server shapes it; null when `hourly` names a variable it does not have. */
function era5Location(api: "marine" | "archive", lat: number, lng: number, index: number, hourly: string[], start: string, days: number, unixtime: boolean, allNull: boolean): Record<string, unknown> | null {
  const variables = ERA5_VARIABLES[api];
  if (hourly.some((h) => !(h in variables))) return null;
  const step = api === "marine" ? 2 : 4;
  const first = Date.parse(`${start}T00:00:00Z`);
  const times = Array.from({ length: days * 24 }, (_, i) => first + i * 3_600_000);
  const hours = times.map((t) => era5At(lat, lng, t));
  return {
    latitude: Math.round(lat * step) / step,
    longitude: Math.round(lng * step) / step,
    generationtime_ms: 12.5,
    utc_offset_seconds: 0,
    timezone: "GMT",
    timezone_abbreviation: "GMT",
    elevation: api === "marine" ? 0 : 4,
    ...(index !== 0 ? { location_id: index } : {}),
    hourly_units: Object.fromEntries([["time", unixtime ? "unixtime" : "iso8601"], ...hourly.map((h) => [h, variables[h]!.unit])]),
    hourly: Object.fromEntries([
      ["time", times.map((t) => (unixtime ? t / 1000 : new Date(t).toISOString().slice(0, 16)))],
      ...hourly.map((h) => [h, hours.map((hour) => (allNull ? null : variables[h]!.of(hour)))]),
    ]),
  };
}

/** The requested points of the fixture locations 0, 1, 2. */
const FIXTURE_POINTS = [
  [39.344, -9.363],
  [-8.815, 115.0867],
  [21.665, -158.053],
] as const;

/** How a synthesized component relates to the fixture's total sea: height and period shares, direction turned by. */
const SYNTHETIC: Record<string, { height: number; period: number; turn: number }> = {
  secondary_swell_wave: { height: 0.5, period: 0.8, turn: 40 },
  tertiary_swell_wave: { height: 0.25, period: 0.6, turn: -70 },
  wind_wave: { height: 0.6, period: 0.45, turn: 150 },
};
const SYNTHETIC_DEFAULT = { height: 0.3, period: 0.7, turn: 90 };
const SYNTHETIC_VARIABLE = /^(.+)_(height|period|direction)$/;
/** Fixture index → prefixes whose series are null throughout (the Pipeline fixture has no tertiary swell). */
const NULL_SERIES: Record<number, string[]> = { 2: ["tertiary_swell_wave"] };
const SYNTHETIC_UNITS = { height: "m", period: "s", direction: "°" } as const;

/** A series the fixture does not carry, or null when `name` is not one the fake can make up. */
function synthesized(fixture: Fixture, fixtureIndex: number, name: string): { unit: string; values: (number | null)[] } | null {
  const match = SYNTHETIC_VARIABLE.exec(name);
  if (!match) return null;
  const [, prefix, quantity] = match as unknown as [string, string, keyof typeof SYNTHETIC_UNITS];
  const base = fixture.hourly[`wave_${quantity}`] as (number | null)[];
  const k = SYNTHETIC[prefix] ?? SYNTHETIC_DEFAULT;
  const absent = NULL_SERIES[fixtureIndex]?.includes(prefix);
  const values = base.map((v) => {
    if (v === null || absent) return null;
    if (quantity === "direction") return Math.round((v + k.turn + 360) % 360);
    return Math.round(v * (quantity === "height" ? k.height : k.period) * 100) / 100;
  });
  return { unit: SYNTHETIC_UNITS[quantity], values };
}

function nearestFixture(lat: number, lng: number): number {
  const d = FIXTURE_POINTS.map(([a, b]) => (a - lat) ** 2 + (b - lng) ** 2);
  return d.indexOf(Math.min(...d));
}

const ERROR_429 = readFileSync(join(OPEN_METEO_FIXTURES, "error_429.json"), "utf8");

const error = (status: number, reason: string) => new Response(JSON.stringify({ error: true, reason }), { status, headers: { "Content-Type": "application/json; charset=utf-8" } });

/** `2026-11-21T13:00` / `2026-11-21` shifted by `shift` ms, in the same form or as epoch seconds. */
function shiftTime(value: unknown, shift: number, unixtime: boolean): unknown {
  if (typeof value !== "string") return value;
  const dateOnly = value.length === 10;
  const ms = Date.parse(dateOnly ? `${value}T00:00:00Z` : `${value}:00Z`) + shift;
  if (unixtime) return ms / 1000;
  return new Date(ms).toISOString().slice(0, dateOnly ? 10 : 16);
}

/** `sea_level_height_msl`: a synthetic tide at the point (./fake-sea-level.ts), all null where the real API has no sea cell. */
function seaLevel(fixture: Fixture, lat: number, lng: number, shift: number): { unit: string; values: (number | null)[] } {
  return { unit: "m", values: seaLevelSeries(lat, lng, fixture.hourly.time!.map((t) => Date.parse(`${t as string}:00Z`) + shift)) };
}

const DAY_MS = 86_400_000;
const minusDays = (value: unknown, days: number) => {
  if (typeof value !== "string") return value;
  const dateOnly = value.length === 10;
  return new Date(Date.parse(dateOnly ? `${value}T00:00:00Z` : `${value}:00Z`) - days * DAY_MS).toISOString().slice(0, dateOnly ? 10 : 16);
};

/**
 * The fixture with `days` days before its first (`past_days`): each is a copy of the first day, at its own dates, so
 * a past hour reads like the same hour of the first day (`waveHeightAt`).
 */
function withPastDays(fixture: Fixture, days: number): Fixture {
  if (days <= 0) return fixture;
  const before = (section: Record<string, unknown[]>, perDay: number, isTime: (name: string) => boolean) =>
    Object.fromEntries(
      Object.entries(section).map(([name, values]) => {
        const past = Array.from({ length: days * perDay }, (_, i) => {
          const back = days - Math.floor(i / perDay);
          const value = values[i % perDay];
          return isTime(name) ? minusDays(value, back) : value;
        });
        return [name, [...past, ...values]];
      }),
    );
  return {
    ...fixture,
    hourly: before(fixture.hourly, 24, (name) => name === "time"),
    ...(fixture.daily ? { daily: before(fixture.daily, 1, (name) => name === "time" || name === "sunrise" || name === "sunset") } : {}),
  };
}

function buildLocation(fixture: Fixture, fixtureIndex: number, endpoint: FakeEndpoint, index: number, lat: number, lng: number, hourly: string[], daily: string[], shift: number, unixtime: boolean, allNull: boolean, models: [string, FakeModel][], pastHours: number): Record<string, unknown> {
  const cells = endpoint === "marine" ? 12 : 10;
  const snap = (x: number) => Math.round(((Math.floor(x * cells) + 0.5) / cells) * 1e6) / 1e6;
  const out: Record<string, unknown> = {
    latitude: snap(lat),
    longitude: snap(lng),
    generationtime_ms: 0.5,
    utc_offset_seconds: 0,
    timezone: "GMT",
    timezone_abbreviation: "GMT",
    elevation: fixture.elevation,
  };
  if (index !== 0) out.location_id = index;
  const series = (section: Record<string, unknown[]>, name: string, isTime: boolean) => {
    const values = section[name] ?? section.time!.map(() => 1);
    if (isTime) return values.map((v) => shiftTime(v, shift, unixtime));
    return allNull ? values.map(() => null) : values;
  };
  const made: Record<string, { unit: string; values: (number | null)[] }> = {};
  for (const h of hourly) {
    const series = h in fixture.hourly ? null : h === "sea_level_height_msl" ? seaLevel(fixture, lat, lng, shift) : synthesized(fixture, fixtureIndex, h);
    if (series) made[h] = series;
  }
  const hourlySeries = { ...fixture.hourly, ...Object.fromEntries(Object.entries(made).map(([h, m]) => [h, m.values])) };
  // Variables × models, in that order; a model's reading of each (the forecast API has no models here).
  const columns = hourly.flatMap((h) =>
    endpoint === "forecast" || models.length === 0
      ? [{ name: h, variable: h, values: series(hourlySeries, h, false) }]
      : models.map(([name, model]) => ({ name: models.length > 1 ? `${h}_${name}` : h, variable: h, values: modelValues(series(hourlySeries, h, false) as (number | null)[], h, model, pastHours) })),
  );
  out.hourly_units = Object.fromEntries([["time", unixtime ? "unixtime" : "iso8601"], ...columns.map((c) => [c.name, fixture.hourly_units[c.variable] ?? made[c.variable]?.unit ?? ""])]);
  out.hourly = Object.fromEntries([["time", series(fixture.hourly, "time", true)], ...columns.map((c) => [c.name, c.values])]);
  if (daily.length > 0 && fixture.daily) {
    const timeUnit = unixtime ? "unixtime" : "iso8601";
    out.daily_units = Object.fromEntries([["time", timeUnit], ...daily.map((d) => [d, d === "sunrise" || d === "sunset" ? timeUnit : (fixture.daily_units?.[d] ?? "")])]);
    out.daily = Object.fromEntries([
      ["time", series(fixture.daily, "time", true)],
      ...daily.map((d) => [d, d === "sunrise" || d === "sunset" ? (allNull ? fixture.daily!.time!.map(() => null) : series(fixture.daily!, d, true)) : series(fixture.daily!, d, false)]),
    ]);
  }
  return out;
}

export async function startFakeOpenMeteo(options: { firstDay?: string } = {}): Promise<FakeOpenMeteo> {
  const fixtures: Record<"marine" | "forecast", Fixture[]> = { marine: load("marine_multi.json"), forecast: load("forecast_multi.json") };
  // Without a first day the series starts today (00:00 GMT): a fixed day would leave every test without a current
  // forecast once the fixture's week has passed.
  const shiftTo = (firstDay: string | undefined) => Date.parse(`${firstDay ?? new Date().toISOString().slice(0, 10)}T00:00:00Z`) - FIXTURE_DAY;
  let shift = shiftTo(options.firstDay);
  const requests: FakeRequest[] = [];
  let rules: { fault: Fault; requests?: number[]; remaining: number; endpoint?: FakeEndpoint }[] = [];
  let modelChanges: Record<string, FakeModel> = {};

  const faultFor = (n: number, endpoint: FakeEndpoint): Fault | null => {
    for (const rule of rules) {
      if (rule.endpoint && rule.endpoint !== endpoint) continue;
      if (rule.requests && !rule.requests.includes(n)) continue;
      if (rule.remaining <= 0) continue;
      rule.remaining--;
      return rule.fault;
    }
    return null;
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const endpoint: FakeEndpoint | null = url.pathname === "/v1/marine" ? "marine" : url.pathname === "/v1/forecast" ? "forecast" : url.pathname === "/v1/archive" ? "archive" : null;
      if (!endpoint) return error(404, "Not Found");
      let params = url.searchParams;
      if (req.method === "POST") {
        if (!(req.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) return error(415, "Unsupported Media Type");
        params = new URLSearchParams(await req.text());
      } else if (req.method !== "GET") return error(405, "Method Not Allowed");

      const list = (name: string) => (params.get(name) ?? "").split(",").filter((s) => s !== "");
      const latitudes = list("latitude").map(Number);
      const longitudes = list("longitude").map(Number);
      const timeformat = params.get("timeformat") ?? "iso8601";
      const n = requests.length + 1;
      const variables = list("hourly").length + list("daily").length;
      const range = params.has("start_date") || params.has("end_date") || endpoint === "archive" ? rangeDays(params.get("start_date"), params.get("end_date")) : null;
      const days = typeof range === "number" ? range : Number(params.get("forecast_days") ?? 7);
      const modelNames = endpoint === "marine" ? list("models") : [];
      requests.push({ n, endpoint, method: req.method, locations: latitudes.length, timeformat, apikey: params.get("apikey"), latitudes, longitudes, variables, days, models: modelNames });

      const fault = faultFor(n, endpoint);
      if (fault !== null && typeof fault === "object" && "delayMs" in fault) await Bun.sleep(fault.delayMs);
      if (fault !== null && typeof fault === "object" && "status" in fault) return error(fault.status, fault.reason);
      if (fault === "500") return error(500, "Internal Server Error");
      if (fault === "503") return error(503, "The service is overloaded");
      if (fault === "429") return new Response(ERROR_429, { status: 429, headers: { "Content-Type": "application/json; charset=utf-8" } });
      if (fault === "429-daily") return error(429, "Daily API request limit exceeded. Please try again tomorrow.");
      if (fault === "400") return error(400, "Injected bad request");

      if (latitudes.length === 0 || latitudes.length !== longitudes.length || latitudes.some((x) => !Number.isFinite(x)) || longitudes.some((x) => !Number.isFinite(x)))
        return error(400, "Parameter 'latitude' and 'longitude' must have the same number of elements");
      if (latitudes.length > 1000) return error(400, "Only up to 1000 locations can be requested at once");
      const hourly = list("hourly");
      const daily = list("daily");
      if (typeof range === "string") return error(400, range);
      if (endpoint === "archive" || range !== null) {
        const api = endpoint === "archive" ? "archive" : "marine";
        if (api === "marine" && (modelNames.length !== 1 || modelNames[0] !== "era5_ocean")) return error(400, "this fake serves past ranges of the Marine API for models=era5_ocean only");
        const start = params.get("start_date")!;
        if (Date.parse(`${start}T00:00:00Z`) + days * 86_400_000 > Date.now() - 86_400_000) return error(400, `Parameter 'end_date' is out of allowed range`);
        const unixtime = timeformat === "unixtime";
        const answers = latitudes.map((lat, i) => era5Location(api, lat, longitudes[i]!, i, hourly, start, days, unixtime, fault === "all-null"));
        if (answers.some((a) => a === null)) return error(400, `Data corrupted at path ''. Cannot initialize variable from invalid String value ${hourly.join(",")}.`);
        const body = JSON.stringify(answers.length === 1 ? answers[0] : answers);
        return new Response(fault === "truncated" ? body.slice(0, Math.floor(body.length / 2)) : body, { headers: { "Content-Type": "application/json; charset=utf-8" } });
      }
      const badHourly = hourly.find((h) => !KNOWN[endpoint].hourly.includes(h) && !(endpoint === "marine" && SYNTHETIC_VARIABLE.test(h)));
      const badDaily = daily.find((d) => !KNOWN[endpoint].daily.includes(d));
      if (badHourly || badDaily) return error(400, `Data corrupted at path ''. Cannot initialize variable from invalid String value ${badHourly ? hourly.join(",") : daily.join(",")}.`);
      if ((params.get("timezone") ?? "GMT") !== "GMT") return error(400, "this fake only answers timezone=GMT");
      const unknownModel = modelNames.find((m) => !(m in MODEL_DEFAULTS));
      if (unknownModel) return error(400, `Cannot initialize MultiDomains from invalid String value ${unknownModel}.`);
      const models = modelNames.map((m): [string, FakeModel] => [m, { ...MODEL_DEFAULTS[m], ...modelChanges[m] }]);
      if (timeformat !== "iso8601" && timeformat !== "unixtime") return error(400, `Invalid timeformat ${timeformat}`);

      const unixtime = timeformat === "unixtime";
      const pastDays = Number(params.get("past_days") ?? 0);
      if (!Number.isInteger(pastDays) || pastDays < 0 || pastDays > 92) return error(400, `Parameter 'past_days' must be between 0 and 92`);
      const locations = latitudes.map((lat, i) =>
        buildLocation(withPastDays(fixtures[endpoint][nearestFixture(lat, longitudes[i]!)]!, pastDays), nearestFixture(lat, longitudes[i]!), endpoint, i, lat, longitudes[i]!, hourly, daily, shift, unixtime, fault === "all-null", models, pastDays * 24),
      );
      const body = JSON.stringify(locations.length === 1 ? locations[0] : locations);
      return new Response(fault === "truncated" ? body.slice(0, Math.floor(body.length / 2)) : body, { headers: { "Content-Type": "application/json; charset=utf-8" } });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    setFirstDay(day) {
      shift = shiftTo(day);
    },
    era5At,
    waveHeightAt(lat, lng, ms) {
      const series = fixtures.marine[nearestFixture(lat, lng)]!.hourly.wave_height as (number | null)[];
      const hour = Math.floor((ms - (FIXTURE_DAY + shift)) / 3_600_000);
      return series[hour < 0 ? ((hour % 24) + 24) % 24 : hour] ?? null;
    },
    setModel(name, behaviour) {
      modelChanges[name] = { ...modelChanges[name], ...behaviour };
    },
    inject(fault, when = {}) {
      rules.push({ fault, requests: when.requests, remaining: when.next ?? when.requests?.length ?? Infinity, endpoint: when.endpoint });
    },
    weight(endpoint) {
      // Open-Meteo's call weight per location (its pricing terms): max(1, nVars/10 × max(1, days/14)).
      // Every variable counts once per model asked for.
      const perLocation = (r: FakeRequest) => Math.max(1, ((r.variables * Math.max(1, r.models.length)) / 10) * Math.max(1, r.days / 14));
      return requests.filter((r) => !endpoint || r.endpoint === endpoint).reduce((s, r) => s + r.locations * perLocation(r), 0);
    },
    locations(endpoint) {
      return requests.filter((r) => !endpoint || r.endpoint === endpoint).reduce((s, r) => s + r.locations, 0);
    },
    reset() {
      requests.length = 0;
      rules = [];
      modelChanges = {};
    },
    async close() {
      await server.stop(true);
    },
  };
}
