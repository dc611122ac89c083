/**
 * When the forecast refreshes run: the start-up check, the next scheduled time and the retry back-off. Pure; the
 * jobs that act on them are wired above the app (server/forecast-jobs.ts).
 */
import { Cron } from "croner";

/** A document older than this at startup triggers an immediate refresh. */
export const STALE_AFTER_MS = 12 * 3_600_000;

/** Why a startup refresh is needed (missing or stale documents), or null when all are fresh. */
export function startupRefreshReason(spotIds: readonly string[], ages: ReadonlyMap<string, number>, now: number): string | null {
  let missing = 0;
  let stale = 0;
  for (const id of spotIds) {
    const updatedAt = ages.get(id);
    if (updatedAt === undefined) missing++;
    else if (now - updatedAt > STALE_AFTER_MS) stale++;
  }
  if (missing === 0 && stale === 0) return null;
  return `${missing} spots without a forecast, ${stale} older than 12 h`;
}

/** The next scheduled refresh after `from` over all cron expressions (UTC). */
export function nextRefreshAt(crons: readonly string[], from: Date): Date | null {
  const next = crons.map((c) => new Cron(c, { timezone: "UTC", paused: true }).nextRun(from)).filter((d): d is Date => d !== null);
  return next.length === 0 ? null : new Date(Math.min(...next.map((d) => d.getTime())));
}

/** After an incomplete run the scheduler retries what it missed after 10, 20, 40 … minutes. */
export const FIRST_RETRY_MS = 10 * 60_000;

/**
 * When to retry after `failures` incomplete runs in a row (1 = the first), or null when that would be at or
 * after the next scheduled run (which refreshes every spot anyway).
 */
export function retryAt(failures: number, now: number, nextScheduled: Date | null, firstRetryMs = FIRST_RETRY_MS): number | null {
  const at = now + firstRetryMs * 2 ** (failures - 1);
  return nextScheduled !== null && at >= nextScheduled.getTime() ? null : at;
}
