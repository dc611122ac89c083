/**
 * The usage chart: daily totals stacked by series, as inline SVG built on the server (no script, no library to
 * ship to the browser; the same figures are in the tables below it).
 *
 * Series: every endpoint when there are at most six; else the busiest endpoints of the 30 days, each on its own,
 * and the rest summed per API family ("other /v1", "other MCP tools"; embed views are a family of one), as many
 * busiest as leave room for the families, six series in all. An account using /v1, the MCP tools and embeds has
 * 16 endpoints; eight colours for them repeated, and 16 stacked segments a day were unreadable. Colours are the
 * Okabe–Ito palette without its yellow and black (distinguishable with the common colour-vision deficiencies),
 * one per series.
 *
 * Geometry: the SVG has no viewBox. Its height is fixed in pixels and its x positions are percentages of its
 * width, so it fills any width, a phone's included, without scrolling and without shrinking its text (12 px at
 * every width). The axis values sit above their gridlines at the left, on a halo of the card's colour.
 */
import { html } from "ghtml";
import type { UsageTable } from "../service";
import { formatNumber } from "./layout";

const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"];
/** At most this many series: beyond it, the busiest endpoints and the rest per family. */
export const MAX_SERIES = PALETTE.length;
const HEIGHT = 240;
const PAD = { top: 22, bottom: 26 };
/** A day label every this many days, counted back from today (which is always labelled). */
const LABEL_EVERY = 5;

export interface UsageSeries {
  /** An endpoint's name, or a family's "other /v1", "other MCP". */
  label: string;
  /** The endpoints it sums (one, except for a family's others). */
  endpoints: string[];
  color: string;
  /** Requests over the whole period. */
  total: number;
}

type Family = "v1" | "mcp" | "embed" | "calendar";
const FAMILIES: readonly Family[] = ["v1", "mcp", "embed", "calendar"];
const FAMILY_LABELS: Record<Family, string> = { v1: "other /v1", mcp: "other MCP", embed: "embed", calendar: "calendar" };
const familyOf = (endpoint: string): Family => (endpoint.startsWith("mcp.") ? "mcp" : endpoint === "embed" || endpoint === "calendar" ? endpoint : "v1");

/** Requests per endpoint over the period. */
export function endpointTotals(usage: UsageTable): Map<string, number> {
  const totals = new Map(usage.endpoints.map((e) => [e, 0]));
  for (const day of usage.days) for (const e of usage.endpoints) totals.set(e, totals.get(e)! + (day.byEndpoint[e] ?? 0));
  return totals;
}

/**
 * The chart's series, bottom of the stack first: every endpoint (in the table's order) when they fit the palette;
 * else the busiest endpoints (most requests first, ties in the table's order), then the rest of each family
 * together (a family with one endpoint left is that endpoint), as many busiest as leave six series in all.
 */
export function usageSeries(usage: UsageTable): UsageSeries[] {
  const totals = endpointTotals(usage);
  const single = (e: string) => ({ label: e, endpoints: [e], total: totals.get(e)! });
  let chosen: Omit<UsageSeries, "color">[];
  if (usage.endpoints.length <= MAX_SERIES) chosen = usage.endpoints.map(single);
  else {
    const order = new Map(usage.endpoints.map((e, i) => [e, i]));
    const ranked = [...usage.endpoints].sort((a, b) => totals.get(b)! - totals.get(a)! || order.get(a)! - order.get(b)!);
    chosen = [];
    for (let busiest = MAX_SERIES - 1; busiest >= 0; busiest--) {
      const rest = ranked.slice(busiest);
      const groups = FAMILIES.map((f) => rest.filter((e) => familyOf(e) === f)).filter((g) => g.length > 0);
      if (busiest + groups.length > MAX_SERIES) continue;
      chosen = [
        ...ranked.slice(0, busiest).map(single),
        ...groups.map((g) =>
          g.length === 1 ? single(g[0]!) : { label: FAMILY_LABELS[familyOf(g[0]!)], endpoints: g.toSorted((a, b) => order.get(a)! - order.get(b)!), total: g.reduce((n, e) => n + totals.get(e)!, 0) },
        ),
      ];
      break;
    }
  }
  return chosen.map((s, i) => ({ ...s, color: PALETTE[i]! }));
}

/** A series' count on one day. */
export function seriesCount(series: UsageSeries, byEndpoint: Record<string, number>): number {
  return series.endpoints.reduce((n, e) => n + (byEndpoint[e] ?? 0), 0);
}

/** What a series holds, in words, for a legend: its name, and for a family's others how many ("other MCP: 6 tools"). */
export function seriesDescription(series: UsageSeries): string {
  if (series.endpoints.length === 1) return series.label;
  const n = series.endpoints.length;
  return `${series.label}: ${n} ${series.endpoints.every((e) => e.startsWith("mcp.")) ? "tools" : "endpoints"}`;
}

/** A "nice" axis maximum and step (1, 2 or 5 times a power of ten) for four or five gridlines. */
export function niceScale(max: number): { top: number; step: number } {
  if (max <= 0) return { top: 4, step: 1 };
  const rough = max / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough)!;
  const stepInt = Math.max(1, Math.round(step));
  return { top: Math.ceil(max / stepInt) * stepInt, step: stepInt };
}

const pct = (v: number) => `${Math.round(v * 1000) / 1000}%`;

/** A colour swatch for legends and table headers. */
export function swatch(color: string): string {
  return html`<svg class="swatch" width="12" height="12" aria-hidden="true" focusable="false"><rect width="12" height="12" fill="${color}"/></svg>`;
}

export function usageChart(usage: UsageTable, series: readonly UsageSeries[], label: string): string {
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const { top, step } = niceScale(Math.max(...usage.days.map((d) => d.total)));
  const y = (v: number) => PAD.top + innerH - (v / top) * innerH;
  const n = usage.days.length;
  const slot = 100 / n;
  const grid: string[] = [];
  const values: string[] = [];
  for (let v = 0; v <= top; v += step) {
    grid.push(html`<line class="grid" x1="0" x2="100%" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/>`);
    if (v > 0) values.push(html`<text class="axis value" x="0" y="${(y(v) - 4).toFixed(1)}">${formatNumber(v)}</text>`);
  }
  const bars: string[] = [];
  const dates: string[] = [];
  usage.days.forEach((day, i) => {
    let base = 0;
    for (const s of series) {
      const count = seriesCount(s, day.byEndpoint);
      if (count === 0) continue;
      const y0 = y(base);
      const y1 = y(base + count);
      base += count;
      bars.push(
        html`<rect x="${pct(i * slot + slot * 0.15)}" y="${y1.toFixed(1)}" width="${pct(slot * 0.7)}" height="${Math.max(0.5, y0 - y1).toFixed(1)}" fill="${s.color}"><title>${day.date} &middot; ${s.label}: ${formatNumber(count)}</title></rect>`,
      );
    }
    if ((n - 1 - i) % LABEL_EVERY === 0) {
      // Today ends at the right edge; the others are centred under their bar.
      const last = i === n - 1;
      dates.push(html`<text class="axis" x="${last ? "100%" : pct((i + 0.5) * slot)}" y="${HEIGHT - 8}" text-anchor="${last ? "end" : "middle"}">${day.date.slice(5)}</text>`);
    }
  });
  const legend = series.map(
    (s) => html`<li>!${swatch(s.color)}${seriesDescription(s)}</li>`,
  );
  return html`<figure class="chart card">
<svg class="usage-chart" width="100%" height="${HEIGHT}" role="img" aria-labelledby="chart-title">
<title id="chart-title">${label}</title>
!${grid}
!${bars}
!${values}
!${dates}
</svg>
!${series.length > 0 ? html`<ul class="legend" aria-label="Series, bottom of each bar first">!${legend}</ul>` : html`<p class="muted">No requests in the last 30 days.</p>`}
</figure>`;
}
