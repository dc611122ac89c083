/**
 * High and low waters from an hourly sea-level series (Open-Meteo Marine's `sea_level_height_msl`), with sub-hour
 * timing. Pure. Method (docs/tides.md, "Extremes from an hourly series"):
 *
 * 1. A turning point is a sample (or a run of equal samples: the API rounds to the centimetre, so a slack water can
 *    repeat a value) whose neighbours on both sides are both lower (a high) or both higher (a low). Only runs of
 *    non-null samples are searched; the first and last sample of a run cannot be turning points.
 * 2. Its time and height come from the vertex of the least-squares parabola through the turning sample(s) and one
 *    neighbour on each side — for a single turning sample exactly the classic three-point parabolic interpolation:
 *    offset δ = (y₋ − y₊) / (2 (y₋ − 2y₀ + y₊)) hours, height y₀ − (y₋ − y₊) δ / 4. Near a turning point a tide is
 *    a cosine, which a parabola matches to within a few minutes and millimetres at hourly sampling (tested).
 * 3. Wiggles smaller than MIN_WIGGLE_M (centimetre rounding, surge noise, the vanishing lower-high/higher-low pair of
 *    a mixed tide near neap) are removed pairwise, smallest first, so highs and lows alternate.
 *
 * Times are rounded to the minute, heights to the millimetre.
 */
import { alternating, roundHeight, type PredictedExtreme } from "./prediction";
import { MINUTE_MS } from "../core/clock";

/** A rise or fall smaller than this between consecutive turning points is noise, not a tide. */
export const MIN_WIGGLE_M = 0.03;

/** Vertex of the least-squares parabola through (x, y) points: [x, y], x clamped to the points' span. */
function vertex(xs: number[], ys: number[]): [number, number] {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  // Centred x keeps the normal equations well conditioned.
  let s2 = 0, s3 = 0, s4 = 0, sy = 0, sxy = 0, sx2y = 0;
  for (let i = 0; i < n; i++) {
    const x = xs[i]! - mx;
    const y = ys[i]!;
    s2 += x * x;
    s3 += x * x * x;
    s4 += x * x * x * x;
    sy += y;
    sxy += x * y;
    sx2y += x * x * y;
  }
  // Normal equations with Σx = 0: s3·a + s2·b = Σxy and s2·a + n·c = Σy give b and c from a.
  const a = (sx2y - (s3 * sxy) / s2 - (s2 * sy) / n) / (s4 - (s3 * s3) / s2 - (s2 * s2) / n);
  const b = (sxy - s3 * a) / s2;
  const c = (sy - s2 * a) / n;
  if (!Number.isFinite(a) || a === 0) return [mx, sy / n];
  const xv = Math.min(Math.max(-b / (2 * a), xs[0]! - mx), xs[n - 1]! - mx);
  return [xv + mx, a * xv * xv + b * xv + c];
}

/** Removes the smallest rise/fall between consecutive extremes until none is below MIN_WIGGLE_M. */
function dropWiggles(extremes: PredictedExtreme[]): PredictedExtreme[] {
  const out = alternating(extremes);
  for (;;) {
    let smallest = -1;
    let step = MIN_WIGGLE_M;
    for (let i = 1; i < out.length; i++) {
      const d = Math.abs(out[i]!.height - out[i - 1]!.height);
      if (d < step) (step = d), (smallest = i);
    }
    if (smallest < 0) return out;
    // Inside the series a pair goes (highs and lows keep alternating); at an end only the end point.
    if (smallest === 1) out.splice(0, 1);
    else if (smallest === out.length - 1) out.splice(smallest, 1);
    else out.splice(smallest - 1, 2);
  }
}

/**
 * Highs and lows of an hourly series: `times` epoch ms (evenly spaced), `levels` meters (null = no value), sorted by
 * time and alternating.
 */
export function findExtremes(times: readonly number[], levels: readonly (number | null)[]): PredictedExtreme[] {
  const found: PredictedExtreme[] = [];
  const step = times.length > 1 ? times[1]! - times[0]! : 3_600_000;
  let i = 1;
  while (i < levels.length - 1) {
    const before = levels[i - 1];
    const here = levels[i];
    if (before == null || here == null || here === before) {
      i++;
      continue;
    }
    // The run of samples equal to `here`, then the sample after it.
    let end = i;
    while (end + 1 < levels.length && levels[end + 1] === here) end++;
    const after = levels[end + 1];
    if (after == null) {
      i = end + 1;
      continue;
    }
    const isHigh = here > before && here > after;
    const isLow = here < before && here < after;
    if (isHigh || isLow) {
      const xs: number[] = [];
      const ys: number[] = [];
      for (let k = i - 1; k <= end + 1; k++) xs.push(k), ys.push(levels[k]!);
      const [x, y] = vertex(xs, ys);
      const time = times[0]! + x * step;
      found.push({ time: Math.round(time / MINUTE_MS) * MINUTE_MS, type: isHigh ? "high" : "low", height: roundHeight(y) });
    }
    i = end + 1;
  }
  return dropWiggles(found);
}

/** The largest rise or fall between consecutive extremes (0 with fewer than two). */
export function largestRange(extremes: readonly PredictedExtreme[]): number {
  let range = 0;
  for (let i = 1; i < extremes.length; i++) range = Math.max(range, Math.abs(extremes[i]!.height - extremes[i - 1]!.height));
  return roundHeight(range);
}
