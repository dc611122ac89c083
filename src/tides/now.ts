/**
 * The tide at one minute, read off a spot's extremes and a water-level function: height, rising/falling, the next
 * high, the next low and the next turn. Pure, and source-independent: the extremes may come from a station's
 * harmonic prediction or from a modelled sea-level series, as long as `levelAt` is the curve they were found on.
 */
import { roundHeight, type PredictedExtreme } from "./prediction";
import { MINUTE_MS } from "../core/clock";


export interface TideState {
  /** Meters above the datum at `at`, within the range of the extremes around it. */
  height: number;
  /** Toward the next turn: rising when it is a high. */
  state: "rising" | "falling";
  nextHigh: PredictedExtreme;
  nextLow: PredictedExtreme;
  /** The first extreme at or after `at`; `minutesUntil` is 0 during the minute of a turn. */
  nextEvent: PredictedExtreme & { minutesUntil: number };
}

/** Index of the first extreme with `time >= at` (extremes sorted by time). */
function firstFrom(extremes: readonly PredictedExtreme[], at: number): number {
  let lo = 0;
  let hi = extremes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (extremes[mid]!.time < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The tide at `at` (epoch ms, a whole minute: extremes are stored to the minute). "Next" means at or after `at`,
 * as /tides lists extremes from now on, so during the minute of a turn the turn is still next (0 minutes away)
 * and the height is the turn's own. Returns null when `extremes` (sorted by time) do not hold an extreme
 * before `at` and both a high and a low from `at` on: the stored window does not reach that far.
 */
export function tideState(extremes: readonly PredictedExtreme[], at: number, levelAt: (t: number) => number): TideState | null {
  const i = firstFrom(extremes, at);
  const previous = extremes[i - 1];
  const next = extremes[i];
  const upcoming = extremes.slice(i, i + 4);
  const nextHigh = upcoming.find((e) => e.type === "high");
  const nextLow = upcoming.find((e) => e.type === "low");
  if (!previous || !next || !nextHigh || !nextLow) return null;
  const minutesUntil = Math.round((next.time - at) / MINUTE_MS);
  const low = Math.min(previous.height, next.height);
  const high = Math.max(previous.height, next.height);
  // The curve and the minute-rounded extremes can differ by millimetres near a turn: never show a height outside them.
  const height = minutesUntil === 0 ? next.height : roundHeight(Math.min(high, Math.max(low, levelAt(at))));
  return {
    height,
    state: next.type === "high" ? "rising" : "falling",
    nextHigh,
    nextLow,
    nextEvent: { ...next, minutesUntil },
  };
}

/**
 * The water level at `t` between the extremes around it, following half a cosine from one to the next — the usual
 * interpolation of tide tables, for a source that keeps only its extremes (the sea-level model). Before the first or
 * after the last extreme: that extreme's height.
 */
export function cosineLevel(extremes: readonly PredictedExtreme[], t: number): number {
  const i = firstFrom(extremes, t);
  const next = extremes[i];
  const previous = extremes[i - 1];
  if (!previous || !next) return (next ?? previous)?.height ?? 0;
  const phase = (t - previous.time) / (next.time - previous.time);
  return (previous.height + next.height) / 2 + ((previous.height - next.height) / 2) * Math.cos(Math.PI * phase);
}

/**
 * The extremes with, when none comes before `at` (a model window that starts after the last turn), the turn before
 * the first one mirrored from the two that follow: a tide turns about as long before its next turn as after it, to
 * about the height of the turn after. So the tide has a height and a state from the window's first minute. The
 * extremes as given when one comes before `at` or fewer than two follow it.
 */
export function withTurnBefore(extremes: readonly PredictedExtreme[], at: number): readonly PredictedExtreme[] {
  const [next, after] = extremes;
  if (!next || !after || next.time < at) return extremes;
  // Never at or after `at` (a short interval after a long one, in a mixed tide): the minute before it then.
  const time = Math.min(next.time - (after.time - next.time), at - MINUTE_MS);
  return [{ type: after.type, time, height: after.height }, ...extremes];
}
