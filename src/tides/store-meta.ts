/**
 * What the tide stores (SQLite and PostgreSQL) share: what they keep in `meta` (the stored window's bounds and the
 * station rule), and the columns of a spot's station choice and model reading they read and write.
 */
import type { TideWindow } from "./window";

export const TIDE_META = {
  windowStart: "tides.window.start",
  windowEnd: "tides.window.end",
  rule: "tides.rule",
} as const;

/** The window from its stored bounds (ISO times), or null while either is missing. */
export function windowOf(start: string | null, end: string | null): TideWindow | null {
  return start && end ? { start: Date.parse(start), end: Date.parse(end) } : null;
}

/** A window's bounds as stored. */
export function windowBounds(w: TideWindow): { start: string; end: string } {
  return { start: new Date(w.start).toISOString(), end: new Date(w.end).toISOString() };
}

/** A spot's stored station choice: its fields and the spot_tide_station columns they are kept in (columnsOf). */
export const CHOICE_COLUMNS = {
  tideless: "tideless",
  stationId: "stationId",
  stationName: "stationName",
  stationSource: "stationSource",
  distanceKm: "distanceKm",
  datum: "datum",
  reason: "reason",
} as const;

/** A spot's stored model reading: its fields and the spot_tide_model columns they are kept in (columnsOf). */
export const MODEL_COLUMNS = {
  hasData: "hasData",
  rangeM: "rangeM",
  windowRangeM: "windowRangeM",
  stationRangeM: "stationRangeM",
  since: "since",
  fetchedAt: "fetchedAt",
} as const;
