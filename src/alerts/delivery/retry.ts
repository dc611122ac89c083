/**
 * When a failed delivery is tried again: soon at first (a receiver restarting), then further apart (a receiver
 * down for the night), for a day from the first attempt, after which the event is stale anyway.
 */
import { HOUR_MS, MINUTE_MS } from "../../core/clock";

/** The wait after the n-th failed attempt (the last one repeats). */
export const RETRY_DELAYS_MS: readonly number[] = [
  30_000,
  2 * MINUTE_MS,
  10 * MINUTE_MS,
  30 * MINUTE_MS,
  HOUR_MS,
  2 * HOUR_MS,
  4 * HOUR_MS,
  8 * HOUR_MS,
];

export const GIVE_UP_AFTER_MS = 24 * HOUR_MS;

/**
 * The time of the next attempt after `attemptsSoFar` failed ones (the last of them just now), or null when that
 * would fall more than a day after the first attempt.
 */
export function nextAttemptAt(firstAttemptAt: Date, attemptsSoFar: number, now: Date): Date | null {
  if (attemptsSoFar < 1) return now;
  const delay = RETRY_DELAYS_MS[Math.min(attemptsSoFar, RETRY_DELAYS_MS.length) - 1]!;
  const next = now.getTime() + delay;
  return next - firstAttemptAt.getTime() > GIVE_UP_AFTER_MS ? null : new Date(next);
}
