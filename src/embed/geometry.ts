/**
 * Chart geometry, pure: scales, SVG path data, the tide curve's points and the nights between sunsets and
 * sunrises. No markup and no I/O here (chart.ts draws with these); table-tested in chart.test.ts.
 */

export type Point = readonly [x: number, y: number];

/** A linear map from [d0, d1] onto [r0, r1] (a flat domain maps everything to r0). */
export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const span = d1 - d0;
  return span === 0 ? () => r0 : (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

/** The smallest "nice" number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten) at or above `max`; `floor` when max is below it. */
export function niceCeil(max: number, floor = 1): number {
  if (!(max > floor)) return floor;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * power).find((n) => n >= max - 1e-9)!;
}

/** Evenly spaced tick values from 0 to `top` inclusive, `count` steps. */
export function ticks(top: number, count: number): number[] {
  return Array.from({ length: count + 1 }, (_, i) => (top * i) / count);
}

/** A coordinate as SVG writes it: one decimal, no trailing ".0", no "-0". */
export function coord(v: number): string {
  const r = Math.round(v * 10) / 10;
  return String(r === 0 ? 0 : r);
}

/** "M x y L x y …" through the points; "" for none. */
export function linePath(points: readonly Point[]): string {
  return points.map(([x, y], i) => `${i === 0 ? "M" : "L"}${coord(x)} ${coord(y)}`).join("");
}

/** A closed band: along `upper` left to right, back along `lower` right to left. */
export function bandPath(upper: readonly Point[], lower: readonly Point[]): string {
  if (upper.length === 0) return "";
  return `${linePath(upper)}${lower
    .toReversed()
    .map(([x, y]) => `L${coord(x)} ${coord(y)}`)
    .join("")}Z`;
}

export interface TimedValue {
  time: number;
  value: number;
}

/**
 * The tide curve's points: the hourly predicted heights with the high and low waters put in at their exact
 * minutes (an hour that coincides with an extreme gives way to it), so the drawn curve passes through every
 * extreme. Sorted by time.
 */
export function tidePoints(hourly: readonly TimedValue[], extremes: readonly TimedValue[]): TimedValue[] {
  const at = new Set(extremes.map((e) => e.time));
  return [...hourly.filter((h) => !at.has(h.time)), ...extremes].sort((a, b) => a.time - b.time);
}

/**
 * The nights within [start, end]: the complement of the days' light ([sunrise, sunset], sorted). A day without
 * sunrise or sunset (polar day or night) is left out of `light`; the span around it counts as night only when
 * it lies between two known nights, which is the best a forecast's daily rows can say.
 */
export function nights(light: readonly (readonly [number, number])[], start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  let dark = start;
  for (const [rise, set] of light) {
    if (set <= start || rise >= end) continue;
    if (rise > dark) out.push([dark, Math.min(rise, end)]);
    dark = Math.max(dark, set);
  }
  if (dark < end) out.push([dark, end]);
  return out;
}
