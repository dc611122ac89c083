/**
 * What an embed shows of one spot, assembled from the same services as /v1 (now, forecast, tides): the "now"
 * answer, the chart's data in display units and local time, the 3-hourly table, and where the data comes from.
 * `chartData` is pure; `spotPicture` only reads the services.
 */
import { ApiError } from "../core/errors";
import type { ForecastService } from "../forecast/service";
import type { ForecastHour, ForecastResponse } from "../forecast/types";
import { daylightOf, LEVELS } from "../forecast/best";
import type { NowService } from "../now/service";
import type { NowResponse } from "../now/types";
import { heightIn, UNIT_LABELS, type Units } from "../core/units";
import { hourIn } from "../forecast/units";
import type { SpotService } from "../spots/service";
import type { Spot } from "../spots/types";
import type { TideService } from "../tides/service";
import type { TidesResponse } from "../tides/types";
import type { ChartData } from "./chart";
import { tidePoints } from "./geometry";
import { localDays } from "../core/local-time";
import { HOUR_MS } from "../core/clock";

import { fill, stringsOf } from "./lang";

export interface SpotPicture {
  spot: Spot;
  now: NowResponse;
  /** The hours from the current one, in display units; empty without a forecast. */
  hours: ForecastHour[];
  chart: ChartData | null;
  /** Upcoming high and low waters over the week, in display units. */
  extremes: { type: "high" | "low"; time: number; height: number }[];
  /** Where the tides come from, for the credits; null for a tideless spot. */
  tideSource: string | null;
  tideless: boolean;
  units: Units;
  /** The language of its words, dates and numbers (./lang/). */
  lang: string;
}

/** The chart's data: hours and tides in display units, the light of each day, the best windows, local days. Pure. */
export function chartData(forecast: ForecastResponse, hours: readonly ForecastHour[], extremes: SpotPicture["extremes"], units: Units, timeZone: string, lang: string): ChartData | null {
  if (hours.length === 0) return null;
  const times = hours.map((h) => Date.parse(h.time));
  const withSurf = hours.every((h) => h.surf !== undefined);
  const labels = UNIT_LABELS[units];
  return {
    start: times[0]!,
    end: times.at(-1)! + HOUR_MS,
    hours: hours.map((h, i) => ({
      time: times[i]!,
      low: withSurf ? h.surf!.min : 0,
      high: withSurf ? h.surf!.max : h.waveHeight,
      period: h.wavePeriod,
      wind: h.windSpeed,
      windDirection: h.windDirection,
      windType: h.windDirectionType,
    })),
    tide: tidePoints(
      hours.flatMap((h, i) => (h.tide ? [{ time: times[i]!, value: h.tide.height }] : [])),
      extremes.map((e) => ({ time: e.time, value: e.height })),
    ),
    extremes: extremes.map((e) => ({ time: e.time, value: e.height, type: e.type })),
    light: forecast.daily.flatMap((d) => {
      const light = daylightOf(d);
      return light ? [light] : [];
    }),
    best: forecast.daily.flatMap((d) =>
      LEVELS.flatMap((level) => {
        const w = d.best?.[level];
        return w ? [{ level, start: Date.parse(w.start), end: Date.parse(w.end), rating: w.rating }] : [];
      }),
    ),
    days: localDays(times, timeZone, lang),
    heightUnit: labels.height,
    speedUnit: labels.speed,
    withSurf,
    lang,
  };
}

function tideSourceOf(tides: TidesResponse, lang: string): string | null {
  const s = stringsOf(lang);
  if (tides.source?.type === "station") return fill(s.tideStation, { name: tides.source.name, provider: tides.source.provider, datum: tides.datum ?? s.chartDatum });
  if (tides.source?.type === "model") return fill(s.tideModel, { name: tides.source.name });
  return null;
}

export interface PictureServices {
  spots: Pick<SpotService, "get">;
  now: Pick<NowService, "get">;
  forecasts: Pick<ForecastService, "get">;
  tides: Pick<TideService, "get">;
}

/** One spot as an embed shows it, read from the services /v1 answers from. */
export async function spotPicture(services: PictureServices, spotId: string, units: Units, lang: string): Promise<SpotPicture> {
  const spot = services.spots.get(spotId);
  const now = (await services.now.get(spot.id, units)).response;
  let forecast: ForecastResponse | null = null;
  try {
    forecast = JSON.parse((await services.forecasts.get(spot.id, 7)).body) as ForecastResponse;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err; // no forecast yet, or it has expired: the page says so
  }
  const tides = await services.tides.get(spot.id, 7);
  const extremes = tides.extremes.map((e) => ({ type: e.type, time: Date.parse(e.time), height: heightIn(e.height, units) }));
  const hours = forecast ? forecast.hours.map((h) => hourIn(h, units)) : [];
  return {
    spot,
    now,
    hours,
    chart: forecast ? chartData(forecast, hours, extremes, units, spot.timezone, lang) : null,
    extremes,
    tideSource: tideSourceOf(tides, lang),
    tideless: tides.tideless,
    units,
    lang,
  };
}
