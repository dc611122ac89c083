/**
 * Each embed's own allowance of views (docs/embeds.md, "Counting"), apart from its key's API quota: a view is
 * counted once per embed and UTC minute — the first view of a minute counts one view-minute, later views that
 * minute (any mode, 200 or 304) are served from the same page uncounted — up to the plan's view-minutes a day
 * (plans.ts EMBED_LIMITS). Spent, the embed answers the 429 page until the next UTC midnight, whatever its key's
 * state. On one box held in memory: a restart gives every embed its day's allowance afresh (counted view-minutes
 * already written to the key's usage stay there). Several servers count in Redis (shared-allowance.ts).
 */
import { DAY_MS, MINUTE_MS } from "../core/clock";

/** `counted`: the first view of a minute (count it); `free`: that minute is counted already; `spent`: refuse. */
export type ViewVerdict = "counted" | "free" | "spent";

/** Takes a view of an embed (whose key is `keyId`) from its allowance of `minutesPerDay` view-minutes. */
export interface Views {
  take(embedId: string, keyId: string, minutesPerDay: number, now: number): ViewVerdict | Promise<ViewVerdict>;
}

/** The views of one server, in its memory. */
export class ViewAllowance implements Views {
  private day = -Infinity;
  /** Per embed viewed today: view-minutes counted, and the last minute counted. Emptied at each UTC midnight. */
  private today = new Map<string, { minutes: number; last: number }>();

  take(embedId: string, _keyId: string, minutesPerDay: number, now: number): ViewVerdict {
    const day = Math.floor(now / DAY_MS);
    if (day !== this.day) {
      this.day = day;
      this.today = new Map();
    }
    const minute = Math.floor(now / MINUTE_MS);
    let used = this.today.get(embedId);
    if (used === undefined) this.today.set(embedId, (used = { minutes: 0, last: -Infinity }));
    if (used.last === minute) return "free";
    if (used.minutes >= minutesPerDay) return "spent";
    used.minutes++;
    used.last = minute;
    return "counted";
  }

  /** View-minutes counted today for an embed (0 when not viewed today). */
  used(embedId: string, now: number): number {
    return Math.floor(now / DAY_MS) === this.day ? (this.today.get(embedId)?.minutes ?? 0) : 0;
  }
}
