/**
 * Admitting from slices: on several servers, a request of a key far from its limits reserves, in the same Redis
 * round trip that admits it, a small slice of the key's quota and burst window (counted there at once, like
 * admitted requests); the server then admits the key's next requests from that slice without asking Redis,
 * so they are answered at once rather than after a round trip. Near a limit no slice is granted and every request
 * is decided in Redis, one at a time: the limits stay exact where they refuse.
 *
 * What a slice costs: its units count as used from the moment they are reserved, so a request never goes
 * uncounted (a server that dies holding a slice has spent it); units left unused when the slice ends (after
 * LIFETIME_MS, at a new UTC day, when the key's limits change, on stop) are given back. Pure: no I/O, no clock.
 */
import { DAY_MS, utcDay } from "../core/clock";
import type { Limits } from "./limiter";

/** How large a slice Redis grants: see the admit script in redis-limits.ts, which applies it. */
export interface SliceRule {
  /** The largest slice; 0 asks for none. */
  largest: number;
  /** A slice is at most this share (1/n) of what the day's quota leaves … */
  dailyShare: number;
  /** … and of what the burst window leaves. */
  burstShare: number;
  /** Smaller slices are not worth a round trip to give back: none is granted. */
  smallest: number;
  /** No slice while the quota or the burst window leaves less than this. */
  dailyFloor: number;
  burstFloor: number;
}

export const NO_SLICE: SliceRule = { largest: 0, dailyShare: 1, burstShare: 1, smallest: 1, dailyFloor: 0, burstFloor: 0 };

/**
 * The servers' rule. With n servers each holding a slice, at most n/16 of what the burst window leaves is
 * reserved unused at once, and a key whose quota leaves under 1,000 or whose window leaves under 100 is decided
 * request by request (a plan's smaller limits always are).
 */
export const SLICE_RULE: SliceRule = { largest: 64, dailyShare: 64, burstShare: 16, smallest: 4, dailyFloor: 1_000, burstFloor: 100 };

/** A slice is used for at most this long, so that its units are counted in the burst window near when they are used. */
export const LIFETIME_MS = 1_000;

interface Slice {
  day: string;
  dayNumber: number;
  dailyLimit: number;
  minuteLimit: number;
  /** The epoch second the slice was counted in (its units sit in that second of the burst window). */
  second: number;
  grantedAt: number;
  left: number;
  /** The quota's and the window's counts in Redis just after the slice was reserved. */
  usedTodayAfter: number;
  windowUsedAfter: number;
}

/** What one request admitted from a slice reports in its rate-limit headers. */
export interface SliceAdmission {
  usedToday: number;
  windowUsed: number;
  burstResetSeconds: number;
}

/** Units to give back: a slice that ended with units unused. */
export interface Giveback {
  keyId: string;
  day: string;
  second: number;
  units: number;
}

export class Slices {
  private held = new Map<string, Slice>();
  private ended: Giveback[] = [];
  /** Keys whose last ask got no slice, until when not to ask again: meanwhile their requests go to Redis side by side. */
  private refused = new Map<string, number>();

  constructor(private readonly rule: SliceRule = SLICE_RULE) {}

  /**
   * Whether an admission of `keyId` should ask for a slice (and the key's other requests wait for it): not for
   * limits too small ever to get one, nor for a lifetime after an ask got none.
   */
  worthAsking(keyId: string, limits: Limits, now: number): boolean {
    if (limits.dailyLimit < this.rule.dailyFloor || limits.minuteLimit < this.rule.burstFloor) return false;
    const until = this.refused.get(keyId);
    if (until === undefined) return true;
    if (now < until) return false;
    this.refused.delete(keyId);
    return true;
  }

  /** Admits `weight` units of `keyId` from its slice, or null when it has no live slice with that many left. */
  take(keyId: string, limits: Limits, weight: number, now: number): SliceAdmission | null {
    const slice = this.held.get(keyId);
    if (!slice) return null;
    if (!this.live(slice, limits, now)) {
      this.end(keyId, slice);
      return null;
    }
    if (slice.left < weight) return null;
    slice.left -= weight;
    return {
      usedToday: slice.usedTodayAfter - slice.left,
      windowUsed: slice.windowUsedAfter - slice.left,
      burstResetSeconds: Math.max(0, Math.ceil(((slice.second + 60) * 1000 - now) / 1000)),
    };
  }

  /** Keeps the slice Redis reserved beside an admitted request; a slice the key still held ends. */
  grant(keyId: string, limits: Limits, units: number, usedTodayAfter: number, windowUsedAfter: number, now: number): void {
    const previous = this.held.get(keyId);
    if (previous) this.end(keyId, previous);
    if (units <= 0) {
      this.refused.set(keyId, now + LIFETIME_MS);
      return;
    }
    this.held.set(keyId, {
      day: utcDay(now),
      dayNumber: Math.floor(now / DAY_MS),
      dailyLimit: limits.dailyLimit,
      minuteLimit: limits.minuteLimit,
      second: Math.floor(now / 1000),
      grantedAt: now,
      left: units,
      usedTodayAfter,
      windowUsedAfter,
    });
  }

  /** Ends the slices past their lifetime (every slice when `all`) and hands over every unused unit to give back. */
  takeEnded(now: number, all = false): Giveback[] {
    for (const [keyId, until] of this.refused) if (now >= until) this.refused.delete(keyId);
    for (const [keyId, slice] of this.held) if (all || now - slice.grantedAt >= LIFETIME_MS || slice.dayNumber !== Math.floor(now / DAY_MS)) this.end(keyId, slice);
    const ended = this.ended;
    this.ended = [];
    return ended;
  }

  /** Gives back what could not be given back, for the next try. */
  restore(givebacks: readonly Giveback[]): void {
    this.ended.push(...givebacks);
  }

  private live(slice: Slice, limits: Limits, now: number): boolean {
    return now - slice.grantedAt < LIFETIME_MS && slice.dailyLimit === limits.dailyLimit && slice.minuteLimit === limits.minuteLimit && slice.dayNumber === Math.floor(now / DAY_MS);
  }

  private end(keyId: string, slice: Slice): void {
    this.held.delete(keyId);
    if (slice.left > 0) this.ended.push({ keyId, day: slice.day, second: slice.second, units: slice.left });
  }
}
