/**
 * The models' recent hours at a buoy: one Open-Meteo Marine request with the configured models and `past_days`, for
 * verification (a `HindcastSource`). Only `wave_height` is asked for, so the request weighs little
 * (docs/observations.md, "The upstream, and its cost").
 */
import type { FetchFunction } from "./fetcher";
import type { ModelHours } from "./verification";
import type { HindcastRequest, HindcastSource } from "./verification-service";

const TIMEOUT_MS = 30_000;

export interface OpenMeteoHindcastOptions {
  /** SURFCAST_OPEN_METEO_MARINE_URL, without `/v1/marine`. */
  marineUrl: string;
  apiKey: string | undefined;
  fetch: FetchFunction;
  timeoutMs?: number;
}

export function hindcastQuery(request: HindcastRequest, apiKey?: string): URLSearchParams {
  const query = new URLSearchParams({
    latitude: String(request.lat),
    longitude: String(request.lng),
    hourly: "wave_height",
    models: request.models.join(","),
    past_days: String(request.pastDays),
    forecast_days: String(request.forecastDays),
    cell_selection: "sea",
    timezone: "GMT",
    timeformat: "unixtime",
  });
  if (apiKey) query.set("apikey", apiKey);
  return query;
}

const isReading = (v: unknown): v is number | null => v === null || (typeof v === "number" && Number.isFinite(v));

/**
 * A Marine answer's wave heights per model: `wave_height` for one model, `wave_height_<model>` for several (the
 * server's naming). Throws on anything else, with the server's `reason` when it gave one.
 */
export function parseHindcast(body: unknown, models: readonly string[]): ModelHours {
  const answer = body as { error?: unknown; reason?: unknown; hourly?: Record<string, unknown> } | null;
  if (answer?.error === true) throw new Error(`Open-Meteo: ${String(answer.reason)}`);
  const hourly = answer?.hourly;
  const times = hourly?.time;
  if (!Array.isArray(times) || !times.every((t) => typeof t === "number")) throw new Error("Open-Meteo: no hourly unixtime series");
  const waveHeight: Record<string, (number | null)[]> = {};
  for (const model of models) {
    const series = hourly![models.length > 1 ? `wave_height_${model}` : "wave_height"];
    if (!Array.isArray(series) || series.length !== times.length) throw new Error(`Open-Meteo: no wave heights of ${model}`);
    waveHeight[model] = series.map((v) => (isReading(v) ? v : null));
  }
  return { time: times.map((t: number) => t * 1000), waveHeight };
}

/** A hindcast source over Open-Meteo's Marine API. */
export function openMeteoHindcast(options: OpenMeteoHindcastOptions): HindcastSource {
  const base = `${options.marineUrl.replace(/\/+$/, "")}/v1/marine`;
  return async (request) => {
    const response = await options.fetch(`${base}?${hindcastQuery(request, options.apiKey)}`, { signal: AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS) });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`Open-Meteo: http ${response.status}, not JSON`);
    }
    return parseHindcast(body, request.models);
  };
}
