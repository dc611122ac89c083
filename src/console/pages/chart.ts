/**
 * The usage chart: daily totals stacked by endpoint, as inline SVG built on the server (no script, no
 * library to ship to the browser; the same figures are in the table beside it). Colours are the
 * Okabe–Ito palette, distinguishable with the common colour-vision deficiencies.
 */
import { html } from "ghtml";
import type { UsageTable } from "../service";
import { formatNumber } from "./layout";

const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#7a6a00", "#000000"];
const WIDTH = 760;
const HEIGHT = 260;
const PAD = { top: 12, right: 8, bottom: 34, left: 48 };

export function endpointColor(index: number): string {
  return PALETTE[index % PALETTE.length]!;
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

export function usageChart(usage: UsageTable, label: string): string {
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const { top, step } = niceScale(Math.max(...usage.days.map((d) => d.total)));
  const y = (v: number) => PAD.top + innerH - (v / top) * innerH;
  const slot = innerW / usage.days.length;
  const barW = Math.max(2, slot * 0.7);
  const grid: string[] = [];
  for (let v = 0; v <= top; v += step) {
    grid.push(html`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#d3dde3"/><text x="${PAD.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#4d5f6b">${formatNumber(v)}</text>`);
  }
  const bars: string[] = [];
  usage.days.forEach((day, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    let base = 0;
    usage.endpoints.forEach((endpoint, e) => {
      const n = day.byEndpoint[endpoint] ?? 0;
      if (n === 0) return;
      const y0 = y(base);
      const y1 = y(base + n);
      base += n;
      bars.push(html`<rect x="${x.toFixed(1)}" y="${y1.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(0.5, y0 - y1).toFixed(1)}" fill="${endpointColor(e)}"><title>${day.date} &middot; ${endpoint}: ${formatNumber(n)}</title></rect>`);
    });
    if (i % 5 === 4 || i === usage.days.length - 1) {
      bars.push(html`<text x="${(x + barW / 2).toFixed(1)}" y="${HEIGHT - PAD.bottom + 16}" text-anchor="middle" font-size="11" fill="#4d5f6b">${day.date.slice(5)}</text>`);
    }
  });
  const legend = usage.endpoints.map(
    (endpoint, e) => html`<li><svg width="12" height="12" aria-hidden="true" focusable="false"><rect width="12" height="12" fill="${endpointColor(e)}"/></svg>${endpoint}</li>`,
  );
  return html`<figure class="chart card">
<div class="plot" tabindex="0" role="region" aria-label="Chart (scrolls sideways on small screens)">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title" preserveAspectRatio="xMidYMid meet">
<title id="chart-title">${label}</title>
!${grid}
!${bars}
</svg>
</div>
!${usage.endpoints.length > 0 ? html`<ul class="legend" aria-label="Endpoints">!${legend}</ul>` : html`<p class="muted">No requests in the last 30 days.</p>`}
</figure>`;
}
