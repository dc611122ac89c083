/**
 * "Where to surf now": spots within a radius ranked by their best window for one level over the next hours
 * (`GET /v1/spots/best`, MCP `best_spots`). The per-spot rule and the ranking are pure; the service reads the
 * catalog's spatial index and the prepared forecast documents (no I/O when they are cached). Rules:
 * docs/forecast.md ("Where to surf now").
 */
import { HOUR_MS, utcHourStart, type Clock } from "../core/clock";
import { allOf, andThen, type MaybePromise } from "../core/maybe-promise";
import type { BestSpotsParams } from "../core/params";
import { forMcp, integer, nullable, nullableStringEnum, ref, stringEnum, t, type Static } from "../core/shapes";
import { SpotWithDistanceSchema, type SpotWithDistance } from "../spots/types";
import { bestRun, CONFIDENCE_LEVELS, CONFIDENCE_SCORE, confidenceScore, daylightOf, inDaylight, type Level } from "./best";
import type { StoredForecast } from "./document";
import { BestWindowSchema, CONFIDENCE_LEVELS_SUREST_FIRST, SurfRangeSchema, WIND_DIRECTION_TYPES, type WindDirectionType } from "./types";
import { UNITS } from "../core/units";
import { surfIn } from "./units";

const WIND_TYPES: readonly (WindDirectionType | null)[] = [null, "onshore", "cross", "offshore"];
const LEVEL_INDEX: Record<Level, number> = { beginner: 0, intermediate: 1, advanced: 2 };

/** What ranking needs of a stored document, in typed arrays (~8 bytes an hour): built once per document. */
export interface Outlook {
  times: Float64Array;
  /** Three per hour: beginner, intermediate, advanced. */
  ratings: Uint8Array;
  /** 1 when the hour is in daylight (forecast/best.ts `inDaylight`, any day's light). */
  lit: Uint8Array;
  /** NaN where the hour has no surf range (documents stored before it existed). */
  surfMin: Float32Array;
  surfMax: Float32Array;
  /** Index into WIND_TYPES. */
  wind: Uint8Array;
  /** The models' agreement per hour as forecast/best.ts scores it (0 low, 1 medium, 2 high). */
  confidence: Uint8Array;
}

export function outlookOf(stored: StoredForecast): Outlook {
  const n = stored.hours.length;
  const out: Outlook = {
    times: new Float64Array(n),
    ratings: new Uint8Array(n * 3),
    lit: new Uint8Array(n),
    surfMin: new Float32Array(n),
    surfMax: new Float32Array(n),
    wind: new Uint8Array(n),
    confidence: new Uint8Array(n),
  };
  const lights = stored.daily.flatMap((d) => {
    const light = daylightOf(d);
    return light ? [light] : [];
  });
  stored.hours.forEach((h, i) => {
    const time = Date.parse(h.time);
    out.times[i] = time;
    out.ratings.set([h.rating.beginner, h.rating.intermediate, h.rating.advanced], i * 3);
    out.lit[i] = lights.some((light) => inDaylight(time, light)) ? 1 : 0;
    out.surfMin[i] = h.surf?.min ?? NaN;
    out.surfMax[i] = h.surf?.max ?? NaN;
    out.wind[i] = WIND_TYPES.indexOf(h.windDirectionType);
    out.confidence[i] = confidenceScore(h.confidence?.level);
  });
  return out;
}

export const BestSpotSchema = t.Object(
  {
    spot: ref("SpotWithDistance", SpotWithDistanceSchema),
    rating: forMcp(integer({ minimum: 1, maximum: 5, description: "The best window's rating for the level; 1 when no daylight hour rates above 1." }), { bounds: true }),
    best: forMcp(nullable(ref("BestWindow", BestWindowSchema)), { description: "Best run of daylight hours; null when nothing rates above 1." }),
    surf: nullable(ref("SurfRange", SurfRangeSchema)),
    units: stringEnum(UNITS, { description: "The units of `surf`, as asked with `units` (metric by default)." }),
    windDirectionType: nullableStringEnum(WIND_DIRECTION_TYPES, {
      description: "Wind relative to the spot's facing at the window's first hour (or the first hour when there is no window).",
    }),
    confidence: stringEnum(CONFIDENCE_LEVELS_SUREST_FIRST, {
      description: "How far the wave models agree over the window (or the first hour): its least sure hour's level (`medium` for forecasts stored before confidence existed). Between spots of the same rating, the surer window ranks first.",
    }),
  },
  {
    description:
      "One spot of `GET /v1/spots/best` (beyond the spec): its best window for the level over the hours asked, the surf range over that window (or the first hour when there is none) and the wind type.",
  },
);

export type BestSpot = Static<typeof BestSpotSchema>;
/** One spot's part of its answer, in meters: everything but the spot and the units. */
export type SpotOutlook = Omit<BestSpot, "spot" | "units">;

/** One spot over [from, to): null when its document has no hour in that span (it is left out of the ranking). */
export function spotOutlook(o: Outlook, from: number, to: number, level: Level): SpotOutlook | null {
  const { times, lit, ratings } = o;
  let first = 0;
  while (first < times.length && times[first]! < from) first++;
  let last = first;
  while (last < times.length && times[last]! < to) last++;
  if (first === last) return null;
  const candidates: number[] = [];
  for (let i = first; i < last; i++) if (lit[i]) candidates.push(i);
  const column = LEVEL_INDEX[level];
  const best = bestRun(candidates.length, (k) => times[candidates[k]!]!, (k) => ratings[candidates[k]! * 3 + column]!, (k) => o.confidence[candidates[k]!]!);
  // The hours the surf range and the wind type describe: the window's, or the first hour's.
  let windowStart = first;
  let windowEnd = first + 1;
  if (best) {
    const start = Date.parse(best.start);
    const end = Date.parse(best.end);
    while (times[windowStart]! < start) windowStart++;
    windowEnd = windowStart;
    while (windowEnd < last && times[windowEnd]! < end) windowEnd++;
  }
  let min = Infinity;
  let max = -Infinity;
  let leastSure = 2;
  for (let i = windowStart; i < windowEnd; i++) {
    leastSure = Math.min(leastSure, o.confidence[i]!);
    if (Number.isNaN(o.surfMin[i]!)) continue;
    min = Math.min(min, o.surfMin[i]!);
    max = Math.max(max, o.surfMax[i]!);
  }
  const surf = min <= max ? { min: roundSurf(min), max: roundSurf(max) } : null;
  return { rating: best?.rating ?? 1, best, surf, windDirectionType: WIND_TYPES[o.wind[windowStart]!] ?? null, confidence: CONFIDENCE_LEVELS[leastSure]! };
}


/** Surf values are stored in 0.1 m steps; Float32 storage is undone here. */
const roundSurf = (m: number) => Math.round(m * 100) / 100;

/** Best rating first, then the window the wave models agree on more, then the closer spot, then the id. */
export function rankBestSpots<E extends Omit<BestSpot, "units">>(entries: E[], limit: number): E[] {
  const sureness = (e: E) => CONFIDENCE_SCORE[e.confidence];
  return entries
    .sort((a, b) => b.rating - a.rating || sureness(b) - sureness(a) || a.spot.distanceKm - b.spot.distanceKm || (a.spot.id < b.spot.id ? -1 : a.spot.id > b.spot.id ? 1 : 0))
    .slice(0, limit);
}

export class BestSpotsService {
  constructor(
    private readonly spots: { nearby(p: BestSpotsParams): readonly SpotWithDistance[] },
    private readonly forecasts: { outlook(spot: SpotWithDistance): MaybePromise<Outlook | null> },
    private readonly clock: Clock,
  ) {}

  /** The ids of the spots a search looks at, nearest first (the refresh scope fetches those without a forecast). */
  candidates(p: BestSpotsParams): string[] {
    return this.spots.nearby({ ...p, limit: Infinity }).map((s) => s.id);
  }

  /** Spots within the radius that have a forecast, ranked for `level` over the next `hours` from the current UTC hour. */
  find(p: BestSpotsParams): MaybePromise<BestSpot[]> {
    const from = utcHourStart(this.clock.now());
    const to = from + p.hours * HOUR_MS;
    const spots = this.spots.nearby({ ...p, limit: Infinity });
    return andThen(allOf(spots.map((spot) => this.forecasts.outlook(spot))), (outlooks) => {
      const entries: Omit<BestSpot, "units">[] = [];
      spots.forEach((spot, i) => {
        const outlook = outlooks[i];
        const found = outlook && spotOutlook(outlook, from, to, p.level);
        if (found) entries.push({ spot, ...found });
      });
      // Ranked in meters (ratings and windows do not depend on units), then shown in the units asked for.
      return rankBestSpots(entries, p.limit).map((e) => ({ ...e, surf: e.surf && surfIn(e.surf, p.units), units: p.units }));
    });
  }
}
