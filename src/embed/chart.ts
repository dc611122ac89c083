/**
 * The 7-day picture of one spot as inline SVG: surf (or wave) height band with the swell period, wind speed with
 * direction arrows coloured by wind type, the tide curve, night shading and the best windows per level. The
 * numbers come from `chartGeometry` (pure, tested); `chartSvg` only writes them as markup. Colours live in the
 * stylesheet (classes), so themes and print need no second drawing.
 */
import { html } from "ghtml";
import type { WindDirectionType } from "../forecast/types";
import type { Level } from "../forecast/best";
import { bandPath, coord, linear, linePath, niceCeil, nights, ticks, type Point, type TimedValue } from "./geometry";
import { fill, stringsOf } from "./lang";
import { LocalFormat } from "../core/local-time";

export interface ChartHour {
  time: number;
  /** The band's bottom and top: the surf range, or 0..wave height when the hour has no surf range. */
  low: number;
  high: number;
  period: number;
  wind: number;
  windDirection: number;
  windType: WindDirectionType | null;
}

export interface ChartData {
  /** First hour and the end of the last one (epoch ms). */
  start: number;
  end: number;
  hours: ChartHour[];
  /** The tide curve (tidePoints) and its extremes, in display units. */
  tide: TimedValue[];
  extremes: (TimedValue & { type: "high" | "low" })[];
  /** [sunrise, sunset] of each day. */
  light: [number, number][];
  best: { level: Level; start: number; end: number; rating: number }[];
  /** The local days the chart touches: the midnight each begins at (the first may lie before `start`) and its name. */
  days: { midnight: number; label: string }[];
  heightUnit: string;
  speedUnit: string;
  /** Whether the band is the surf range (else the wave height). */
  withSurf: boolean;
  /** The language of its words and numbers (./lang/). */
  lang: string;
}

export const WIDTH = 1000;
export const HEIGHT = 384;
const LEFT = 84;
const RIGHT = 944;
/** Panels, top and bottom (SVG y grows downward). */
export const PANELS = { best: [4, 40], surf: [54, 170], wind: [196, 266], tide: [292, 352] } as const;
const LEVEL_ROWS: Record<Level, number> = { beginner: 0, intermediate: 1, advanced: 2 };
const ARROW_EVERY_HOURS = 3;
const LABELLED_DAY_MS = 6 * 3_600_000;

export interface ChartGeometry {
  x: (t: number) => number;
  surfTop: number;
  periodTop: number;
  windTop: number;
  tideRange: [number, number];
  band: string;
  period: string;
  wind: string;
  arrows: { x: number; y: number; rotate: number; type: WindDirectionType | null }[];
  tide: string;
  extremes: { x: number; y: number; type: "high" | "low"; value: number }[];
  nights: { x: number; width: number }[];
  best: { x: number; y: number; width: number; rating: number; level: Level }[];
  /** Lines at the local midnights within the chart. */
  midnights: number[];
  /** Day names, centred on the part of the day the chart shows, for days shown at least 6 hours. */
  dayLabels: { x: number; label: string }[];
}

export function chartGeometry(d: ChartData): ChartGeometry {
  const x = linear(d.start, d.end, LEFT, RIGHT);
  const at = (t: number) => Math.min(RIGHT, Math.max(LEFT, x(t)));
  const surfTop = niceCeil(Math.max(0, ...d.hours.map((h) => h.high)));
  const periodTop = niceCeil(Math.max(0, ...d.hours.map((h) => h.period)), 10);
  const windTop = niceCeil(Math.max(0, ...d.hours.map((h) => h.wind)), 10);
  const ySurf = linear(0, surfTop, PANELS.surf[1], PANELS.surf[0]);
  const yPeriod = linear(0, periodTop, PANELS.surf[1], PANELS.surf[0]);
  const yWind = linear(0, windTop, PANELS.wind[1], PANELS.wind[0]);
  const heights = d.tide.map((p) => p.value);
  const tideRange: [number, number] = heights.length ? [Math.min(...heights), Math.max(...heights)] : [0, 0];
  const yTide = linear(tideRange[0], tideRange[1], PANELS.tide[1], PANELS.tide[0]);
  // An hour's values are drawn at its middle: the band covers the hour it describes.
  const mid = (h: ChartHour) => x(h.time + 1_800_000);
  const upper: Point[] = d.hours.map((h) => [mid(h), ySurf(h.high)]);
  const lower: Point[] = d.hours.map((h) => [mid(h), ySurf(h.low)]);
  const rowHeight = (PANELS.best[1] - PANELS.best[0]) / 3;
  return {
    x,
    surfTop,
    periodTop,
    windTop,
    tideRange,
    band: bandPath(upper, lower),
    period: linePath(d.hours.map((h) => [mid(h), yPeriod(h.period)])),
    wind: linePath(d.hours.map((h) => [mid(h), yWind(h.wind)])),
    arrows: d.hours
      .filter((h) => Math.round((h.time - d.start) / 3_600_000) % ARROW_EVERY_HOURS === 1)
      // The arrow points where the wind blows to: the meteorological direction is where it comes from.
      .map((h) => ({ x: mid(h), y: yWind(h.wind), rotate: (h.windDirection + 180) % 360, type: h.windType })),
    tide: linePath(d.tide.filter((p) => p.time >= d.start && p.time <= d.end).map((p) => [x(p.time), yTide(p.value)])),
    extremes: d.extremes.filter((e) => e.time >= d.start && e.time <= d.end).map((e) => ({ x: x(e.time), y: yTide(e.value), type: e.type, value: e.value })),
    nights: nights(d.light, d.start, d.end).map(([a, b]) => ({ x: x(a), width: x(b) - x(a) })),
    best: d.best
      .filter((b) => b.end > d.start && b.start < d.end)
      .map((b) => ({ x: at(b.start), y: PANELS.best[0] + LEVEL_ROWS[b.level] * rowHeight, width: at(b.end) - at(b.start), rating: b.rating, level: b.level })),
    midnights: d.days.filter((day) => day.midnight > d.start && day.midnight < d.end).map((day) => x(day.midnight)),
    dayLabels: d.days.flatMap((day, i) => {
      const from = Math.max(day.midnight, d.start);
      const to = Math.min(d.days[i + 1]?.midnight ?? d.end, d.end);
      return to - from >= LABELLED_DAY_MS ? [{ x: x((from + to) / 2), label: day.label }] : [];
    }),
  };
}

function axis(top: number, panel: readonly [number, number], side: "left" | "right", unit: string, fmt: (v: number) => string): string {
  const y = linear(0, top, panel[1], panel[0]);
  const at = side === "left" ? LEFT - 6 : RIGHT + 6;
  return ticks(top, 2)
    .map((v) => html`<text class="tick" x="${at}" y="${coord(y(v) + 4)}" text-anchor="${side === "left" ? "end" : "start"}">${fmt(v)}${v === top ? ` ${unit}` : ""}</text>`)
    .join("");
}

/** The chart of one spot; `id` makes its element ids unique in a page of several spots. */
export function chartSvg(d: ChartData, id: string, title: string): string {
  const g = chartGeometry(d);
  const s = stringsOf(d.lang);
  const numbers = new LocalFormat(d.lang, "UTC");
  // One decimal where the tick has one: `1,5`, `2` in Portuguese.
  const fmt = (v: number) => numbers.number(v, Number.isInteger(Math.round(v * 10) / 10) ? 0 : 1);
  const grid = [PANELS.surf, PANELS.wind, PANELS.tide].map(([top, bottom]) => html`<rect class="panel" x="${LEFT}" y="${top}" width="${RIGHT - LEFT}" height="${bottom - top}"/>`);
  const levels = (["beginner", "intermediate", "advanced"] as const).map(
    (level, i) => html`<text class="tick" x="${LEFT - 6}" y="${coord(PANELS.best[0] + i * 12 + 9.5)}" text-anchor="end">${s[level]}</text>`,
  );
  const tideAxis = d.tide.length
    ? html`<text class="tick" x="${RIGHT + 6}" y="${PANELS.tide[0] + 4}">${fmt(g.tideRange[1])} ${d.heightUnit}</text><text class="tick" x="${RIGHT + 6}" y="${PANELS.tide[1] + 4}">${fmt(g.tideRange[0])}</text>`
    : html`<text class="tick" x="${LEFT + 8}" y="${PANELS.tide[0] + 34}">${s.noTideHere}</text>`;
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-t ${id}-d" preserveAspectRatio="xMidYMid meet">
<title id="${id}-t">${title}</title>
<desc id="${id}-d">${s.chartDescription}</desc>
<defs><path id="${id}-a" d="M0 -7L4.5 5L0 2L-4.5 5Z"/></defs>
!${grid}
!${g.nights.map((n) => html`<rect class="night" x="${coord(n.x)}" y="${PANELS.surf[0]}" width="${coord(n.width)}" height="${PANELS.tide[1] - PANELS.surf[0]}"/>`)}
!${g.midnights.map((x) => html`<line class="day" x1="${coord(x)}" x2="${coord(x)}" y1="${PANELS.best[0]}" y2="${PANELS.tide[1]}"/>`)}
!${g.dayLabels.map((day) => html`<text class="tick day-label" x="${coord(day.x)}" y="${HEIGHT - 12}" text-anchor="middle">${day.label}</text>`)}
!${levels}
!${g.best.map((b) => html`<rect class="best r${b.rating}" x="${coord(b.x)}" y="${coord(b.y)}" width="${coord(Math.max(2, b.width))}" height="10"><title>${fill(s.bestWindow, { level: s[b.level], rating: b.rating })}</title></rect>`)}
<path class="band" d="${g.band}"/>
<path class="period" d="${g.period}"/>
<path class="wind" d="${g.wind}"/>
!${g.arrows.map((a) => html`<use href="#${id}-a" class="arrow ${a.type ?? "unknown"}" transform="translate(${coord(a.x)} ${coord(a.y)}) rotate(${a.rotate})"/>`)}
<path class="tide" d="${g.tide}"/>
!${g.extremes.map((e) => html`<circle class="extreme" cx="${coord(e.x)}" cy="${coord(e.y)}" r="3"/>`)}
<text class="ptitle" x="${LEFT + 6}" y="${PANELS.surf[0] - 5}">${fill(d.withSurf ? s.surfPanel : s.wavesPanel, { unit: d.heightUnit })}</text>
<text class="ptitle" x="${LEFT + 6}" y="${PANELS.wind[0] - 5}">${fill(s.windPanel, { unit: d.speedUnit })}</text>
<text class="ptitle" x="${LEFT + 6}" y="${PANELS.tide[0] - 5}">${fill(s.tidePanel, { unit: d.heightUnit })}</text>
!${axis(g.surfTop, PANELS.surf, "left", d.heightUnit, fmt)}
!${axis(g.periodTop, PANELS.surf, "right", "s", fmt)}
!${axis(g.windTop, PANELS.wind, "left", d.speedUnit, fmt)}
!${tideAxis}
</svg>`;
}
