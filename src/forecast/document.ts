/**
 * Assembly of one spot's stored forecast document from the two upstream series: pure, no I/O (the tide
 * lookup is passed in). Field mapping and null rules are documented in docs/forecast.md.
 */
import { chooseModels, estimateHour, spotModels, type HourEstimate } from "./consensus";
import { modelSeries, type LocationSeries, type Point } from "./openmeteo";
import { rateHour, windDirectionType } from "./rating";
import { breakingSea, surfRange } from "./surf";
import type { DailyWeather, ForecastGrid, ForecastHour, ModelUse } from "./types";
import { haversineKm } from "../core/geo";
import type { HourTide, TideReference } from "../tides/types";
import { isoUtc } from "../core/clock";
import type { ForecastCorrection } from "../observations/types";

/**
 * What forecast_documents.body holds: the whole fetched horizon, sliced from "now" when served, and what its tide
 * heights are measured from (recorded by the refresh; absent from documents assembled before it was).
 */
export interface StoredForecast extends Partial<TideReference> {
  hours: ForecastHour[];
  daily: DailyWeather[];
  /** The wave models counted and left out at this spot (absent from documents assembled before several models). */
  models?: ModelUse;
  /** The grid cells the upstreams answered from (absent from documents assembled before it was recorded). */
  grid?: ForecastGrid;
  /** Synthetic data from demo mode (forecast/demo.ts). */
  demo?: boolean;
}

const degrees = (v: number) => Math.round(v) % 360;

/** Which models a marine location's series come from, and which of them count in the wave figures. */
export interface MarineModels {
  /** Every model of the request, in its order (forecast/models.ts `requestedModels`). */
  requested: readonly string[];
  /** The configured wave models: the others only lend the sea temperature. */
  counted: readonly string[];
}

/** Open-Meteo's own default, for callers that ask for one model. */
export const BEST_MATCH_ONLY: MarineModels = { requested: ["best_match"], counted: ["best_match"] };

/**
 * The models' estimates of every hour of a marine cell: they do not depend on the spot (its facing comes after), so
 * the spots sharing a cell (the refresh hands them the same series object) share them.
 */
const estimatesByCell = new WeakMap<LocationSeries, { models: MarineModels; ratios: ForecastCorrection["ratios"] | undefined; use: ModelUse; estimates: (HourEstimate | null)[] }>();

function cellEstimates(marine: LocationSeries, models: MarineModels, ratios?: ForecastCorrection["ratios"]): { use: ModelUse; estimates: (HourEstimate | null)[] } {
  const kept = estimatesByCell.get(marine);
  if (kept && kept.models === models && kept.ratios === ratios) return kept;
  const series = modelSeries(marine, models.requested);
  const use = chooseModels(series, models.counted);
  const prepared = spotModels(series, use, ratios);
  const made = { models, ratios, use, estimates: marine.hourly.time.map((_, i) => estimateHour(prepared, i)) };
  estimatesByCell.set(marine, made);
  return made;
}

/** Where each upstream answered from, seen from the spot. */
export function gridOf(spot: Point, marine: LocationSeries, forecast: LocationSeries): ForecastGrid {
  const cell = (s: LocationSeries) => ({ lat: s.lat, lng: s.lng, distanceKm: Math.round(haversineKm(spot.lat, spot.lng, s.lat, s.lng) * 10) / 10 });
  return { marine: cell(marine), weather: cell(forecast) };
}

/**
 * One hour per time present in both series; an hour missing any essential value (after the swell → wave
 * fallback) is dropped, and so is an hour no counted model has a wave height for. `tides` is asked once, for the
 * kept hours. `spot` (its position) names the grid cells' distances.
 */
export function assembleDocument(
  marine: LocationSeries,
  forecast: LocationSeries,
  facing: number | null,
  tides: (times: number[]) => (HourTide | null)[],
  { spot, models = BEST_MATCH_ONLY, correction }: { spot?: Point; models?: MarineModels; correction?: ForecastCorrection } = {},
): StoredForecast {
  const { use, estimates } = cellEstimates(marine, models, correction?.ratios);
  const f = forecast.hourly.values;
  const forecastIndex = new Map(forecast.hourly.time.map((t, i) => [t, i]));
  const kept: { time: number; estimate: HourEstimate; fields: Pick<ForecastHour, "windSpeed" | "windDirection" | "windGust" | "airTemperature" | "weatherCode"> }[] = [];
  marine.hourly.time.forEach((time, i) => {
    const j = forecastIndex.get(time);
    if (j === undefined) return;
    const estimate = estimates[i]!;
    const airTemperature = f.temperature_2m?.[j];
    const weatherCode = f.weather_code?.[j];
    const windSpeed = f.wind_speed_10m?.[j];
    const windDirection = f.wind_direction_10m?.[j];
    const windGust = f.wind_gusts_10m?.[j];
    if (!estimate || estimate.waterTemperature === null || airTemperature == null || weatherCode == null) return;
    if (windSpeed == null || windDirection == null || windGust == null) return;
    kept.push({ time, estimate, fields: { windSpeed, windDirection: degrees(windDirection), windGust, airTemperature, weatherCode: Math.round(weatherCode) } });
  });
  const tideAt = tides(kept.map((h) => h.time));
  const hours = kept.map(({ time, estimate, fields }, k): ForecastHour => {
    const { swell, components } = estimate;
    // Without any component (models serving the total sea only), the total sea stands in for them.
    const seaAtBeach = components.length > 0 ? components : [{ kind: "primary" as const, ...swell }];
    const waveDirection = degrees(swell.direction);
    return {
      time: isoUtc(time),
      waveHeight: estimate.waveHeight,
      swellHeight: swell.height,
      wavePeriod: swell.period,
      waveDirection,
      windSpeed: fields.windSpeed,
      windDirection: fields.windDirection,
      windGust: fields.windGust,
      windDirectionType: windDirectionType(fields.windDirection, facing),
      airTemperature: fields.airTemperature,
      waterTemperature: estimate.waterTemperature!,
      weatherCode: fields.weatherCode,
      tide: tideAt[k] ?? null,
      rating: rateHour({
        swellHeight: swell.height,
        wavePeriod: swell.period,
        waveDirection,
        windSpeed: fields.windSpeed,
        windGust: fields.windGust,
        windDirection: fields.windDirection,
        facing,
        breaking: breakingSea(seaAtBeach, facing),
      }),
      swells: components,
      surf: surfRange(seaAtBeach, facing),
      confidence: estimate.confidence,
    };
  });
  return { hours, daily: assembleDaily(forecast), models: correction ? { ...use, correction } : use, ...(spot ? { grid: gridOf(spot, marine, forecast) } : {}) };
}

/** Days without a UV maximum are dropped (the spec makes uvIndexMax a required number). */
function assembleDaily(forecast: LocationSeries): DailyWeather[] {
  const d = forecast.daily;
  if (!d) return [];
  const out: DailyWeather[] = [];
  d.date.forEach((date, i) => {
    const uv = d.uvIndexMax[i];
    if (uv == null) return;
    const rise = d.sunrise[i];
    const set = d.sunset[i];
    out.push({ date, sunrise: rise == null ? null : isoUtc(rise), sunset: set == null ? null : isoUtc(set), uvIndexMax: uv });
  });
  return out;
}
