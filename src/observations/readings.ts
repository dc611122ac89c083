/**
 * A buoy's readings and a spot's buoy. Pure: rows in, readings out.
 *
 * - The `.txt` and `.spec` rows of one buoy merge by time into one reading (the spectral summary at hh:40 belongs to
 *   the wave rows at hh:40 and hh:50, not to the wind-only row at hh:00).
 * - `latest` is the newest reading with a wave height; the last 24 hours keep, for each hour, the reading nearest it.
 * - A spot's buoy is the nearest station in reach whose file carries a wave height.
 */
import { HOUR_MS, MINUTE_MS } from "../core/clock";
import { haversineKm } from "../core/geo";
import type { MetRow, SpecRow, Station } from "./ndbc";
import type { readingFields } from "./types";

/** One moment at a buoy, both files together; every figure null where the files have none (the answers' figures). */
export type Reading = { /** Epoch ms, UTC. */ time: number } & { [K in keyof typeof readingFields]: number | null };

/** How far a spectral row may be from a standard row to describe the same waves (the files' cadences differ). */
export const SPEC_MATCH_MS = 20 * MINUTE_MS;
/** A reading stands for an hour when it is at most this far from it. */
export const HOUR_MATCH_MS = 30 * MINUTE_MS;
/** A newest wave reading older than this is stale: no `latest`. */
export const STALE_AFTER_MS = 3 * HOUR_MS;
/** The default reach from a spot to its buoy (SURFCAST_BUOY_RADIUS_KM). */
export const DEFAULT_BUOY_RADIUS_KM = 100;
/** DART stations measure the sea level for tsunamis: no waves, no realtime2 `.txt`. */
const WITHOUT_WAVES: ReadonlySet<string> = new Set(["dart"]);

const NO_SPEC = { swellHeight: null, swellPeriod: null, swellDirection: null, windWaveHeight: null, windWavePeriod: null } as const;

function fromMet(met: MetRow, spec: SpecRow | undefined): Reading {
  return {
    time: met.time,
    waveHeight: met.waveHeight ?? spec?.waveHeight ?? null,
    dominantPeriod: met.dominantPeriod,
    averagePeriod: met.averagePeriod ?? spec?.averagePeriod ?? null,
    waveDirection: met.waveDirection ?? spec?.waveDirection ?? null,
    ...(spec ? { swellHeight: spec.swellHeight, swellPeriod: spec.swellPeriod, swellDirection: spec.swellDirection, windWaveHeight: spec.windWaveHeight, windWavePeriod: spec.windWavePeriod } : NO_SPEC),
    windSpeed: met.windSpeed,
    windGust: met.windGust,
    windDirection: met.windDirection,
    waterTemperature: met.waterTemperature,
    airTemperature: met.airTemperature,
    pressure: met.pressure,
  };
}

const NO_MET: Omit<MetRow, "time"> = {
  windDirection: null,
  windSpeed: null,
  windGust: null,
  waveHeight: null,
  dominantPeriod: null,
  averagePeriod: null,
  waveDirection: null,
  pressure: null,
  airTemperature: null,
  waterTemperature: null,
};

/** The index of the item nearest `time` within `withinMs` in a newest-first list, or -1. */
function nearestIndex(items: readonly { time: number }[], time: number, withinMs: number, accept: (i: number) => boolean = () => true): number {
  // The first item not newer than the window, by bisection: a 45-day file has thousands of rows.
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (items[mid]!.time > time + withinMs) low = mid + 1;
    else high = mid;
  }
  let best = -1;
  for (let i = low; i < items.length && items[i]!.time >= time - withinMs; i++) {
    if (accept(i) && (best === -1 || Math.abs(items[i]!.time - time) < Math.abs(items[best]!.time - time))) best = i;
  }
  return best;
}

/**
 * One buoy's readings, newest first: each standard wave row with the spectral row nearest it (within SPEC_MATCH_MS),
 * each other standard row with the spectral row of its minute, and each spectral row left over on its own. Both lists newest first, as NDBC writes them.
 */
export function mergeReadings(met: readonly MetRow[], spec: readonly SpecRow[]): Reading[] {
  const used = new Set<number>();
  const readings = met.map((row) => {
    // A row without waves takes only the spectral row of its own minute: the waves were measured then, not at its time.
    const i = nearestIndex(spec, row.time, row.waveHeight === null ? 0 : SPEC_MATCH_MS);
    if (i !== -1) used.add(i);
    return fromMet(row, i === -1 ? undefined : spec[i]);
  });
  spec.forEach((row, i) => {
    if (!used.has(i)) readings.push(fromMet({ time: row.time, ...NO_MET }, row));
  });
  return readings.sort((a, b) => b.time - a.time);
}

/** The newest reading with a wave height, or null. */
export const latestWaveReading = (readings: readonly Reading[]): Reading | null => readings.find((r) => r.waveHeight !== null) ?? null;

/**
 * For each hour (epoch ms, any order), the wave reading nearest it within HOUR_MATCH_MS; hours without one are left
 * out. The pairing of the hourly answer and of verification alike.
 */
export function readingsByHour(readings: readonly Reading[], hours: readonly number[]): { hour: number; reading: Reading }[] {
  const out: { hour: number; reading: Reading }[] = [];
  for (const hour of hours) {
    const i = nearestIndex(readings, hour, HOUR_MATCH_MS, (j) => readings[j]!.waveHeight !== null);
    if (i !== -1) out.push({ hour, reading: readings[i]! });
  }
  return out;
}

/** The 24 UTC hour starts up to `now`, oldest first. */
export function lastDayHours(now: number): number[] {
  const newest = Math.floor(now / HOUR_MS) * HOUR_MS;
  return Array.from({ length: 24 }, (_, i) => newest - (23 - i) * HOUR_MS);
}

/** A station's short name is at most this long. */
const SHORT_NAME_MAX = 32;

/**
 * A station's name for a one-line answer: NDBC's names are often "SHORT NAME - where it is"; the part before the dash,
 * cut at SHORT_NAME_MAX characters (`/now` keeps each spot's answer small). The whole name is in the observations answer.
 */
export function shortStationName(name: string): string {
  const short = name.split(" - ")[0]!.trim();
  return short.length <= SHORT_NAME_MAX ? short : `${short.slice(0, SHORT_NAME_MAX - 1).trimEnd()}…`;
}

export interface Candidate {
  station: Station;
  distanceKm: number;
}

/** The stations within `radiusKm` of a point that may carry waves, nearest first. */
export function candidateStations(stations: readonly Station[], lat: number, lng: number, radiusKm: number): Candidate[] {
  return stations
    .filter((s) => !WITHOUT_WAVES.has(s.type))
    .map((station) => ({ station, distanceKm: haversineKm(lat, lng, station.lat, station.lng) }))
    .filter((c) => c.distanceKm <= radiusKm)
    .sort((a, b) => a.distanceKm - b.distanceKm);
}

/** What a candidate's stored files say about it. */
export type CandidateState = "waves" | "no_waves" | "unavailable";

/** Why there is no `latest`. */
export type ObservationsReason = "no_buoy_in_reach" | "stale" | "source_unavailable" | "observations_off";

/**
 * The buoy among candidates (nearest first, each with its state): the first with waves. Stations whose files carry
 * no wave height are passed over; when none has waves, the reason is the source's when a candidate could not be read.
 */
export function chooseBuoy<C>(candidates: readonly (C & { state: CandidateState })[]): { buoy: C } | { reason: "no_buoy_in_reach" | "source_unavailable" } {
  const buoy = candidates.find((c) => c.state === "waves");
  if (buoy) return { buoy };
  return { reason: candidates.some((c) => c.state === "unavailable") ? "source_unavailable" : "no_buoy_in_reach" };
}

/**
 * The latest reading to show, or why none: a newest wave reading older than STALE_AFTER_MS is not shown; it is
 * `source_unavailable` when the buoy's files are failing, `stale` when the buoy itself has said nothing newer.
 */
export function freshLatest(readings: readonly Reading[], now: number, failing: boolean): { latest: Reading } | { reason: "stale" | "source_unavailable" } {
  const latest = latestWaveReading(readings);
  if (latest && now - latest.time <= STALE_AFTER_MS) return { latest };
  return { reason: failing ? "source_unavailable" : "stale" };
}
