/**
 * The embed's HTML: one section per spot (now, chart, table behind a disclosure) and the credits. ghtml escapes
 * every `${value}`; `!${…}` inserts only markup built here or in chart.ts. Templates use HTML entities for
 * non-ASCII text (see docs/console.md: Bun turns it into \u escapes in a template's raw text). Nothing here
 * decides anything: the numbers come from view.ts, the colours from the stylesheet.
 */
import { html } from "ghtml";
import type { Rating } from "../forecast/types";
import { LEVELS } from "../forecast/best";
import { AGREEMENT_WORDS } from "../forecast/consensus";
import { chartSvg } from "./chart";
import { clockTime, dayTime } from "../core/local-time";
import { UNIT_LABELS, type SpotPicture } from "./view";
import type { Theme } from "./store";

export type Mode = "page" | "screen";

export interface PageShell {
  title: string;
  theme: Theme;
  mode: Mode;
  assetVersion: string;
  /** For screen mode: the stamp the page was built on and where to ask for the current one. */
  stamp?: { value: string; url: string };
  /** Seconds after which the page loads itself again (the allowance-spent page, so a shop TV comes back by itself). */
  refresh?: number;
}

const COMPASS = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"];
export const compass = (degrees: number) => COMPASS[Math.round((((degrees % 360) + 360) % 360) / 22.5) % 16]!;
const n1 = (v: number) => (Math.round(v * 10) / 10).toFixed(1);
const n0 = (v: number) => String(Math.round(v));

export function shell(p: PageShell, body: string): string {
  const classes = `theme-${p.theme} mode-${p.mode}`;
  return html`<!doctype html>
<html lang="en" class="${classes}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title}</title>
!${p.refresh !== undefined ? html`<meta http-equiv="refresh" content="${p.refresh}">` : ""}
<link rel="icon" href="/embed/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/embed/assets/embed.css?v=${p.assetVersion}">
!${p.mode === "screen" ? html`<script src="/embed/assets/screen.js?v=${p.assetVersion}" defer></script>` : ""}
</head>
<body!${p.stamp ? html` data-stamp="${p.stamp.value}" data-stamp-url="${p.stamp.url}"` : ""}>
!${body}
</body>
</html>`;
}

function ratingBands(rating: Rating): string {
  return html`<ul class="ratings" aria-label="Ratings, 1 (poor) to 5 (excellent)">!${LEVELS.map(
    (level) => html`<li><span class="level">${level}</span><span class="band r${rating[level]}" aria-hidden="true">!${[1, 2, 3, 4, 5].map((i) => html`<span class="cell${i <= rating[level] ? " on" : ""}"></span>`)}</span><span class="score">${rating[level]}/5</span></li>`,
  )}</ul>`;
}

/** The nearest wave buoy's fresh reading, one line under the surf now; nothing without one. */
function buoyLine(p: SpotPicture): string {
  const o = p.now.observation;
  if (!o || o.waveHeight === null) return "";
  const sea = [`${n1(o.waveHeight)} ${UNIT_LABELS[p.units].height}`, ...(o.dominantPeriod === null ? [] : [`at ${n0(o.dominantPeriod)} s`]), ...(o.waveDirection === null ? [] : [`from ${compass(o.waveDirection)}`])];
  return html`<span class="sub buoy">Buoy now: ${sea.join(" ")}, ${o.ageMinutes} min ago (${o.buoy.name}, ${n0(o.buoy.distanceKm)} km)</span>`;
}

function nowBlock(p: SpotPicture): string {
  const u = UNIT_LABELS[p.units];
  const c = p.now.conditions;
  const tz = p.spot.timezone;
  if (!c) return html`<p class="empty">No forecast for this spot yet: the next refresh brings it.</p>`;
  const surf = c.surf ? html`${n1(c.surf.min)}&ndash;${n1(c.surf.max)} ${u.height}` : html`${n1(c.waveHeight)} ${u.height}`;
  const t = p.now.tide;
  const tide = t
    ? html`<div class="stat"><span class="label">Tide</span><span class="value">${n1(t.height)} ${u.height} ${t.state}</span><span class="sub">high ${n1(t.nextHigh.height)} at ${clockTime(Date.parse(t.nextHigh.time), tz)} &middot; low ${n1(t.nextLow.height)} at ${clockTime(Date.parse(t.nextLow.time), tz)}</span></div>`
    : html`<div class="stat"><span class="label">Tide</span><span class="value">${p.tideless ? "no tide" : "not available"}</span></div>`;
  return html`<div class="now">
<div class="stat"><span class="label">${c.surf ? "Surf" : "Waves"} now</span><span class="value">!${surf}</span><span class="sub">swell ${n1(c.swellHeight)} ${u.height} &middot; ${n0(c.wavePeriod)} s from ${compass(c.waveDirection)}</span>!${c.confidence ? html`<span class="sub">${c.confidence.models === 1 ? "one wave model" : `${c.confidence.models} wave models ${AGREEMENT_WORDS[c.confidence.level]}`}: ${n1(c.confidence.waveHeight.min)}&ndash;${n1(c.confidence.waveHeight.max)} ${u.height} seas</span>` : ""}!${buoyLine(p)}</div>
<div class="stat"><span class="label">Wind</span><span class="value"><span class="wind-type ${c.windDirectionType ?? "unknown"}">${c.windDirectionType ?? ""}</span> ${n0(c.windSpeed)} ${u.speed}</span><span class="sub">from ${compass(c.windDirection)}, gusts ${n0(c.windGust)} &middot; water ${n0(c.waterTemperature)} ${u.temperature}</span></div>
!${tide}
!${ratingBands(c.rating)}
</div>`;
}

function table(p: SpotPicture, id: string): string {
  const u = UNIT_LABELS[p.units];
  const tz = p.spot.timezone;
  const withConfidence = p.hours.some((h) => h.confidence);
  const rows = p.hours
    .filter((_, i) => i % 3 === 0)
    .map((h) => {
      const band = h.surf ? html`${n1(h.surf.min)}&ndash;${n1(h.surf.max)}` : n1(h.waveHeight);
      return html`<tr><th scope="row">${dayTime(Date.parse(h.time), tz)}</th><td>!${band}</td><td>${n0(h.wavePeriod)}</td><td>${n0(h.windSpeed)} ${compass(h.windDirection)}</td><td>${h.windDirectionType ?? ""}</td><td>${h.tide ? n1(h.tide.height) : ""}</td><td>${h.rating.beginner}/${h.rating.intermediate}/${h.rating.advanced}</td>!${withConfidence ? html`<td>${h.confidence?.level ?? ""}</td>` : ""}</tr>`;
    });
  const tides = p.extremes.map((e) => html`<li>${e.type} ${n1(e.height)} ${u.height}, ${dayTime(e.time, tz)}</li>`);
  return html`<details class="data"><summary>The week as a table (every 3 hours) and the tides</summary>
<div class="table-wrap" role="region" aria-labelledby="${id}-cap" tabindex="0">
<table><caption id="${id}-cap">${p.spot.name}: forecast every 3 hours, local time (${tz})</caption>
<thead><tr><th scope="col">Time</th><th scope="col">${p.hours[0]?.surf ? "Surf" : "Waves"} (${u.height})</th><th scope="col">Period (s)</th><th scope="col">Wind (${u.speed})</th><th scope="col">Wind type</th><th scope="col">Tide (${u.height})</th><th scope="col">Rating (beg./int./adv.)</th>!${withConfidence ? html`<th scope="col">Models agree</th>` : ""}</tr></thead>
<tbody>!${rows}</tbody></table></div>
!${tides.length ? html`<h3>High and low water</h3><ul class="tides">!${tides}</ul>` : ""}
</details>`;
}

/**
 * The chart and table of a spot: they change with the hour and the forecast, not with the minute (cached apart).
 * The chart keeps a width at which its labels are at least 11 px (the stylesheet's min-width); on a narrower
 * screen it scrolls sideways in its own frame (focusable, so keys scroll it too), never the page, and a line
 * above it says so (shown by the stylesheet on narrow screens only).
 */
export function spotWeek(p: SpotPicture, id: string): string {
  if (!p.chart) return "";
  return html`<figure class="week">
<p class="scroll-hint" id="${id}-hint">Swipe the chart sideways for the whole week &rarr;</p>
<div class="plot" role="region" tabindex="0" aria-label="${p.spot.name}: chart of the week" aria-describedby="${id}-hint">!${chartSvg(p.chart, id, `${p.spot.name}: the next 7 days`)}</div>
<figcaption class="legend"><span><i class="key band"></i>${p.chart.bandLabel.toLowerCase()} height</span><span><i class="key period"></i>swell period</span><span><i class="key arrow offshore"></i>offshore</span><span><i class="key arrow cross"></i>cross-shore</span><span><i class="key arrow onshore"></i>onshore wind</span><span><i class="key tide"></i>tide</span><span><i class="key night"></i>night</span><span class="ramp">best window, rating !${[2, 3, 4, 5].map((r) => html`<i class="key r${r}"></i>${r}`)}</span></figcaption>
</figure>
!${table(p, id)}`;
}

export function spotSection(p: SpotPicture, id: string, week: string): string {
  const updated = p.now.updatedAt ? html`forecast of ${dayTime(Date.parse(p.now.updatedAt), p.spot.timezone)}` : "no forecast yet";
  return html`<section class="spot" id="${id}" aria-labelledby="${id}-name">
<header><h2 id="${id}-name">${p.spot.name} <span class="country">${p.spot.country}</span></h2><p class="meta">Local time ${clockTime(Date.parse(p.now.time), p.spot.timezone)} (${p.spot.timezone}) &middot; ${updated}</p></header>
!${nowBlock(p)}
!${week}
</section>`;
}

export function credits(pictures: readonly SpotPicture[], publicUrl: string): string {
  const tideSources = [...new Set(pictures.flatMap((p) => (p.tideSource ? [p.tideSource] : [])))];
  const buoys = pictures.some((p) => p.now.observation);
  return html`<footer class="credits"><p>Forecast by <a href="${publicUrl}" target="_blank" rel="noopener">Surfcast</a>. Weather and marine data by <a href="https://open-meteo.com/" target="_blank" rel="noopener">Open-Meteo.com</a>, licensed <a href="https://creativecommons.org/licenses/by/4.0/" target="_blank" rel="noopener">CC BY 4.0</a>.!${tideSources.length ? html` Tides: ${tideSources.join("; ")}.` : ""}!${buoys ? html` Buoy readings by <a href="https://www.ndbc.noaa.gov/" target="_blank" rel="noopener">NOAA's National Data Buoy Center</a>.` : ""} Predictions, not guarantees: check the sea before you go.</p></footer>`;
}

export const titleOf = (pictures: readonly SpotPicture[]) => `Surf forecast: ${pictures.map((p) => p.spot.name).join(", ")}`;

/** The page's one h1, for screen readers (the spots' names head their sections). */
export function heading(pictures: readonly SpotPicture[]): string {
  return html`<h1 class="visually-hidden">${titleOf(pictures)}</h1>`;
}

/** The page a visitor sees instead of a forecast (unknown or revoked embed, allowance spent). */
export function messagePage(p: Omit<PageShell, "mode" | "stamp">, heading: string, message: string): string {
  return shell({ ...p, mode: "page" }, html`<main class="message"><h1>${heading}</h1><p>${message}</p></main>`);
}
