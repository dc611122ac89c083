/**
 * Limit arithmetic, pure: a sliding 60-second window for the per-minute burst (at most N requests in the
 * current second and the 59 before it) and a per-UTC-day counter for the quota. No I/O, no clock of its own.
 *
 * The window keeps one counter per second in a ring of 60 slots, so its cost and its persisted size are
 * constant per key, whatever the request rate.
 */
import { nextUtcMidnight } from "../core/clock";

const SLOTS = 60;

export interface Limits {
  dailyLimit: number;
  minuteLimit: number;
}

export type Verdict = { allowed: true } | { allowed: false; retryAfterSeconds: number; blockedBy: "daily" | "burst" };

const ALLOWED: Verdict = Object.freeze({ allowed: true });

export class BurstWindow {
  /** The absolute second (epoch s) each slot counts; a slot is live while its second is within the window. */
  private readonly seconds = new Float64Array(SLOTS).fill(-Infinity);
  private readonly counts = new Uint32Array(SLOTS);
  /** `used()` of the second last asked about: it is asked two or three times per request. */
  private usedSecond = -Infinity;
  private usedTotal = 0;
  /** The latest second counted: while it is in the window, the window empties 60 s after it. */
  private newest = -Infinity;

  private static live(slotSecond: number, nowSecond: number): boolean {
    return slotSecond > nowSecond - SLOTS && slotSecond <= nowSecond;
  }

  /** Requests counted in the window that ends at `now`. */
  used(now: number): number {
    const nowSecond = Math.floor(now / 1000);
    if (nowSecond === this.usedSecond) return this.usedTotal;
    let total = 0;
    for (let i = 0; i < SLOTS; i++) if (BurstWindow.live(this.seconds[i]!, nowSecond)) total += this.counts[i]!;
    this.usedSecond = nowSecond;
    this.usedTotal = total;
    return total;
  }

  /** Counts `n` requests at `now` (a GET /v1/now for several spots counts one per spot). */
  add(now: number, n = 1): void {
    const second = Math.floor(now / 1000);
    const i = ((second % SLOTS) + SLOTS) % SLOTS;
    if (this.seconds[i] !== second) {
      this.seconds[i] = second;
      this.counts[i] = 0;
    }
    this.counts[i]! += n;
    if (second > this.newest) this.newest = second;
    if (second === this.usedSecond) this.usedTotal += n;
    else this.usedSecond = -Infinity;
  }

  /** Live slots, oldest first, as [second, count] pairs. */
  private liveSlots(now: number): [number, number][] {
    const nowSecond = Math.floor(now / 1000);
    const slots: [number, number][] = [];
    for (let i = 0; i < SLOTS; i++) {
      if (this.counts[i]! > 0 && BurstWindow.live(this.seconds[i]!, nowSecond)) slots.push([this.seconds[i]!, this.counts[i]!]);
    }
    return slots.sort((a, b) => a[0] - b[0]);
  }

  /** Whole seconds until the window holds fewer than `limit` requests (≥ 1). */
  retryAfterSeconds(limit: number, now: number): number {
    let excess = this.used(now) - limit + 1;
    for (const [second, count] of this.liveSlots(now)) {
      excess -= count;
      if (excess <= 0) return Math.max(1, Math.ceil(((second + SLOTS) * 1000 - now) / 1000));
    }
    return 1;
  }

  /** Seconds until the window is empty again (the `t` of the burst policy). Runs per request: O(1) as a rule. */
  resetSeconds(now: number): number {
    const nowSecond = Math.floor(now / 1000);
    let newest = this.newest;
    if (!BurstWindow.live(newest, nowSecond)) newest = this.newestLive(nowSecond);
    return newest === -Infinity ? 0 : Math.max(0, Math.ceil(((newest + SLOTS) * 1000 - now) / 1000));
  }

  /** The latest live second with a count, by a scan: only when `newest` has left the window (or the clock went back). */
  private newestLive(nowSecond: number): number {
    let newest = -Infinity;
    for (let i = 0; i < SLOTS; i++) {
      const second = this.seconds[i]!;
      if (this.counts[i]! > 0 && second > newest && BurstWindow.live(second, nowSecond)) newest = second;
    }
    return newest;
  }

  /** The live slots as `[[second, count], …]`: at most 60 pairs. */
  serialize(now: number): string {
    return JSON.stringify(this.liveSlots(now));
  }

  /** Restores a serialized window; anything unreadable restores an empty one. */
  static parse(text: string | undefined): BurstWindow {
    const window = new BurstWindow();
    if (!text) return window;
    try {
      const pairs: unknown = JSON.parse(text);
      if (!Array.isArray(pairs)) return window;
      for (const pair of pairs) {
        if (!Array.isArray(pair) || !Number.isInteger(pair[0]) || !Number.isInteger(pair[1]) || pair[1] < 0) continue;
        const [second, count] = pair as [number, number];
        const i = ((second % SLOTS) + SLOTS) % SLOTS;
        window.seconds[i] = second;
        window.counts[i] = count;
        if (count > 0 && second > window.newest) window.newest = second;
      }
    } catch {
      /* an unreadable window is an empty one */
    }
    return window;
  }
}

/**
 * Decides one request, which counts as `weight` requests (1 but for a multi-spot GET /v1/now). The daily quota is checked first: when it blocks, the burst window cannot free it.
 * Retry-After is whole seconds, at least 1, until the blocking limit lets a request through.
 */
export function decide(limits: Limits, usedToday: number, window: BurstWindow, now: number, weight = 1): Verdict {
  if (usedToday + weight > limits.dailyLimit) return dailyRefusal(now);
  if (window.used(now) + weight > limits.minuteLimit) {
    // Room for `weight` requests is room for one request under a limit `weight - 1` lower.
    return { allowed: false, blockedBy: "burst", retryAfterSeconds: window.retryAfterSeconds(Math.max(1, limits.minuteLimit - weight + 1), now) };
  }
  return ALLOWED;
}

/** A refusal by the daily quota: it frees at the next UTC midnight, whatever the burst window holds. */
export function dailyRefusal(now: number): Extract<Verdict, { allowed: false }> {
  return { allowed: false, blockedBy: "daily", retryAfterSeconds: Math.max(1, Math.ceil((nextUtcMidnight(now) - now) / 1000)) };
}

/** The rate-limit header values that stay the same for a key all UTC day. */
export interface FixedRateLimitHeaders {
  limit: string;
  reset: string;
  policy: string;
}

export function fixedRateLimitHeaders(limits: Limits, now: number): FixedRateLimitHeaders {
  return {
    limit: String(limits.dailyLimit),
    reset: new Date(nextUtcMidnight(now)).toISOString().replace(".000Z", "Z"),
    policy: `"burst";q=${limits.minuteLimit};w=60, "daily";q=${limits.dailyLimit};w=86400`,
  };
}

/** The values that change per request: `X-RateLimit-Remaining` and the draft's `RateLimit`. */
export function varyingRateLimitHeaders(limits: Limits, usedToday: number, window: BurstWindow, now: number): { remaining: string; rateLimit: string } {
  return varyingHeadersOfCounts(limits, usedToday, window.used(now), window.resetSeconds(now), now);
}

/**
 * The same values from the counts alone, wherever they are kept (a BurstWindow here, Redis for several servers):
 * what the quota counted today, what the burst window holds at `now`, and the seconds until that window is empty.
 */
export function varyingHeadersOfCounts(
  limits: Limits,
  usedToday: number,
  windowUsed: number,
  burstResetSeconds: number,
  now: number,
): { remaining: string; rateLimit: string } {
  const dailyRemaining = Math.max(0, limits.dailyLimit - usedToday);
  const burstRemaining = Math.max(0, limits.minuteLimit - windowUsed);
  const dailyReset = Math.ceil((nextUtcMidnight(now) - now) / 1000);
  const remaining = String(dailyRemaining);
  return { remaining, rateLimit: rateLimitField(burstRemaining, burstResetSeconds, remaining, dailyReset) };
}

/** The draft's `RateLimit` field: what is left of each window and the seconds until it resets. */
export function rateLimitField(burstRemaining: number, burstResetSeconds: number, dailyRemaining: number | string, dailyResetSeconds: number): string {
  return `"burst";r=${burstRemaining};t=${burstResetSeconds}, "daily";r=${dailyRemaining};t=${dailyResetSeconds}`;
}

/** The 429 message, shared by /v1 and /mcp so both say the same thing. */
export function refusalMessage(verdict: Extract<Verdict, { allowed: false }>): string {
  const which = verdict.blockedBy === "daily" ? "Daily quota" : "Per-minute burst limit";
  return `${which} exceeded. Retry after ${verdict.retryAfterSeconds} s.`;
}
