/**
 * Best windows: per surfer level, the best run of consecutive daylight hours. Pure; the rule is documented in
 * docs/forecast.md ("Best windows") and table-tested in best.test.ts.
 */
import type { BestWindow, ConfidenceLevel, DailyWeather, DayBest, Level, Rating } from "./types";
import { HOUR_MS, isoUtc } from "../core/clock";

export type { BestWindow, DayBest, Level };
export const LEVELS: readonly Level[] = ["beginner", "intermediate", "advanced"];

/** An hour as the rule needs it: its start (epoch ms), its ratings and how far the wave models agree on it. */
export interface RatedHour {
  time: number;
  rating: Rating;
  confidence?: ConfidenceLevel;
}

/** The levels from least to most sure; a level's index is its score. */
export const CONFIDENCE_LEVELS = ["low", "medium", "high"] as const satisfies readonly ConfidenceLevel[];
/** The models' agreement as a score a window sums: an hour without it (stored before it existed) counts as medium. */
export const CONFIDENCE_SCORE = Object.fromEntries(CONFIDENCE_LEVELS.map((level, score) => [level, score])) as Record<ConfidenceLevel, number>;
export const confidenceScore = (level: ConfidenceLevel | undefined) => CONFIDENCE_SCORE[level ?? "medium"];


/** A day's light: [sunrise, sunset] in epoch ms; null on days without both (polar day or night). */
export function daylightOf(day: Pick<DailyWeather, "sunrise" | "sunset">): [number, number] | null {
  if (day.sunrise === null || day.sunset === null) return null;
  return [Date.parse(day.sunrise), Date.parse(day.sunset)];
}

/** An hour is in daylight when its middle lies between sunrise and sunset (inclusive): it is mostly light. */
export function inDaylight(hourStart: number, light: readonly [number, number]): boolean {
  const middle = hourStart + HOUR_MS / 2;
  return middle >= light[0] && middle <= light[1];
}

/**
 * The best window among `hours` (sorted by time, already limited to the candidates): the highest rating any of
 * them has for `level`, then the longest run of consecutive hours (one hour apart) at that rating; of equally long
 * runs the one the wave models agree on most (the sum of its hours' confidence scores), then the earliest. Null
 * when no hour rates above 1.
 */
export function bestWindow(hours: readonly RatedHour[], level: Level): BestWindow | null {
  return bestRun(hours.length, (i) => hours[i]!.time, (i) => hours[i]!.rating[level], (i) => confidenceScore(hours[i]!.confidence));
}

/** `bestWindow` over candidates given by accessors (no allocation per hour: the ranking calls it per spot). */
export function bestRun(count: number, timeAt: (i: number) => number, ratingAt: (i: number) => number, scoreAt: (i: number) => number): BestWindow | null {
  let top = 1;
  for (let i = 0; i < count; i++) top = Math.max(top, ratingAt(i));
  if (top <= 1) return null;
  let bestFrom = 0;
  let bestTo = -1;
  let bestScore = -1;
  let runFrom = 0;
  let runTo = -Infinity;
  let runScore = 0;
  for (let i = 0; i < count; i++) {
    if (ratingAt(i) !== top) {
      runTo = -Infinity;
      continue;
    }
    const time = timeAt(i);
    if (time !== runTo + HOUR_MS) (runFrom = time), (runScore = 0);
    runTo = time;
    runScore += scoreAt(i);
    const longer = runTo - runFrom > bestTo - bestFrom;
    const asLongMoreSure = runTo - runFrom === bestTo - bestFrom && runScore > bestScore;
    if (bestTo < 0 || longer || asLongMoreSure) (bestFrom = runFrom), (bestTo = runTo), (bestScore = runScore);
  }
  return { start: isoUtc(bestFrom), end: isoUtc(bestTo + HOUR_MS), rating: top };
}

/** Per level, the best window among the day's daylight hours; every level null on a day without sunrise or sunset. */
export function dayBest(hours: readonly RatedHour[], day: Pick<DailyWeather, "sunrise" | "sunset">): DayBest {
  const light = daylightOf(day);
  const lit = light ? hours.filter((h) => inDaylight(h.time, light)) : [];
  return { beginner: bestWindow(lit, "beginner"), intermediate: bestWindow(lit, "intermediate"), advanced: bestWindow(lit, "advanced") };
}
