/**
 * Assembly of one spot's stored forecast document from the two upstream series: pure, no I/O (the tide
 * lookup is passed in). Field mapping and null rules are documented in docs/forecast.md.
 */
import type { LocationSeries } from "./openmeteo";
import { rateHour, windDirectionType } from "./rating";
import { swellsAt } from "./swells";
import { breakingSea, surfRange } from "./surf";
import type { DailyWeather, ForecastHour, SwellComponent } from "./types";
import type { HourTide, TideReference } from "../tides/types";

/**
 * What forecast_documents.body holds: the whole fetched horizon, sliced from "now" when served, and what its tide
 * heights are measured from (recorded by the refresh; absent from documents assembled before it was).
 */
export interface StoredForecast extends Partial<TideReference> {
  hours: ForecastHour[];
  daily: DailyWeather[];
  /** Synthetic data from demo mode (forecast/demo.ts). */
  demo?: boolean;
}

/** `2026-11-21T13:00:00Z`: ISO 8601 with the UTC designator, no milliseconds. */
export function isoUtc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + "Z";
}

const degrees = (v: number) => Math.round(v) % 360;

/** The primary swell, or the total sea when the swell triple is incomplete for that hour. */
function swellAt(marine: Record<string, (number | null)[]>, i: number): { height: number; period: number; direction: number } | null {
  const pick = (prefix: "swell_wave" | "wave") => {
    const height = marine[`${prefix}_height`]?.[i];
    const period = marine[`${prefix}_period`]?.[i];
    const direction = marine[`${prefix}_direction`]?.[i];
    return height != null && period != null && direction != null ? { height, period, direction } : null;
  };
  return pick("swell_wave") ?? pick("wave");
}

/**
 * One hour per time present in both series; an hour missing any essential value (after the swell → wave
 * fallback) is dropped. `tides` is asked once, for the kept hours.
 */
export function assembleDocument(
  marine: LocationSeries,
  forecast: LocationSeries,
  facing: number | null,
  tides: (times: number[]) => (HourTide | null)[],
): StoredForecast {
  const m = marine.hourly.values;
  const f = forecast.hourly.values;
  const forecastIndex = new Map(forecast.hourly.time.map((t, i) => [t, i]));
  const kept: { time: number; fields: Omit<ForecastHour, "time" | "tide" | "rating" | "windDirectionType" | "surf"> & { swells: SwellComponent[]; seaAtBeach: SwellComponent[] } }[] = [];
  marine.hourly.time.forEach((time, i) => {
    const j = forecastIndex.get(time);
    if (j === undefined) return;
    const swell = swellAt(m, i);
    const swells = swellsAt(m, i);
    const waveHeight = m.wave_height?.[i];
    const waterTemperature = m.sea_surface_temperature?.[i];
    const airTemperature = f.temperature_2m?.[j];
    const weatherCode = f.weather_code?.[j];
    const windSpeed = f.wind_speed_10m?.[j];
    const windDirection = f.wind_direction_10m?.[j];
    const windGust = f.wind_gusts_10m?.[j];
    if (!swell || waveHeight == null || waterTemperature == null || airTemperature == null || weatherCode == null) return;
    if (windSpeed == null || windDirection == null || windGust == null) return;
    kept.push({
      time,
      fields: {
        waveHeight,
        swellHeight: swell.height,
        wavePeriod: swell.period,
        waveDirection: degrees(swell.direction),
        windSpeed,
        windDirection: degrees(windDirection),
        windGust,
        airTemperature,
        waterTemperature,
        weatherCode: Math.round(weatherCode),
        swells,
        // Without any component (a model serving the total sea only), the total sea stands in for them.
        seaAtBeach: swells.length > 0 ? swells : [{ kind: "primary", ...swell }],
      },
    });
  });
  const tideAt = tides(kept.map((h) => h.time));
  const hours = kept.map(({ time, fields }, k): ForecastHour => ({
    time: isoUtc(time),
    waveHeight: fields.waveHeight,
    swellHeight: fields.swellHeight,
    wavePeriod: fields.wavePeriod,
    waveDirection: fields.waveDirection,
    windSpeed: fields.windSpeed,
    windDirection: fields.windDirection,
    windGust: fields.windGust,
    windDirectionType: windDirectionType(fields.windDirection, facing),
    airTemperature: fields.airTemperature,
    waterTemperature: fields.waterTemperature,
    weatherCode: fields.weatherCode,
    tide: tideAt[k] ?? null,
    rating: rateHour({
      swellHeight: fields.swellHeight,
      wavePeriod: fields.wavePeriod,
      waveDirection: fields.waveDirection,
      windSpeed: fields.windSpeed,
      windGust: fields.windGust,
      windDirection: fields.windDirection,
      facing,
      breaking: breakingSea(fields.seaAtBeach, facing),
    }),
    swells: fields.swells,
    surf: surfRange(fields.seaAtBeach, facing),
  }));
  return { hours, daily: assembleDaily(forecast) };
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
