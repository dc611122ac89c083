/**
 * One line of text for a now answer (the MCP `spot_now` tool), a few hundred bytes: what an assistant needs to
 * say "is it on, and when does the tide turn" without reading JSON. Times are the spot's local clock. Pure.
 */
import type { NowResponse } from "./types";
import { AGREEMENT_WORDS } from "../forecast/consensus";
import { clockTime as clock } from "../core/local-time";
import { buoyPhrase } from "../observations/summary";

const LEVELS = "beginner/intermediate/advanced";

function duration(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h === 0 ? `${m} min` : m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/** The hour's surf range (issue "surf intelligence") when stored, else the wave height. */
function waves(conditions: Record<string, unknown>, length: string): string {
  const surf = conditions.surf as { min?: number; max?: number } | undefined;
  if (typeof surf?.min === "number" && typeof surf.max === "number") return `surf ${surf.min}–${surf.max} ${length}`;
  return `waves ${conditions.waveHeight} ${length}`;
}

/** "3 wave models agree well (1.5–1.7 m)": how sure the hour's wave height is, when stored. */
function agreement(c: NonNullable<NowResponse["conditions"]>, length: string): string {
  const k = c.confidence;
  if (!k) return "";
  const words = AGREEMENT_WORDS[k.level];
  const spread = k.waveHeight.min === k.waveHeight.max ? `${k.waveHeight.median} ${length}` : `${k.waveHeight.min}–${k.waveHeight.max} ${length}`;
  return k.models === 1 ? `, one wave model (${spread})` : `, ${k.models} wave models ${words} (${spread})`;
}

/** `season`: a clause on the spot's season (climate/season.ts) when the month is among its best, else null. */
export function nowSummary(r: NowResponse, season: string | null = null): string {
  const imperial = r.units === "imperial";
  const length = imperial ? "ft" : "m";
  const speed = imperial ? "mph" : "km/h";
  const degrees = imperial ? "°F" : "°C";
  const zone = r.spot.timezone;
  const parts: string[] = [];
  const c = r.conditions;
  if (c) {
    const wind = c.windDirectionType ? `${c.windDirectionType} wind` : "wind";
    parts.push(
      `${waves(c as unknown as Record<string, unknown>, length)} (swell ${c.swellHeight} ${length}, ${c.wavePeriod} s from ${c.waveDirection}°)${agreement(c, length)}, ` +
        `${wind} ${c.windSpeed} ${speed} gusting ${c.windGust}, rating ${c.rating.beginner}/${c.rating.intermediate}/${c.rating.advanced} (${LEVELS}), ` +
        `water ${c.waterTemperature} ${degrees}`,
    );
  } else parts.push("no forecast stored yet");
  if (r.observation) parts.push(buoyPhrase(r.observation, c?.waveHeight ?? null, length));
  const t = r.tide;
  if (t) {
    const next = t.nextEvent;
    const other = next.type === "high" ? t.nextLow : t.nextHigh;
    parts.push(
      `tide ${t.height} ${length} ${t.state}${t.datum ? ` (above ${t.datum})` : ""}, ${next.type} ${next.height} ${length} at ${clock(next.time, zone)} ` +
        `(in ${duration(next.minutesUntil)}), then ${next.type === "high" ? "low" : "high"} ${other.height} ${length} at ${clock(other.time, zone)}`,
    );
  } else parts.push("no tide (tideless spot)");
  if (r.sun?.sunrise && r.sun.sunset) parts.push(`${r.sun.daylight ? "daylight" : "dark"}, sunrise ${clock(r.sun.sunrise, zone)}, sunset ${clock(r.sun.sunset, zone)}`);
  if (season) parts.push(season);
  return `${r.spot.name} (${r.spot.country}) now, ${clock(r.time, zone)} local time (${zone}): ${parts.join("; ")}.${r.demo ? "" : " Weather data: Open-Meteo (CC BY 4.0)."}`;
}
