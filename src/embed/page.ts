/**
 * The embed's HTML: one section per spot (now, chart, table behind a disclosure) and the credits. ghtml escapes
 * every `${value}`; `!${…}` inserts only markup built here or in chart.ts. Templates use HTML entities for
 * non-ASCII text (see docs/console.md: Bun turns it into \u escapes in a template's raw text). Nothing here
 * decides anything: the numbers come from view.ts, the colours from the stylesheet.
 */
import { html } from "ghtml";
import type { ConfidenceLevel, Rating, WindDirectionType } from "../forecast/types";
import { LEVELS } from "../forecast/best";
import { chartSvg } from "./chart";
import { LocalFormat } from "../core/local-time";
import { UNIT_LABELS } from "../core/units";
import type { SpotPicture } from "./view";
import type { Theme } from "./store";
import { fill, stringsOf, type Strings } from "./lang";

export type Mode = "page" | "screen";

export interface PageShell {
  title: string;
  theme: Theme;
  mode: Mode;
  /** The page's language (`<html lang>`). */
  lang: string;
  assetVersion: string;
  /** For screen mode: the stamp the page was built on and where to ask for the current one. */
  stamp?: { value: string; url: string };
  /** Seconds after which the page loads itself again (the allowance-spent page, so a shop TV comes back by itself). */
  refresh?: number;
}

/** A direction in degrees (coming from) as a 16-point compass name in the page's language. */
const compass = (degrees: number, s: Strings) => s.compass.split(" ")[Math.round((((degrees % 360) + 360) % 360) / 22.5) % 16]!;

const WIND_WORDS: Record<WindDirectionType, keyof Strings> = { offshore: "offshore", onshore: "onshore", cross: "cross" };
const AGREEMENT: Record<ConfidenceLevel, keyof Strings> = { high: "modelsAgreeWell", medium: "modelsBroadlyAgree", low: "modelsDisagree" };

/** What every part of a spot's section writes with: its words, and its dates and numbers in its zone. */
function writerOf(p: SpotPicture) {
  const s = stringsOf(p.lang);
  const f = new LocalFormat(p.lang, p.spot.timezone);
  return { s, f, n1: (v: number) => f.number(v, 1), n0: (v: number) => f.number(v, 0), wind: (type: WindDirectionType | null) => (type ? s[WIND_WORDS[type]] : "") };
}

export function shell(p: PageShell, body: string): string {
  const classes = `theme-${p.theme} mode-${p.mode}`;
  return html`<!doctype html>
<html lang="${p.lang}" class="${classes}">
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

function ratingBands(rating: Rating, s: Strings): string {
  return html`<ul class="ratings" aria-label="${s.ratings}">!${LEVELS.map(
    (level) => html`<li><span class="level">${s[level]}</span><span class="band r${rating[level]}" aria-hidden="true">!${[1, 2, 3, 4, 5].map((i) => html`<span class="cell${i <= rating[level] ? " on" : ""}"></span>`)}</span><span class="score">${rating[level]}/5</span></li>`,
  )}</ul>`;
}

/** The nearest wave buoy's fresh reading, one line under the surf now; nothing without one. */
function buoyLine(p: SpotPicture): string {
  const o = p.now.observation;
  if (!o || o.waveHeight === null) return "";
  const { s, n1, n0 } = writerOf(p);
  const sea = [
    `${n1(o.waveHeight)} ${UNIT_LABELS[p.units].height}`,
    ...(o.dominantPeriod === null ? [] : [fill(s.buoyPeriod, { period: n0(o.dominantPeriod) })]),
    ...(o.waveDirection === null ? [] : [fill(s.buoyFrom, { from: compass(o.waveDirection, s) })]),
  ];
  return html`<span class="sub buoy">${fill(s.buoyNow, { sea: sea.join(" "), minutes: n0(o.ageMinutes), buoy: o.buoy.name, distance: n0(o.buoy.distanceKm) })}</span>`;
}

function nowBlock(p: SpotPicture): string {
  const { s, f, n1, n0, wind } = writerOf(p);
  const u = UNIT_LABELS[p.units];
  const c = p.now.conditions;
  if (!c) return html`<p class="empty">${s.noForecastYet}</p>`;
  const surf = c.surf ? html`${n1(c.surf.min)}&ndash;${n1(c.surf.max)} ${u.height}` : html`${n1(c.waveHeight)} ${u.height}`;
  const t = p.now.tide;
  const tide = t
    ? html`<div class="stat"><span class="label">${s.tide}</span><span class="value">${n1(t.height)} ${u.height} ${s[t.state]}</span><span class="sub">${fill(s.tideNext, { high: n1(t.nextHigh.height), highTime: f.time(t.nextHigh.time), low: n1(t.nextLow.height), lowTime: f.time(t.nextLow.time) })}</span></div>`
    : html`<div class="stat"><span class="label">${s.tide}</span><span class="value">${p.tideless ? s.noTide : s.tideUnavailable}</span></div>`;
  const models = c.confidence && (c.confidence.models === 1 ? s.oneModel : fill(s[AGREEMENT[c.confidence.level]], { count: c.confidence.models }));
  return html`<div class="now">
<div class="stat"><span class="label">${c.surf ? s.surfNow : s.wavesNow}</span><span class="value">!${surf}</span><span class="sub">${fill(s.swellLine, { height: `${n1(c.swellHeight)} ${u.height}`, period: n0(c.wavePeriod), from: compass(c.waveDirection, s) })}</span>!${c.confidence ? html`<span class="sub">${models}: ${fill(s.seas, { range: `${n1(c.confidence.waveHeight.min)}–${n1(c.confidence.waveHeight.max)} ${u.height}` })}</span>` : ""}!${buoyLine(p)}</div>
<div class="stat"><span class="label">${s.wind}</span><span class="value"><span class="wind-type ${c.windDirectionType ?? "unknown"}">${wind(c.windDirectionType)}</span> ${n0(c.windSpeed)} ${u.speed}</span><span class="sub">${fill(s.windLine, { from: compass(c.windDirection, s), gust: n0(c.windGust), water: `${n0(c.waterTemperature)} ${u.temperature}` })}</span></div>
!${tide}
!${ratingBands(c.rating, s)}
</div>`;
}

function table(p: SpotPicture, id: string): string {
  const { s, f, n1, n0, wind } = writerOf(p);
  const u = UNIT_LABELS[p.units];
  const withConfidence = p.hours.some((h) => h.confidence);
  const rows = p.hours
    .filter((_, i) => i % 3 === 0)
    .map((h) => {
      const band = h.surf ? html`${n1(h.surf.min)}&ndash;${n1(h.surf.max)}` : n1(h.waveHeight);
      return html`<tr><th scope="row">${f.dayTime(h.time)}</th><td>!${band}</td><td>${n0(h.wavePeriod)}</td><td>${n0(h.windSpeed)} ${compass(h.windDirection, s)}</td><td>${wind(h.windDirectionType)}</td><td>${h.tide ? n1(h.tide.height) : ""}</td><td>${h.rating.beginner}/${h.rating.intermediate}/${h.rating.advanced}</td>!${withConfidence ? html`<td>${h.confidence ? s[h.confidence.level] : ""}</td>` : ""}</tr>`;
    });
  const tides = p.extremes.map((e) => html`<li>${e.type === "high" ? s.highWater : s.lowWater} ${n1(e.height)} ${u.height}, ${f.dayTime(e.time)}</li>`);
  return html`<details class="data"><summary>${s.tableSummary}</summary>
<div class="table-wrap" role="region" aria-labelledby="${id}-cap" tabindex="0">
<table><caption id="${id}-cap">${fill(s.tableCaption, { spot: p.spot.name, zone: p.spot.timezone })}</caption>
<thead><tr><th scope="col">${s.time}</th><th scope="col">${fill(p.hours[0]?.surf ? s.surfColumn : s.wavesColumn, { unit: u.height })}</th><th scope="col">${s.periodColumn}</th><th scope="col">${fill(s.windColumn, { unit: u.speed })}</th><th scope="col">${s.windTypeColumn}</th><th scope="col">${fill(s.tideColumn, { unit: u.height })}</th><th scope="col">${s.ratingColumn}</th>!${withConfidence ? html`<th scope="col">${s.modelsColumn}</th>` : ""}</tr></thead>
<tbody>!${rows}</tbody></table></div>
!${tides.length ? html`<h3>${s.extremesHeading}</h3><ul class="tides">!${tides}</ul>` : ""}
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
  const { s } = writerOf(p);
  return html`<figure class="week">
<p class="scroll-hint" id="${id}-hint">${s.scrollHint}</p>
<div class="plot" role="region" tabindex="0" aria-label="${fill(s.chartLabel, { spot: p.spot.name })}" aria-describedby="${id}-hint">!${chartSvg(p.chart, id, fill(s.chartTitle, { spot: p.spot.name }))}</div>
<figcaption class="legend"><span><i class="key band"></i>${p.chart.withSurf ? s.surfHeight : s.wavesHeight}</span><span><i class="key period"></i>${s.legendPeriod}</span><span><i class="key arrow offshore"></i>${s.legendOffshore}</span><span><i class="key arrow cross"></i>${s.legendCross}</span><span><i class="key arrow onshore"></i>${s.legendOnshore}</span><span><i class="key tide"></i>${s.legendTide}</span><span><i class="key night"></i>${s.legendNight}</span><span class="ramp">${s.legendBest} !${[2, 3, 4, 5].map((r) => html`<i class="key r${r}"></i>${r}`)}</span></figcaption>
</figure>
!${table(p, id)}`;
}

export function spotSection(p: SpotPicture, id: string, week: string): string {
  const { s, f } = writerOf(p);
  const updated = p.now.updatedAt ? fill(s.forecastOf, { time: f.dayTime(p.now.updatedAt) }) : s.noForecast;
  return html`<section class="spot" id="${id}" aria-labelledby="${id}-name">
<header><h2 id="${id}-name">${p.spot.name} <span class="country">${p.spot.country}</span></h2><p class="meta">${fill(s.localTime, { time: f.time(p.now.time), zone: f.zoneName(p.now.time) })} &middot; ${updated}</p></header>
!${nowBlock(p)}
!${week}
</section>`;
}

/**
 * The credits: the sources' names, links and licence exactly as their terms ask (Open-Meteo.com, CC BY 4.0, linked),
 * in sentences of the page's language.
 */
export function credits(pictures: readonly SpotPicture[], publicUrl: string, lang: string): string {
  const s = stringsOf(lang);
  const tideSources = [...new Set(pictures.flatMap((p) => (p.tideSource ? [p.tideSource] : [])))];
  const buoys = pictures.some((p) => p.now.observation);
  const link = (href: string, text: string) => html`<a href="${href}" target="_blank" rel="noopener">${text}</a>`;
  // The words are escaped first; the links, built here, go in where the words name them.
  const sentence = (template: string, links: Record<string, string>, values: Record<string, string> = {}) =>
    fill(html`${fill(template, values)}`, links);
  return html`<footer class="credits"><p>!${sentence(s.creditsForecastBy, { surfcast: link(publicUrl, "Surfcast") })} !${sentence(s.creditsData, {
    source: link("https://open-meteo.com/", "Open-Meteo.com"),
    licence: link("https://creativecommons.org/licenses/by/4.0/", "CC BY 4.0"),
  })}!${tideSources.length ? html` ${fill(s.creditsTides, { sources: tideSources.join("; ") })}` : ""}!${buoys ? html` !${sentence(s.creditsBuoys, { ndbc: link("https://www.ndbc.noaa.gov/", "NOAA National Data Buoy Center") })}` : ""} ${s.creditsCaution}</p></footer>`;
}

export const titleOf = (pictures: readonly SpotPicture[], lang: string) => fill(stringsOf(lang).title, { spots: pictures.map((p) => p.spot.name).join(", ") });

/** The page's one h1, for screen readers (the spots' names head their sections). */
export function heading(pictures: readonly SpotPicture[], lang: string): string {
  return html`<h1 class="visually-hidden">${titleOf(pictures, lang)}</h1>`;
}

/** The page a visitor sees instead of a forecast (unknown or revoked embed, allowance spent). */
export function messagePage(p: Omit<PageShell, "mode" | "stamp">, heading: string, message: string): string {
  return shell({ ...p, mode: "page" }, html`<main class="message"><h1>${heading}</h1><p>${message}</p></main>`);
}
