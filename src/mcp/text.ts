/**
 * The text of the MCP tools' results: what a model reads. Each tool also returns the /v1 JSON as
 * structuredContent (clients that read structured output lose nothing); the text is a compact, readable view of
 * it — a table of the daylight hours instead of a week of JSON — held under TEXT_LIMIT bytes for every allowed
 * argument (docs/mcp.md, "What a result looks like"). Times are the spot's local time, its zone named once.
 * Pure: responses in, text out.
 */
import { DEMO_ATTRIBUTION } from "../forecast/demo";
import type { BestSpot } from "../forecast/best-spots";
import type { BestWindow, Level } from "../forecast/best";
import type { ForecastHour, ForecastResponse } from "../forecast/types";
import type { Spot, SpotWithDistance } from "../spots/types";
import type { TideExtreme, TidesResponse } from "../tides/types";
import { escapeControls } from "../core/log";
import { describeCondition } from "../alerts/condition";
import { alertState, type KeyAlert } from "../alerts/service";
import { HOUR_MS } from "../core/clock";
import { LocalClock, weekdayOf, zonedDateTime, zonedTime, type LocalInstant } from "../core/local-time";
import { windowSpan } from "../alerts/delivery/wording";
import { UNIT_LABELS, type Units } from "../core/units";
import { briefObservation, type ObservationsAnswer } from "../observations/service";
import { buoyPhrase } from "../observations/summary";
import type { ClimateResponse } from "../climate/types";

/** Every tool's text stays within this many bytes (UTF-8): never more than ~4,000–5,500 tokens. */
export const TEXT_LIMIT = 16 * 1024;

/** The first line of every text made from demo data (`serve --demo`): the attribution of demo data itself. */
export const DEMO_BANNER = DEMO_ATTRIBUTION;

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

/**
 * `head`, `body` and `tail` as lines, within `limit` bytes: when they do not fit, body lines are left off from the
 * end and one line says how many (the data is whole in structuredContent). The catalog's longest names keep every
 * list far below the limit; imported spots with 200-character names could reach it.
 */
export function fitText(head: readonly string[], body: readonly string[], tail: readonly string[], limit = TEXT_LIMIT): string {
  const whole = [...head, ...body, ...tail].join("\n");
  if (bytes(whole) <= limit) return whole;
  const note = (n: number) => `… ${n} more line${n === 1 ? "" : "s"} left out to keep this text under ${Math.round(limit / 1024)} KB: everything is in structuredContent.`;
  let used = bytes([...head, note(body.length), ...tail].join("\n"));
  let kept = 0;
  while (kept < body.length && used + bytes(body[kept]!) + 1 <= limit) used += bytes(body[kept++]!) + 1;
  const text = [...head, ...body.slice(0, kept), note(body.length - kept), ...tail].join("\n");
  return bytes(text) <= limit ? text : truncateBytes(text, limit);
}

/** The longest prefix of `s` within `limit` UTF-8 bytes, ending in "…" when cut. */
function truncateBytes(s: string, limit: number): string {
  const encoded = new TextEncoder().encode(s);
  if (encoded.length <= limit) return s;
  const cut = new TextDecoder().decode(encoded.subarray(0, limit - 3)).replace(/\uFFFD$/, "");
  return cut + "…";
}

const demoLines = (demo: boolean) => (demo ? [DEMO_BANNER] : []);

/** Puts the demo banner on top of a text made from demo data. */
export function withDemoBanner(text: string, demo: boolean): string {
  return demo ? `${DEMO_BANNER}\n${text}` : text;
}

// ---- numbers and words ----

const one = (x: number) => (Math.round(x * 10) / 10).toFixed(1);
const whole = (x: number) => String(Math.round(x));
const COMPASS = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"];
/** A direction in degrees (coming from) as a 16-point compass name. */
export const compass = (degrees: number) => COMPASS[Math.round((((degrees % 360) + 360) % 360) / 22.5) % 16]!;

/** WMO weather codes as a few words. */
export function weatherWords(code: number): string {
  if (code === 0) return "clear";
  if (code === 1) return "mainly clear";
  if (code === 2) return "partly cloudy";
  if (code === 3) return "overcast";
  if (code === 45 || code === 48) return "fog";
  if (code >= 51 && code <= 57) return "drizzle";
  if (code >= 61 && code <= 67) return "rain";
  if (code >= 71 && code <= 77) return "snow";
  if (code >= 80 && code <= 82) return "rain showers";
  if (code === 85 || code === 86) return "snow showers";
  if (code >= 95) return "thunderstorms";
  return `weather code ${code}`;
}

function mostFrequent<T>(values: readonly T[]): T | undefined {
  const counts = new Map<T, number>();
  let best: T | undefined;
  for (const v of values) {
    const n = (counts.get(v) ?? 0) + 1;
    counts.set(v, n);
    if (best === undefined || n > counts.get(best)!) best = v;
  }
  return best;
}

/** The earliest and latest of some instants (ISO strings; nulls skipped), for a LocalClock's span. */
function spanOf(instants: readonly (string | null | undefined)[]): [number, number] | undefined {
  let from = Infinity;
  let to = -Infinity;
  for (const i of instants) {
    if (!i) continue;
    const ms = Date.parse(i);
    if (ms < from) from = ms;
    if (ms > to) to = ms;
  }
  return from <= to ? [from, to] : undefined;
}

const LEVEL_LETTER: Record<Level, string> = { beginner: "B", intermediate: "I", advanced: "A" };
const LEVELS: readonly Level[] = ["beginner", "intermediate", "advanced"];

function windowText(w: BestWindow | null | undefined, clock: LocalClock): string {
  return w ? `${w.rating} ${clock.at(w.start).time}-${clock.at(w.end).time}` : "-";
}

function extremesText(extremes: readonly TideExtreme[], clock: LocalClock): string {
  return extremes.map((e) => `${e.type === "high" ? "H" : "L"} ${clock.at(e.time).time} ${one(e.height)}`).join(", ");
}

// ---- get_forecast ----

function surfOf(h: ForecastHour): string {
  if (!h.surf) return `~${one(h.waveHeight)}`;
  return h.surf.max < 0.05 ? "flat" : `${one(h.surf.min)}-${one(h.surf.max)}`;
}

function hourRow(h: ForecastHour, local: LocalInstant): string {
  const wind = `${whole(h.windSpeed)} g${whole(h.windGust)} ${compass(h.windDirection)}${h.windDirectionType ? ` ${h.windDirectionType}` : ""}`;
  const tide = h.tide ? ` | ${one(h.tide.height)} ${h.tide.state === "rising" ? "↑" : "↓"}` : "";
  const sure = h.confidence ? ` | ${h.confidence.level}` : "";
  return (
    `${local.time} | ${surfOf(h)} | ${one(h.swellHeight)} ${whole(h.wavePeriod)}s ${compass(h.waveDirection)} | ${wind} | ` +
    `${h.rating.beginner}/${h.rating.intermediate}/${h.rating.advanced}${tide}${sure}`
  );
}

/**
 * A forecast as a model reads it: a header, then per day (the forecast's `daily` rows, which are the spot's local
 * days) one line with the sun, weather and temperatures, the best window per level, the high and low waters, and
 * one row per hour of daylight (an hour that overlaps sunrise..sunset; every hour of a day without sunrise or
 * sunset). About 6–9 KB for 7 days; night hours and every field are in structuredContent.
 */
export function forecastText(f: ForecastResponse, spot: Pick<Spot, "id" | "name" | "country" | "timezone">, tides: TidesResponse | null): string {
  const tideExtremes = tides?.extremes ?? [];
  const clock = new LocalClock(
    spot.timezone,
    spanOf([f.hours[0]?.time, f.hours.at(-1)?.time, f.daily[0]?.sunrise, f.daily.at(-1)?.sunset, tideExtremes[0]?.time, tideExtremes.at(-1)?.time]),
  );
  const tidal = f.hours.some((h) => h.tide !== null);
  const datum = f.datum ? ` above ${f.datum}` : "";
  const unit = UNIT_LABELS[f.units];
  const head = [
    ...demoLines(f.demo === true),
    `${spot.name}, ${spot.country} (${spot.id}): surf forecast, updated ${zonedDateTime(f.updatedAt, spot.timezone)}. ` +
      `Times are local (${clock.describe(f.hours[0]?.time ?? f.updatedAt)}).`,
    `Each day: sun, weather, air and water ${unit.temperature}, UV; best = rating 1-5 and window per level (B beginner, I intermediate, A advanced; - = nothing above 1); tides = high (H) and low (L) waters, ${unit.height}${datum}.`,
    `Then one row per daylight hour: time | surf ${unit.height} (breaking face height at the beach; ~ = sea wave height; flat = none) | swell ${unit.height}, period, from | wind ${unit.speed}, gust, from, type | rating B/I/A 1-5` +
      (tidal ? ` | tide ${unit.height}${datum}, ↑ rising or ↓ falling` : "") +
      (f.hours.some((h) => h.confidence) ? " | how far the wave models agree (high, medium, low)." : "."),
  ];
  // Each hour and extreme is parsed and placed in local time once (Date.parse is most of the cost otherwise).
  const starts = f.hours.map((h) => Date.parse(h.time));
  const locals = starts.map((ms) => clock.at(ms));
  const extremesOn = new Map<string, TideExtreme[]>();
  for (const e of tideExtremes) {
    const date = clock.at(e.time).date;
    extremesOn.set(date, [...(extremesOn.get(date) ?? []), e]);
  }
  const body: string[] = [];
  for (const day of f.daily) {
    const light = day.sunrise !== null && day.sunset !== null ? [Date.parse(day.sunrise), Date.parse(day.sunset)] : null;
    const indexes = starts.flatMap((start, i) => ((light ? start < light[1]! && start + HOUR_MS > light[0]! : locals[i]!.date === day.date) ? [i] : []));
    const hours = indexes.map((i) => f.hours[i]!);
    const weekday = weekdayOf(day.date);
    const facts: string[] = [light ? `sun ${clock.at(day.sunrise!).time}-${clock.at(day.sunset!).time}` : "no sunrise or sunset"];
    if (hours.length > 0) {
      const air = hours.map((h) => h.airTemperature);
      const [low, high] = [whole(Math.min(...air)), whole(Math.max(...air))];
      facts.push(weatherWords(mostFrequent(hours.map((h) => h.weatherCode))!), `air ${low === high ? low : `${low} to ${high}`}${unit.temperature}`, `water ${whole(hours[0]!.waterTemperature)}${unit.temperature}`);
    }
    facts.push(`UV ${one(day.uvIndexMax)}`);
    body.push(`${weekday} ${day.date}: ${facts.join(", ")}`);
    if (day.best) body.push(`best ${LEVELS.map((l) => `${LEVEL_LETTER[l]} ${windowText(day.best![l], clock)}`).join(", ")}`);
    if (tides && !tides.tideless) {
      const ofDay = extremesOn.get(day.date) ?? [];
      body.push(`tides ${ofDay.length ? extremesText(ofDay, clock) : "-"}`);
    }
    if (hours.length === 0) body.push("(no daylight hours ahead)");
    for (const i of indexes) body.push(hourRow(f.hours[i]!, locals[i]!));
  }
  const tail = [
    `Full data: every hour (night too), swell components, temperatures and weather codes, UTC times, in structuredContent (the /v1 forecast JSON).`,
  ];
  if (!f.demo) tail.push(`Attribution: ${f.attribution}`);
  return fitText(head, body, tail);
}

// ---- get_tides ----

export function tidesText(t: TidesResponse, spot: Pick<Spot, "id" | "name" | "country" | "timezone">): string {
  const clock = new LocalClock(spot.timezone, spanOf([t.extremes[0]?.time, t.extremes.at(-1)?.time]));
  const name = `${spot.name}, ${spot.country} (${spot.id})`;
  if (t.tideless) return `${name} is tideless${t.tidelessReason ? `: ${t.tidelessReason}` : ""}. No tide times.`;
  if (t.extremes.length === 0) {
    const why = t.unavailable === "awaiting_model" ? "the sea-level model has not been fetched for it yet" : t.unavailable === "model_expired" ? "its stored sea-level week has passed" : "none stored";
    return `${name}: no tide times to show (${why}).`;
  }
  const from =
    t.source?.type === "model"
      ? `, from the sea-level model ${t.source.name}`
      : t.station
        ? `, from the tide station ${t.station.name} (${t.station.source}), ${one(t.station.distanceKm)} km away`
        : "";
  const head = [`${name}: high (H) and low (L) waters, ${UNIT_LABELS[t.units].height}${t.datum ? ` above ${t.datum}` : ""}${from}. Times are local (${clock.describe(t.extremes[0]!.time)}).`];
  const byDate = new Map<string, TideExtreme[]>();
  for (const e of t.extremes) {
    const date = clock.at(e.time).date;
    byDate.set(date, [...(byDate.get(date) ?? []), e]);
  }
  const body = [...byDate].map(([date, list]) => `${clock.at(list[0]!.time).weekday} ${date}: ${extremesText(list, clock)}`);
  return fitText(head, body, ["UTC times and heights to the millimetre are in structuredContent (the /v1 tides JSON)."]);
}

// ---- spot_observations ----

const NO_READING: Record<NonNullable<ObservationsAnswer["reason"]>, string> = {
  no_buoy_in_reach: "no wave buoy within reach (NDBC's buoys are mostly off US coasts)",
  stale: "its newest wave reading is older than 3 hours",
  source_unavailable: "NDBC cannot be read just now",
  observations_off: "buoy observations are switched off on this server",
};

/** "label figure unit", only for the figures the buoy has. */
const figures = (parts: readonly [string, number | null, string][]) => parts.flatMap(([label, value, unit]) => (value === null ? [] : [`${label} ${value}${unit}`])).join(", ");

export function observationsText(o: ObservationsAnswer & { units: Units }): string {
  const imperial = o.units === "imperial";
  const [length, speed, degrees] = [imperial ? "ft" : "m", imperial ? "mph" : "km/h", imperial ? "°F" : "°C"] as const;
  const clock = new LocalClock(o.spot.timezone, spanOf([o.hours[0]?.time, o.latest?.time ?? o.hours.at(-1)?.time]));
  const measured = o.latest?.time ?? o.hours.at(-1)?.time;
  const head = `${o.spot.name} (${o.spot.id})${measured ? `, times local (${clock.describe(measured)})` : ""}: `;
  const lines: string[] = [];
  if (o.buoy && o.latest) {
    lines.push(`${head}${buoyPhrase(briefObservation(o.buoy, o.latest), o.forecast?.waveHeight ?? null, length)}. Measured at ${clock.at(o.latest.time).time}.`);
    const l = o.latest;
    const more = figures([
      ["swell", l.swellHeight, ` ${length}`],
      ["swell period", l.swellPeriod, " s"],
      ["swell from", l.swellDirection, "°"],
      ["wind sea", l.windWaveHeight, ` ${length}`],
      ["wind", l.windSpeed, ` ${speed}`],
      ["gusts", l.windGust, ` ${speed}`],
      ["wind from", l.windDirection, "°"],
      ["water", l.waterTemperature, ` ${degrees}`],
      ["air", l.airTemperature, ` ${degrees}`],
    ]);
    if (more) lines.push(`Also: ${more}.`);
  } else {
    const buoy = o.buoy ? `buoy ${o.buoy.id} ${o.buoy.name}, ${o.buoy.distanceKm} km: ` : "";
    lines.push(`${head}no current buoy reading: ${buoy}${NO_READING[o.reason ?? "source_unavailable"]}.`);
  }
  if (o.hours.length > 0) {
    const hour = (h: ObservationsAnswer["hours"][number]) => `${clock.at(h.time).time} ${h.waveHeight}${h.dominantPeriod === null ? "" : `/${h.dominantPeriod}`}`;
    lines.push(`Last 24 h, wave height ${length}/dominant period s: ${o.hours.map(hour).join(", ")}.`);
  }
  lines.push(`${o.attribution} Every figure, UTC times: structuredContent (the /v1 JSON).`);
  return lines.join("\n");
}

// ---- search_spots, spots_nearby, best_spots ----

const place = (s: Pick<Spot, "country" | "region">) => (s.region ? `${s.country}, ${s.region}` : s.country);
const SPOT_ID_USE = "Pass an id as spot_id to get_forecast, get_tides, surf_summary or spot_now.";
const MORE_FIELDS = "Every field (hexId, facing, tideless, timezone) is in structuredContent (the /v1 JSON), as {spots: [...]}.";

/** Four decimals of a degree: about 11 m, closer than any spot's extent. */
const degrees = (x: number) => String(Number(x.toFixed(4)));

function spotRow(s: Spot): string {
  return `${s.id} | ${s.name} | ${place(s)} | ${degrees(s.lat)}, ${degrees(s.lng)}`;
}

export function searchText(query: string, spots: readonly Spot[]): string {
  // JSON quoting: a query's quotes or line breaks cannot break the text's lines.
  if (spots.length === 0) return `No spot matches ${JSON.stringify(query)}.`;
  const head = [`${spots.length} spot${spots.length === 1 ? "" : "s"} matching ${JSON.stringify(query)}, best match first: id | name | country, region | lat, lng. ${SPOT_ID_USE}`];
  return fitText(head, spots.map(spotRow), [MORE_FIELDS]);
}

export function nearbyText(p: { lat: number; lng: number; radius: number }, spots: readonly SpotWithDistance[]): string {
  const around = `within ${p.radius} km of ${p.lat}, ${p.lng}`;
  if (spots.length === 0) return `No spot ${around}.`;
  const head = [`${spots.length} spot${spots.length === 1 ? "" : "s"} ${around}, closest first: id | name | country, region | lat, lng | distance. ${SPOT_ID_USE}`];
  return fitText(head, spots.map((s) => `${spotRow(s)} | ${one(s.distanceKm)} km`), [MORE_FIELDS]);
}

export function bestSpotsText(p: { lat: number; lng: number; radius: number; level: Level; hours: number; units: Units }, spots: readonly BestSpot[], demo: boolean): string {
  const around = `within ${p.radius} km of ${p.lat}, ${p.lng}`;
  if (spots.length === 0) return withDemoBanner(`No spot with a forecast ${around}.`, demo);
  const zones = new Set(spots.map((s) => s.spot.timezone));
  const shared = zones.size === 1 ? new LocalClock(spots[0]!.spot.timezone, spanOf(spots.flatMap((s) => [s.best?.start, s.best?.end]))) : null;
  const firstStart = spots.find((s) => s.best)?.best?.start;
  const head = [
    ...demoLines(demo),
    `Best spots for ${p.level} surfers ${around} over the next ${p.hours} hours, best first: id | name | country, region | distance | ` +
      `rating 1-5 of the best window of daylight hours and its local time${shared ? ` (${firstStart ? shared.describe(firstStart) : shared.zone})` : " (with the spot's zone)"} | surf ${UNIT_LABELS[p.units].height} (breaking face height) over it | wind type | how far the wave models agree over it. ` +
      SPOT_ID_USE,
  ];
  const body = spots.map((s) => {
    const clock = shared ?? new LocalClock(s.spot.timezone, s.best ? [s.best.start, s.best.end] : undefined);
    let window = "(nothing above 1 in daylight)";
    if (s.best) {
      const start = clock.at(s.best.start);
      window = `${start.weekday} ${start.date} ${start.time}-${clock.at(s.best.end).time}${shared ? "" : ` ${clock.zone}`}`;
    }
    const surf = s.surf ? `surf ${one(s.surf.min)}-${one(s.surf.max)}` : "surf ?";
    return `${s.spot.id} | ${s.spot.name} | ${place(s.spot)} | ${one(s.spot.distanceKm)} km | ${s.rating} ${window} | ${surf} | ${s.windDirectionType ?? "wind ?"} | models ${s.confidence}`;
  });
  return fitText(head, body, ["Coordinates, UTC window times and every spot field are in structuredContent (the /v1 JSON), as {spots: [...]}."]);
}

/** The calling key's alerts, each with its condition and its next windows in the spot's local time. */
export function alertsText(alerts: readonly KeyAlert[]): string {
  if (alerts.length === 0) return "This key has no alerts. Its owner makes them in the developer console (Alerts page).";
  const body = alerts.flatMap((a) => {
    // A name stored before the one-line rule may hold control characters: escaped, it cannot start a line of its own.
    const head = `${a.id} | ${escapeControls(a.name)} | ${a.spot.name} (${a.spot.id}) | ${describeCondition(a.condition)} | by ${a.delivery} | ${alertState(a)}`;
    if (a.nextWindows === null) return [head, "  no forecast for this spot yet"];
    if (a.nextWindows.length === 0) return [head, "  no window in the forecast"];
    return [
      head,
      ...a.nextWindows.map(
        (w) => `  ${windowSpan(w.start, w.end, a.spot.timezone)}; best ${zonedTime(w.best.time, a.spot.timezone)}: ${w.best.waveHeight} m, ${w.best.wavePeriod} s, wind ${w.best.windSpeed} km/h ${w.best.windDirectionType ?? "?"}, rating ${w.best.rating}`,
      ),
    ];
  });
  return fitText([`${alerts.length} alert${alerts.length === 1 ? "" : "s"} of this key (id | name | spot | condition | delivery | state), then each one's next windows in the spot's local time:`], body, []);
}

const MONTH_NAMES = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;
const percent = (share: number) => `${Math.round(share * 100)}%`;

/** The climate in a line per month and the best months per level. */
export function climateText(c: ClimateResponse): string {
  const [height, speed] = c.units === "imperial" ? ["ft", "mph"] : ["m", "km/h"];
  const months = c.months.map((m) => {
    const offshore = m.offshoreShare === null ? "" : `, offshore ${percent(m.offshoreShare)}`;
    const good = `good days B ${percent(m.goodDays.beginner)} I ${percent(m.goodDays.intermediate)} A ${percent(m.goodDays.advanced)}`;
    return `${MONTH_NAMES[m.month - 1]}: waves ${m.waveHeight.p25}–${m.waveHeight.p75} ${height} (median ${m.waveHeight.p50}) ${m.wavePeriod.p50} s from ${compass(m.waveDirection.dominant)}; wind ${m.windSpeed.p50} ${speed}${offshore}; ${good}`;
  });
  const best = (level: keyof ClimateResponse["bestMonths"]) => c.bestMonths[level].map((m) => MONTH_NAMES[m - 1]).join(", ") || "none";
  return [
    `${escapeControls(c.spot.name)} (${c.spot.id}): climate ${c.source.years.from}–${c.source.years.to}, ERA5-Ocean cell ${c.source.cell.lat}, ${c.source.cell.lng} (${c.source.cell.distanceKm} km)`,
    ...months,
    `Best months: beginner ${best("beginner")}; intermediate ${best("intermediate")}; advanced ${best("advanced")}.`,
    `Data: ${c.attribution}`,
  ].join("\n");
}
