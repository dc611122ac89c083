/** Tide height and rising/falling at given instants, read off one predicted curve. Pure. */
import type { HourTide } from "../forecast/types";
import type { PredictedCurve } from "./engine";

/** Curve sampling step: fine enough that linear interpolation between samples is off by millimetres only. */
export const CURVE_STEP_MS = 600_000;

function levelAt(curve: PredictedCurve, t: number): number {
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

/** Height (m, 3 decimals) at `t`; the state is the sign of the curve's slope around `t` (a central difference). */
export function tideAt(curve: PredictedCurve, t: number): HourTide {
  const rising = levelAt(curve, t + CURVE_STEP_MS) > levelAt(curve, t - CURVE_STEP_MS);
  return { height: roundHeight(levelAt(curve, t)), state: rising ? "rising" : "falling" };
}

export function roundHeight(meters: number): number {
  return Math.round(meters * 1000) / 1000;
}
