/**
 * Limit arithmetic, pure: a sliding 60-second window for the per-minute burst (at most N requests in any 60 s)
 * and a per-UTC-day counter for the quota. No I/O, no clock of its own.
 */
import { nextUtcMidnight } from "../core/clock";

export const BURST_WINDOW_MS = 60_000;

export interface Limits {
  dailyLimit: number;
  minuteLimit: number;
}

export type Verdict = { allowed: true } | { allowed: false; retryAfterSeconds: number; blockedBy: "daily" | "burst" };

/** Drops request times that left the window. `recent` is sorted ascending and is modified in place. */
export function pruneWindow(recent: number[], now: number): void {
  const cutoff = now - BURST_WINDOW_MS;
  let drop = 0;
  while (drop < recent.length && recent[drop]! <= cutoff) drop++;
  if (drop > 0) recent.splice(0, drop);
}

/**
 * Decides one request. The daily quota is checked first: when it blocks, the burst window cannot free it.
 * Retry-After is whole seconds, at least 1, until the blocking limit lets a request through.
 */
export function decide(limits: Limits, usedToday: number, recent: number[], now: number): Verdict {
  if (usedToday >= limits.dailyLimit) {
    return { allowed: false, blockedBy: "daily", retryAfterSeconds: Math.max(1, Math.ceil((nextUtcMidnight(now) - now) / 1000)) };
  }
  pruneWindow(recent, now);
  if (recent.length >= limits.minuteLimit) {
    const freesAt = recent[recent.length - limits.minuteLimit]! + BURST_WINDOW_MS;
    return { allowed: false, blockedBy: "burst", retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now) / 1000)) };
  }
  return { allowed: true };
}

/** Seconds until the burst window is completely empty again (the `t` of the burst policy). */
export function burstResetSeconds(recent: number[], now: number): number {
  if (recent.length === 0) return 0;
  return Math.max(0, Math.ceil((recent[recent.length - 1]! + BURST_WINDOW_MS - now) / 1000));
}

/**
 * The rate-limit headers of the spec (X-RateLimit-*) and of the IETF draft (RateLimit-Policy, RateLimit).
 */
export function rateLimitHeaders(limits: Limits, usedToday: number, recent: number[], now: number): Record<string, string> {
  const midnight = nextUtcMidnight(now);
  const dailyRemaining = Math.max(0, limits.dailyLimit - usedToday);
  const burstRemaining = Math.max(0, limits.minuteLimit - recent.length);
  const dailyReset = Math.ceil((midnight - now) / 1000);
  return {
    "X-RateLimit-Limit": String(limits.dailyLimit),
    "X-RateLimit-Remaining": String(dailyRemaining),
    "X-RateLimit-Reset": new Date(midnight).toISOString().replace(".000Z", "Z"),
    "RateLimit-Policy": `"burst";q=${limits.minuteLimit};w=60, "daily";q=${limits.dailyLimit};w=86400`,
    RateLimit: `"burst";r=${burstRemaining};t=${burstResetSeconds(recent, now)}, "daily";r=${dailyRemaining};t=${dailyReset}`,
  };
}
