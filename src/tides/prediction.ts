/**
 * Predicted tide series and what is read off them: alternating extremes, and the height and rising/falling at any
 * instant. Pure — the engine (./engine.ts) produces the series.
 */
import type { HourTide } from "./types";

/** A predicted high or low water: epoch ms, meters above the station's datum. */
export interface PredictedExtreme {
  time: number;
  type: "high" | "low";
  height: number;
}

/** A water-level curve sampled every `stepMs` from `startMs`. */
export interface PredictedCurve {
  startMs: number;
  stepMs: number;
  levels: Float64Array;
}

/** Curve sampling step: fine enough that linear interpolation between samples is off by millimetres only. */
export const CURVE_STEP_MS = 600_000;

/**
 * Makes highs and lows alternate. The predictor drops turning points of less than a centimetre one at a time, which
 * can leave two highs (or lows) in a row around a negligible wiggle of a mixed tide: keep the higher high (lower low).
 */
export function alternating(extremes: PredictedExtreme[]): PredictedExtreme[] {
  const out: PredictedExtreme[] = [];
  for (const e of extremes) {
    const last = out.at(-1);
    if (!last || last.type !== e.type) out.push(e);
    else if (e.type === "high" ? e.height > last.height : e.height < last.height) out[out.length - 1] = e;
  }
  return out;
}

/** The curve's level at `t`, interpolated linearly between its samples. */
export function levelAt(curve: PredictedCurve, t: number): number {
  const x = (t - curve.startMs) / curve.stepMs;
  const i = Math.min(Math.max(Math.floor(x), 0), curve.levels.length - 2);
  const a = curve.levels[i]!;
  const b = curve.levels[i + 1]!;
  return a + (x - i) * (b - a);
}

/** The span a curve must cover to answer `tideAt` for every one of `times`. */
export function curveSpan(times: number[]): { start: number; end: number } {
  let start = Infinity;
  let end = -Infinity;
  for (const t of times) (start = Math.min(start, t)), (end = Math.max(end, t));
  return { start: start - CURVE_STEP_MS, end: end + CURVE_STEP_MS };
}

/**
 * The tide at `t`: the curve's height (m, 3 decimals) and its direction of travel — toward the next turning point
 * of the curve (`extremes`, sorted: the roots of h'(t)), so a sub-centimetre wiggle the extremes leave out never
 * contradicts the tide table; the local slope where no turning point follows.
 */
export function tideAt(curve: PredictedCurve, extremes: PredictedExtreme[], t: number): HourTide {
  let lo = 0;
  let hi = extremes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (extremes[mid]!.time <= t) lo = mid + 1;
    else hi = mid;
  }
  const next = extremes[lo];
  const rising = next ? next.type === "high" : levelAt(curve, t + CURVE_STEP_MS) > levelAt(curve, t - CURVE_STEP_MS);
  return { height: roundHeight(levelAt(curve, t)), state: rising ? "rising" : "falling" };
}

export function roundHeight(meters: number): number {
  return Math.round(meters * 1000) / 1000;
}
