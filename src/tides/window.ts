/**
 * The rolling window of stored tide extremes: from yesterday's UTC midnight to the UTC midnight nine days after
 * today's (so "now + 7 days" is always inside, with a day to spare). Pure.
 */
import { DAY_MS } from "../core/clock";

export const WINDOW_PAST_DAYS = 1;
export const WINDOW_FUTURE_DAYS = 9;

export interface TideWindow {
  start: number;
  end: number;
}

export function windowAt(now: number): TideWindow {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return { start: today - WINDOW_PAST_DAYS * DAY_MS, end: today + WINDOW_FUTURE_DAYS * DAY_MS };
}

/** What has to be predicted to move the stored window to `target`: nothing, a tail [from, target.end), or all of it. */
export type WindowWork = { kind: "none" } | { kind: "extend"; from: number } | { kind: "full" };

export function windowWork(stored: TideWindow | null, target: TideWindow): WindowWork {
  if (!stored || stored.start > target.start || stored.end < target.start) return { kind: "full" };
  if (stored.end >= target.end) return { kind: "none" };
  return { kind: "extend", from: stored.end };
}
