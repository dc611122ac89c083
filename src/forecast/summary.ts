/**
 * The surf summary (MCP `surf_summary`): a forecast and its tides condensed to a few hundred tokens per week —
 * per day the surf range and wind over the daylight hours, the best windows per level, the tides and the sun.
 * Pure: served responses in, a compact object and its text out (docs/mcp.md, "surf_summary").
 */
import type { MaybePromise } from "../core/maybe-promise";
import { forMcp, nullable, nullableStringEnum, stringEnum, t, type Static } from "../core/shapes";
import { TideExtremeSchema, type TidesResponse } from "../tides/types";
import { daylightOf, inDaylight, LEVELS, type Level } from "./best";
import { BestWindowSchema, CONFIDENCE_LEVELS_SUREST_FIRST, SurfRangeSchema, WIND_DIRECTION_TYPES, type ForecastHour, type ForecastResponse } from "./types";
import { DEMO_ATTRIBUTION } from "./demo";
import { LocalClock } from "../core/local-time";
import { UNIT_LABELS, UNITS, type Units } from "../core/units";
import { tidesIn } from "../tides/units";

/** A level not asked for is absent; tools/list names the three all the same. */
const levelBest = forMcp(t.Optional(nullable(BestWindowSchema)), { listed: true });

/** No /v1 endpoint serves it: the MCP tool's output schema is converted from it. */
export const SurfSummarySchema = t.Object({
  spot: t.Object({ id: t.String(), name: t.String(), country: t.String(), timezone: t.String() }),
  units: stringEnum(UNITS),
  days: t.Array(
    t.Object({
      date: t.String(),
      sunrise: nullable(t.String()),
      sunset: nullable(t.String()),
      /** Over the day's daylight hours still ahead (all its hours when it has no sunrise or sunset); null without surf data. */
      surf: nullable(SurfRangeSchema),
      /** Sustained wind over the same hours, km/h (mph in imperial), and the most frequent wind type. */
      wind: nullable(t.Object({ min: t.Number(), max: t.Number(), type: nullableStringEnum(WIND_DIRECTION_TYPES) })),
      /** How far the wave models agree over the same hours: the most frequent level; null for hours stored without it. */
      confidence: nullable(stringEnum(CONFIDENCE_LEVELS_SUREST_FIRST)),
      /** Per level asked: the day's best window (forecast/best.ts), or null. */
      best: t.Object({ beginner: levelBest, intermediate: levelBest, advanced: levelBest }),
      /** High and low waters of the day, by the spot's local date. */
      tides: t.Array(TideExtremeSchema),
    }),
  ),
  attribution: t.String(),
});

export type SurfSummary = Static<typeof SurfSummarySchema>;
export type SummaryDay = SurfSummary["days"][number];

const m = (x: number) => (Math.round(x * 10) / 10).toFixed(1);

function mostFrequent<T extends string>(values: (T | null | undefined)[]): T | null {
  const counts = new Map<T, number>();
  for (const t of values) if (t) counts.set(t, (counts.get(t) ?? 0) + 1);
  let best: T | null = null;
  for (const [t, n] of counts) if (!best || n > counts.get(best)!) best = t;
  return best;
}

function range(hours: readonly ForecastHour[]): Pick<SummaryDay, "surf" | "wind" | "confidence"> {
  const surfs = hours.flatMap((h) => (h.surf ? [h.surf] : []));
  const surf = surfs.length ? { min: Math.min(...surfs.map((s) => s.min)), max: Math.max(...surfs.map((s) => s.max)) } : null;
  const speeds = hours.map((h) => h.windSpeed);
  const wind = hours.length ? { min: Math.min(...speeds), max: Math.max(...speeds), type: mostFrequent(hours.map((h) => h.windDirectionType)) } : null;
  return { surf, wind, confidence: mostFrequent(hours.map((h) => h.confidence?.level)) };
}

export function summarize(
  spot: { id: string; name: string; country: string; timezone: string },
  forecast: ForecastResponse,
  tides: TidesResponse,
  levels: readonly Level[] = LEVELS,
): SurfSummary {
  // A UTC date's sunrise falls on the same local date (Bali's 21 Nov sunrise is 20 Nov 21:49Z, 21 Nov locally),
  // so the day's tides are those of its local date.
  const clock = new LocalClock(spot.timezone);
  const localDate = (iso: string) => clock.at(iso).date;
  const days = forecast.daily.map((day): SummaryDay => {
    const light = daylightOf(day);
    // A day is its daylight (which may straddle two UTC dates, as in Hawaii); without sunrise or sunset, its UTC date.
    const hours = forecast.hours.filter((h) => (light ? inDaylight(Date.parse(h.time), light) : h.time.startsWith(day.date)));
    return {
      date: day.date,
      sunrise: day.sunrise,
      sunset: day.sunset,
      ...range(hours),
      best: Object.fromEntries(levels.map((level) => [level, day.best?.[level] ?? null])),
      tides: tides.extremes.filter((e) => localDate(e.time) === day.date).map((e) => ({ type: e.type, time: e.time, height: e.height })),
    };
  });
  return { spot, units: forecast.units, days, attribution: forecast.demo ? DEMO_ATTRIBUTION : "Open-Meteo.com, CC BY 4.0" };
}

const LEVEL_LETTER: Record<Level, string> = { beginner: "B", intermediate: "I", advanced: "A" };

/**
 * The summary as lines of text: about 200 bytes a day, one header and one attribution line; `season`, a clause on
 * the spot's season (climate/season.ts) when the month is among its best, ends the header.
 */
export function summaryText(s: SurfSummary, season: string | null = null): string {
  const levels = Object.keys(s.days[0]?.best ?? {}) as Level[];
  const unit = UNIT_LABELS[s.units];
  const first = s.days[0]?.sunrise ?? s.days[0]?.tides[0]?.time;
  const clock = new LocalClock(s.spot.timezone, first && s.days.at(-1)?.sunset ? [first, s.days.at(-1)!.sunset!] : undefined);
  const hhmm = (iso: string | null) => (iso ? clock.at(iso).time : "—");
  const header =
    `${s.spot.name}, ${s.spot.country} (${s.spot.id}). Times are local (${first ? clock.describe(first) : clock.zone}). ` +
    `Per day: surf = breaking face height at the beach over daylight, ${unit.height}; wind ${unit.speed} over daylight; how far the wave models agree on the wave height (high, medium, low); tides of the local day, ${unit.height}; best = rating 1-5 and window per level ` +
    `(${levels.map((l) => `${LEVEL_LETTER[l]} ${l}`).join(", ")}; - = nothing above 1).${season ? ` ${season}.` : ""}`;
  const lines = s.days.map((d) => {
    const surf = d.surf ? `surf ${m(d.surf.min)}-${m(d.surf.max)}` : "surf ?";
    const wind = d.wind ? `wind ${Math.round(d.wind.min)}-${Math.round(d.wind.max)}${d.wind.type ? ` ${d.wind.type}` : ""}` : "wind ?";
    const sure = d.confidence ? ` | models agree: ${d.confidence}` : "";
    const best = levels.map((l) => {
      const w = d.best[l];
      return `${LEVEL_LETTER[l]} ${w ? `${w.rating} ${hhmm(w.start)}-${hhmm(w.end)}` : "-"}`;
    });
    const tides = d.tides.length ? d.tides.map((t) => `${t.type === "high" ? "H" : "L"} ${hhmm(t.time)} ${m(t.height)}`).join(", ") : "none";
    return `${d.date}: ${surf} | ${wind}${sure} | best ${best.join(", ")} | tides ${tides} | sun ${hhmm(d.sunrise)}-${hhmm(d.sunset)}`;
  });
  return [header, ...lines, `Data: ${s.attribution}.`].join("\n");
}

/** The surf summary of one spot over `days` (throws `not_found` or `no_forecast` like the forecast it reads). */
export class SurfSummaryService {
  constructor(
    private readonly spots: { get(id: string): { id: string; name: string; country: string; timezone: string } },
    private readonly forecasts: { get(id: string, days: number, units: Units): MaybePromise<{ body: string }> },
    private readonly tides: { get(id: string, days: number): MaybePromise<TidesResponse> },
  ) {}

  async get(spotId: string, days: number, level?: Level, units: Units = "metric"): Promise<SurfSummary> {
    const spot = this.spots.get(spotId);
    const forecast = JSON.parse((await this.forecasts.get(spot.id, days, units)).body) as ForecastResponse;
    const { id, name, country, timezone } = spot;
    return summarize({ id, name, country, timezone }, forecast, tidesIn(await this.tides.get(spot.id, days), units), level ? [level] : LEVELS);
  }
}
