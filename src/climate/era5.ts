/**
 * The decade's hours at an ERA5-Ocean cell from Open-Meteo: the total sea from the Marine API (`models=era5_ocean`)
 * and the wind from the Historical Weather API (`/v1/archive`), a calendar year per request (climate.ts
 * `yearRanges`). Every answer must hold every hour of its year: a short, malformed or refused one fails the whole
 * decade, so nothing half-fetched is ever kept (docs/climate.md, "The upstream, and its cost").
 */
import { daysOf, MARINE_VARIABLES, WIND_VARIABLES, yearRanges, type CellHours, type DateRange, type Years } from "./climate";

export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;

export interface Era5Options {
  /** SURFCAST_OPEN_METEO_MARINE_URL, without `/v1/marine`. */
  marineUrl: string;
  /** SURFCAST_OPEN_METEO_ARCHIVE_URL, without `/v1/archive`. */
  archiveUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
  fetch: FetchFunction;
}

/** The hours of one cell over `years`, and the grid point the Marine API answered from. */
export interface Era5Hours {
  cell: { lat: number; lng: number };
  hours: CellHours;
}

/** Where the climate's hours come from (a function, so tests hand in their own). */
export type Era5Source = (point: { lat: number; lng: number }, years: Years) => Promise<Era5Hours>;

export const DEFAULT_ARCHIVE_URL = "https://archive-api.open-meteo.com";

export function era5Query(point: { lat: number; lng: number }, range: DateRange, variables: readonly string[], apiKey: string | undefined, marine: boolean): URLSearchParams {
  const query = new URLSearchParams({
    latitude: String(point.lat),
    longitude: String(point.lng),
    hourly: variables.join(","),
    start_date: range.start,
    end_date: range.end,
    timezone: "GMT",
    timeformat: "unixtime",
  });
  if (marine) {
    query.set("models", "era5_ocean");
    query.set("cell_selection", "sea");
  } else query.set("wind_speed_unit", "kmh");
  if (apiKey) query.set("apikey", apiKey);
  return query;
}

const isReading = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/**
 * One year's answer: every hour from 00:00 UTC of 1 January to 23:00 of 31 December, in order, each variable with
 * a value or null per hour. Throws on anything else, with the server's `reason` when it gave one.
 */
export function parseYear(body: unknown, range: DateRange, variables: readonly string[]): { lat: number; lng: number; series: (number | null)[][] } {
  const answer = body as { error?: unknown; reason?: unknown; latitude?: unknown; longitude?: unknown; hourly?: Record<string, unknown> } | null;
  if (answer?.error === true) throw new Error(String(answer.reason));
  const times = answer?.hourly?.time;
  const hours = daysOf(range.year) * 24;
  const first = Date.UTC(range.year, 0, 1) / 1000;
  if (!Array.isArray(times) || times.length !== hours || times.some((t, i) => t !== first + i * 3600)) throw new Error(`${range.year}: not every hour of the year`);
  const series = variables.map((name) => {
    const values = answer!.hourly![name];
    if (!Array.isArray(values) || values.length !== hours) throw new Error(`${range.year}: no ${name} for every hour`);
    return values.map((v) => (isReading(v) ? v : null));
  });
  return { lat: Number(answer!.latitude), lng: Number(answer!.longitude), series };
}

/** The Open-Meteo source of the climate's hours. */
export function openMeteoEra5(options: Era5Options): Era5Source {
  const get = async (base: string, path: string, query: URLSearchParams): Promise<unknown> => {
    const response = await options.fetch(`${base.replace(/\/+$/, "")}${path}?${query}`, { signal: AbortSignal.timeout(options.timeoutMs) });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${path}: HTTP ${response.status}, not JSON`);
    }
    const reason = (body as { reason?: unknown } | null)?.reason;
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}${typeof reason === "string" ? `: ${reason}` : ""}`);
    return body;
  };
  return async (point, years) => {
    try {
      return await fetchYears(point, years);
    } catch (error) {
      // An upstream may echo the request, key included, in its error text: it must not reach a log or a client.
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(options.apiKey ? message.replaceAll(options.apiKey, "[apikey]") : message);
    }
  };

  async function fetchYears(point: { lat: number; lng: number }, years: Years): Promise<Era5Hours> {
    const columns: Record<(typeof MARINE_VARIABLES)[number] | (typeof WIND_VARIABLES)[number], (number | null)[]> = {
      wave_height: [],
      wave_direction: [],
      wave_period: [],
      wind_speed_10m: [],
      wind_direction_10m: [],
    };
    let cell: { lat: number; lng: number } | null = null;
    // One request at a time: a cell is fetched once, and never in a hurry.
    for (const range of yearRanges(years)) {
      const marine = parseYear(await get(options.marineUrl, "/v1/marine", era5Query(point, range, MARINE_VARIABLES, options.apiKey, true)), range, MARINE_VARIABLES);
      const wind = parseYear(await get(options.archiveUrl, "/v1/archive", era5Query(point, range, WIND_VARIABLES, options.apiKey, false)), range, WIND_VARIABLES);
      cell ??= { lat: marine.lat, lng: marine.lng };
      MARINE_VARIABLES.forEach((name, k) => columns[name].push(...marine.series[k]!));
      WIND_VARIABLES.forEach((name, k) => columns[name].push(...wind.series[k]!));
    }
    return {
      cell: cell!,
      hours: {
        start: Date.UTC(years.from, 0, 1),
        waveHeight: columns.wave_height,
        wavePeriod: columns.wave_period,
        waveDirection: columns.wave_direction,
        windSpeed: columns.wind_speed_10m,
        windDirection: columns.wind_direction_10m,
      },
    };
  }
}

