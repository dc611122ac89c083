/**
 * Demo mode (`surfcast serve --demo`): a synthetic Open-Meteo inside the binary, so a newcomer without internet
 * or an Open-Meteo key sees forecasts. `demoFetch` stands in for `fetch` in the Open-Meteo client: it answers the
 * exact requests the refresh makes (Marine and Forecast, GET or form POST, both `timeformat`s) in Open-Meteo's
 * response format, so the whole refresh — parsing, assembly, ratings, tides — runs as it does for real.
 * Values are deterministic per location and hour: swell trains whose height, period and direction suit the
 * latitude, a diurnal sea breeze, a tide-like sea level (M2 + S2). A data directory is demo or real for its whole
 * life (the `data.mode` marker, forecast/store.ts); see docs/operations.md ("Demo mode").
 */
import { UserError } from "../core/errors";
import type { ForecastStore } from "./store";
import { WAVE_MODELS } from "./models";
import { sunTimes } from "./sun";
import { HOUR_MS, DAY_MS } from "../core/clock";

/** Every forecast served from demo data says so in its attribution (and carries `"demo": true`). */
export const DEMO_ATTRIBUTION = "DEMO DATA: synthetic values made by surfcast --demo; not a real forecast, not from Open-Meteo.";

/** A stable number in [0, 1) per location and salt (FNV-1a over the rounded coordinates). */
function unit(lat: number, lng: number, salt: number): number {
  let h = 2166136261 ^ salt;
  for (const ch of `${lat.toFixed(2)},${lng.toFixed(2)}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return (h >>> 0) / 2 ** 32;
}

const round = (v: number, decimals: number) => Math.round(v * 10 ** decimals) / 10 ** decimals;
const wave = (t: number, periodHours: number, phase: number) => Math.sin((2 * Math.PI * t) / periodHours + phase * 2 * Math.PI);

interface Train {
  height: number;
  period: number;
  direction: number;
}

/** The swell trains at absolute hour `t` (hours since the epoch): primary, secondary, tertiary. */
function swellTrains(lat: number, lng: number, t: number): Train[] {
  const exposure = Math.min(1, Math.abs(lat) / 50); // bigger, longer swells towards the storm belts
  // Westerly swells in the storm belts, easterly trade swells in the tropics; each place its own offset.
  const home = Math.abs(lat) > 25 ? 285 : 95;
  return [0, 1, 2].map((k) => {
    const size = [1, 0.45, 0.25][k]!;
    const groupHours = [110, 70, 45][k]!; // swell events rise and fall over days
    const pulse = 0.5 + 0.5 * wave(t, groupHours, unit(lat, lng, 10 + k));
    const height = size * (0.5 + 1.6 * exposure) * (0.45 + 0.9 * pulse);
    const period = [9 + 6 * exposure, 8 + 3 * exposure, 6 + 2 * exposure][k]! + 2.5 * pulse;
    const direction = (home + [0, 60, -45][k]! + 40 * (unit(lat, lng, 20 + k) - 0.5) + 15 * wave(t, groupHours * 1.7, unit(lat, lng, 30 + k)) + 360) % 360;
    return { height: round(height, 2), period: round(period, 2), direction: Math.round(direction) };
  });
}

/** Wind at absolute hour `t`: a weather pattern over days plus an afternoon sea breeze (local solar time). */
function windAt(lat: number, lng: number, t: number): { speed: number; direction: number; gust: number } {
  const solarHour = (((t % 24) + lng / 15) % 24 + 24) % 24;
  const breeze = Math.max(0, Math.sin((Math.PI * (solarHour - 9)) / 10)); // 09:00..19:00, strongest mid-afternoon
  const synoptic = 6 + 8 * (0.5 + 0.5 * wave(t, 80, unit(lat, lng, 40)));
  const speed = synoptic + 14 * breeze;
  // Land breeze at night and in the morning, sea breeze from the opposite side in the afternoon.
  const seaSide = (unit(lat, lng, 41) * 360) | 0;
  const direction = breeze > 0.2 ? seaSide : (seaSide + 180 + 30 * wave(t, 30, unit(lat, lng, 42))) % 360;
  return { speed: round(speed, 1), direction: Math.round((direction + 360) % 360), gust: round(speed * (1.3 + 0.2 * breeze), 1) };
}

/** Sea level (m, about mean sea level): the M2 and S2 constituents, so the tide has springs and neaps. */
function seaLevelAt(lat: number, lng: number, t: number): number {
  const m2 = 0.3 + 1.4 * unit(lat, lng, 50);
  return round(m2 * wave(t, 12.4206, unit(lat, lng, 51)) + 0.35 * m2 * wave(t, 12, unit(lat, lng, 52)), 2);
}

const seaTemperature = (lat: number, t: number) => round(Math.min(29, Math.max(3, 28 - 0.42 * Math.abs(lat))) + 0.3 * wave(t, 24, 0.6), 1);
const airTemperature = (lat: number, lng: number, t: number) => round(Math.min(31, Math.max(-2, 27 - 0.45 * Math.abs(lat))) + 3.5 * wave((t % 24) + lng / 15, 24, 0.6), 1);
const WEATHER = [0, 1, 2, 3, 3, 61, 2, 1] as const;
const weatherCode = (lat: number, lng: number, t: number) => WEATHER[Math.floor(t / 9 + 8 * unit(lat, lng, 60)) % WEATHER.length]!;

type Series = Record<string, (number | string | null)[]>;

/** Every hourly variable the refresh asks Marine or Forecast for, at one location and hour. */
function hourlyValues(lat: number, lng: number, time: number): Record<string, number> {
  const t = time / HOUR_MS;
  const [primary, secondary, tertiary] = swellTrains(lat, lng, t) as [Train, Train, Train];
  const wind = windAt(lat, lng, t);
  const windSea = { height: round(Math.min(2.5, 0.012 * wind.speed * wind.speed * 0.1 + 0.1), 2), period: round(2.5 + 0.12 * wind.speed, 2), direction: wind.direction };
  const total = round(Math.hypot(primary.height, secondary.height, tertiary.height, windSea.height), 2);
  return {
    wave_height: total,
    wave_direction: primary.direction,
    wave_period: round((primary.period * primary.height + windSea.period * windSea.height) / (primary.height + windSea.height), 2),
    swell_wave_height: primary.height,
    swell_wave_direction: primary.direction,
    swell_wave_period: primary.period,
    secondary_swell_wave_height: secondary.height,
    secondary_swell_wave_direction: secondary.direction,
    secondary_swell_wave_period: secondary.period,
    tertiary_swell_wave_height: tertiary.height,
    tertiary_swell_wave_direction: tertiary.direction,
    tertiary_swell_wave_period: tertiary.period,
    wind_wave_height: windSea.height,
    wind_wave_direction: windSea.direction,
    wind_wave_period: windSea.period,
    sea_surface_temperature: seaTemperature(lat, t),
    sea_level_height_msl: seaLevelAt(lat, lng, t),
    temperature_2m: airTemperature(lat, lng, t),
    weather_code: weatherCode(lat, lng, t),
    wind_speed_10m: wind.speed,
    wind_direction_10m: wind.direction,
    wind_gusts_10m: wind.gust,
  };
}

const UNITS: Record<string, string> = {
  temperature_2m: "°C",
  sea_surface_temperature: "°C",
  weather_code: "wmo code",
  wind_speed_10m: "km/h",
  wind_gusts_10m: "km/h",
  uv_index_max: "",
  sea_level_height_msl: "m",
};
const unitOf = (name: string, unixtime: boolean) =>
  UNITS[name] ?? (name === "sunrise" || name === "sunset" ? (unixtime ? "unixtime" : "iso8601") : name.endsWith("_height") ? "m" : name.endsWith("_direction") ? "°" : "s");

const OCEAN_VARIABLES = new Set(["sea_surface_temperature", "sea_level_height_msl"]);
const TOTAL_SEA = new Set(["wave_height", "wave_direction", "wave_period"]);

/**
 * One model's reading of a marine variable: heights off the shared sea by a few to twenty percent, drifting over the
 * days as real models do; partitions, sea temperature and sea level only where the model carries them (forecast/models.ts),
 * nothing past its horizon.
 */
function modelReading(name: string, value: number | undefined, model: string, salt: number, lat: number, lng: number, time: number, hour: number): number | null {
  const traits = WAVE_MODELS[model];
  if (value === undefined || !traits || hour >= traits.horizonHours) return null;
  if (OCEAN_VARIABLES.has(name)) return traits.ocean ? value : null;
  if (!traits.swells && !TOTAL_SEA.has(name)) return null;
  if (!name.endsWith("_height")) return value;
  const spread = 0.04 + 0.16 * unit(lat, lng, 80 + salt) * (1 + hour / 168);
  return round(value * (1 + spread * wave(time / HOUR_MS, 50 + 7 * salt, unit(lat, lng, 90 + salt))), 2);
}

/** One location in Open-Meteo's shape (key order, units, `location_id` for all but the first). */
function locationBody(index: number, lat: number, lng: number, params: URLSearchParams, today: number): Record<string, unknown> {
  const unixtime = params.get("timeformat") === "unixtime";
  const days = Number(params.get("forecast_days") ?? 7);
  const stamp = (ms: number) => (unixtime ? ms / 1000 : new Date(ms).toISOString().slice(0, 16));
  const hourlyNames = (params.get("hourly") ?? "").split(",").filter(Boolean);
  const dailyNames = (params.get("daily") ?? "").split(",").filter(Boolean);
  const times = Array.from({ length: days * 24 }, (_, i) => today + i * HOUR_MS);
  // Several marine models: every variable once per model, `<variable>_<model>`, like the real Marine API.
  const models = (params.get("models") ?? "").split(",").filter(Boolean);
  const columns = models.length > 1 ? hourlyNames.flatMap((name) => models.map((model, salt) => ({ column: `${name}_${model}`, name, model, salt }))) : hourlyNames.map((name) => ({ column: name, name, model: null, salt: 0 }));
  const hourly: Series = { time: times.map(stamp) };
  for (const { column } of columns) hourly[column] = [];
  times.forEach((time, hour) => {
    const values = hourlyValues(lat, lng, time);
    for (const { column, name, model, salt } of columns) hourly[column]!.push(model === null ? (values[name] ?? null) : modelReading(name, values[name], model, salt, lat, lng, time, hour));
  });
  const body: Record<string, unknown> = {
    latitude: lat,
    longitude: lng,
    generationtime_ms: 0.1,
    utc_offset_seconds: 0,
    timezone: "GMT",
    timezone_abbreviation: "GMT",
    elevation: 0,
    ...(index > 0 ? { location_id: index } : {}),
    hourly_units: Object.fromEntries([["time", unixtime ? "unixtime" : "iso8601"], ...columns.map((c) => [c.column, unitOf(c.name, unixtime)])]),
    hourly,
  };
  if (dailyNames.length > 0) {
    const dates = Array.from({ length: days }, (_, i) => today + i * DAY_MS);
    const daily: Series = { time: dates.map((d) => (unixtime ? d / 1000 : new Date(d).toISOString().slice(0, 10))) };
    const sun = dates.map((d) => sunTimes(lat, lng, d));
    const uvPeak = Math.max(1, 12 - 0.18 * Math.abs(lat));
    for (const name of dailyNames) {
      if (name === "sunrise") daily[name] = sun.map((s) => (s.sunrise === null ? null : stamp(s.sunrise)));
      else if (name === "sunset") daily[name] = sun.map((s) => (s.sunset === null ? null : stamp(s.sunset)));
      else daily[name] = dates.map((d) => round(uvPeak * (0.75 + 0.25 * wave(d / HOUR_MS, 72, unit(lat, lng, 70))), 2));
    }
    body.daily_units = Object.fromEntries(["time", ...dailyNames].map((n) => [n, n === "time" ? (unixtime ? "unixtime" : "iso8601") : unitOf(n, unixtime)]));
    body.daily = daily;
  }
  return body;
}

/**
 * Stands in for `fetch` in the Open-Meteo client: answers a Marine or Forecast request (GET query or form POST)
 * from the synthetic model, starting at today's 00:00 UTC like the real API. No socket is opened.
 */
export async function demoFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const params = typeof init?.body === "string" ? new URLSearchParams(init.body) : url.searchParams;
  const lats = (params.get("latitude") ?? "").split(",").map(Number);
  const lngs = (params.get("longitude") ?? "").split(",").map(Number);
  if (lats.length !== lngs.length || lats.some((v) => !Number.isFinite(v)) || lngs.some((v) => !Number.isFinite(v))) {
    return Response.json({ error: true, reason: "Parameter latitude and longitude must have the same number of elements" }, { status: 400 });
  }
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  // Like the real models, one value per grid cell (the refresh's cells: 1/12° marine, 1/10° weather): a batch sends
  // the first of its spots in a cell, so without this a spot's values changed with which spots were refreshed with it.
  const cells = url.pathname.endsWith("/marine") ? 12 : 10;
  const centre = (v: number) => (Math.floor(v * cells) + 0.5) / cells;
  const bodies = lats.map((lat, i) => locationBody(i, centre(lat), centre(lngs[i]!), params, today));
  return Response.json(bodies.length === 1 ? bodies[0] : bodies);
}

/** Where the data lives, as messages name it: a data directory (one box) or the database several servers share. */
export type DataPlace = { kind: "directory"; path: string } | { kind: "database"; url: string };

/**
 * Keeps demo and real data apart: a data directory (or a shared database) takes the mode of its first `serve` (one
 * that already holds forecasts but no marker is real: it predates demo mode). Serving it in the other mode is refused.
 */
export async function claimDataMode(store: Pick<ForecastStore, "dataMode" | "recordDataMode">, demo: boolean, place: DataPlace): Promise<void> {
  const mode = await store.dataMode();
  const named = place.kind === "directory" ? place.path : `the database ${place.url}`;
  if (mode === "demo" && !demo) {
    const other = place.kind === "directory" ? "choose another --data-dir" : "use another database (--database-url)";
    throw new UserError(`${named} holds demo data (made by \`surfcast serve --demo\`): serve it with --demo, or ${other} for real forecasts`);
  }
  if (mode === "real" && demo) {
    const own = place.kind === "directory" ? "its own data directory (the default for --demo is ./var-demo)" : "a data directory or a database of its own";
    throw new UserError(`${named} holds real forecasts: demo data is never mixed into it; run the demo on ${own}`);
  }
  if (mode === null) await store.recordDataMode(demo ? "demo" : "real");
}
