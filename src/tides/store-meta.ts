/** What the tide stores (SQLite and PostgreSQL) keep in `meta`: the stored window's bounds and the station rule. */
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
