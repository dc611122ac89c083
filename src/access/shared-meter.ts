/**
 * The usage meter of several servers: admissions are decided and counted in Redis (RedisLimits: one round trip),
 * so a key's quota and burst window are exact across the servers, and its rate-limit headers come from the counts
 * Redis returned. A key far from its limits gets a slice reserved beside such an admission, and its next requests
 * are admitted from it here, without a round trip (quota-lease.ts); near a limit every request goes to Redis.
 * Redis not answering rejects the admission with an Outage: the request gets a 503, never an uncounted answer.
 *
 * Each server also adds what it admitted to the database's usage counts (flushed like UsageMeter's, every half
 * second and on stop): the lasting record, which `surfcast migrate` filled with the single box's history and which
 * outlives a Redis that lost its data: when Redis has no count of a key's day (its first request of the day, or a
 * Redis restarted without its data, flushed or failed over), the day starts from the database's count plus this
 * server's unwritten one, so the quota holds. A usage report takes, per day and endpoint, the larger of Redis's count
 * (exact, immediate) and the database's (the sum of the servers' flushed counts, a moment behind).
 */
import { DAY_MS, utcDay, type Clock } from "../core/clock";
import type { UsageKey } from "../core/endpoints";
import { Serial } from "../core/serial";
import type { MaybePromise } from "../core/maybe-promise";
import { varyingHeadersOfCounts, type Verdict } from "./limiter";
import { SharedRuns } from "../core/shared-runs";
import { dayHeaders, meteredTotal, usageReport, type DayCount, type Meter, type Metered, type UNMETERED, type UsageReport } from "./meter";
import { PendingCounts } from "./pending-counts";
import { NO_SLICE, SLICE_RULE, Slices, type Giveback, type SliceRule } from "./quota-lease";
import type { RedisLimits } from "./redis-limits";
import type { Principal } from "./registry";
import type { UsageCount, UsageStore } from "./store";

/**
 * What stays the same all of a key's day: its day-fixed headers and the pending-count keys of its endpoints (built
 * once, not per request), rebuilt when the day or the key's limits change.
 */
interface KeyDay {
  dayNumber: number;
  day: string;
  dailyLimit: number;
  minuteLimit: number;
  headers: Headers;
  countKeys: Map<string, string>;
}

const ALLOWED: Verdict = Object.freeze({ allowed: true });

/** One call of the settle script: a key's day of uses admitted from slices, and units of one slice given back. */
interface Settlement {
  keyId: string;
  day: string;
  back: number;
  second: number;
  uses: [string, number][];
}

export class SharedUsageMeter implements Meter {
  private pending = new PendingCounts();
  private readonly slices: Slices;
  /** Uses admitted from slices and not yet added to Redis's usage counts. */
  private sliceUses = new PendingCounts();
  /** A key's admission in Redis that may bring a slice: the key's other requests meanwhile wait for it. */
  private leading = new Map<string, Promise<unknown>>();
  private days = new Map<string, KeyDay>();
  private readonly turns = new Serial();
  /** One database read per key and day for the requests that find Redis without the day's count at once. */
  private readonly seeds = new SharedRuns();
  readonly refusals = { daily: 0, burst: 0 };
  readonly admitted = new Map<string, number>();
  lastFlushAt = Date.now();

  constructor(
    private readonly limits: RedisLimits,
    private readonly store: UsageStore,
    private readonly clock: Clock,
    private readonly rule: SliceRule = SLICE_RULE,
  ) {
    this.slices = new Slices(rule);
  }

  /** Nothing to load: Redis holds every key's counts. */
  ready(): null {
    return null;
  }

  admit(principal: Principal, endpoint: UsageKey | null, weight = 1): MaybePromise<Metered> {
    const now = this.clock.now();
    // Slices only while Redis is connected: a Redis that went away refuses every request at once (503), slice or not.
    if (endpoint !== null && this.limits.connected) {
      const fromSlice = this.slices.take(principal.keyId, principal, weight, now);
      if (fromSlice) {
        // Counted for the database and, at the next settle, for Redis's usage: one key for both.
        this.sliceUses.add(this.count(principal, now, endpoint, weight), weight);
        return this.metered(principal, ALLOWED, fromSlice.usedToday, fromSlice.windowUsed, fromSlice.burstResetSeconds, now);
      }
      const leading = this.leading.get(principal.keyId);
      if (leading) return leading.then(() => this.admit(principal, endpoint, weight));
    }
    return this.admitInRedis(principal, endpoint, weight, now);
  }

  private admitInRedis(principal: Principal, endpoint: UsageKey | null, weight: number, now: number): Promise<Metered> {
    const leads = endpoint !== null && this.slices.worthAsking(principal.keyId, principal, now);
    const decided = this.limits.admit(principal.keyId, principal, endpoint, weight, now, leads ? this.rule : NO_SLICE, (day) => this.storedCount(principal.keyId, day)).then((counted) => {
      const { verdict, slice } = counted;
      if (!verdict.allowed) this.refusals[verdict.blockedBy]++;
      else if (endpoint !== null) this.count(principal, now, endpoint, weight);
      if (leads) this.slices.grant(principal.keyId, principal, slice, counted.usedToday, counted.windowUsed, now);
      // This request's own counts: the slice reserved with it is used by the ones after it.
      return this.metered(principal, verdict, counted.usedToday - slice, counted.windowUsed - slice, counted.burstResetSeconds, now);
    });
    if (leads) {
      const settled = decided.then(
        () => undefined,
        () => undefined,
      );
      this.leading.set(principal.keyId, settled);
      void settled.then(() => {
        if (this.leading.get(principal.keyId) === settled) this.leading.delete(principal.keyId);
      });
    }
    return decided;
  }

  private metered(principal: Principal, verdict: Verdict, usedToday: number, windowUsed: number, burstResetSeconds: number, now: number): Metered {
    const varying = varyingHeadersOfCounts(principal, usedToday, windowUsed, burstResetSeconds, now);
    return { verdict, headers: { shared: this.keyDay(principal, now).headers, own: { "X-RateLimit-Remaining": varying.remaining, RateLimit: varying.rateLimit } } };
  }

  async record(principal: Principal, endpoint: (typeof UNMETERED)[number], weight = 1): Promise<void> {
    const now = this.clock.now();
    await this.limits.record(principal.keyId, endpoint, weight, now);
    this.count(principal, now, endpoint, weight);
  }

  /** What the quota counted of the key's day as far as the database and this server know. */
  private storedCount(keyId: string, day: string): Promise<number> {
    return this.seeds.run(`${keyId} ${day}`, async () => meteredTotal([...(await this.store.countsByDay([keyId], day)), ...this.pending.ofKey(keyId, day)], day));
  }

  /** Counts an admitted use for the database; returns its pending-count key. */
  private count(principal: Principal, now: number, endpoint: UsageKey, weight: number): string {
    this.admitted.set(endpoint, (this.admitted.get(endpoint) ?? 0) + weight);
    const keyDay = this.keyDay(principal, now);
    let countKey = keyDay.countKeys.get(endpoint);
    if (countKey === undefined) keyDay.countKeys.set(endpoint, (countKey = PendingCounts.keyOf(principal.keyId, keyDay.day, endpoint)));
    this.pending.add(countKey, weight);
    return countKey;
  }

  private keyDay(principal: Principal, now: number): KeyDay {
    const dayNumber = Math.floor(now / DAY_MS);
    const kept = this.days.get(principal.keyId);
    if (kept && kept.dayNumber === dayNumber && kept.dailyLimit === principal.dailyLimit && kept.minuteLimit === principal.minuteLimit) return kept;
    const keyDay = { dayNumber, day: utcDay(now), dailyLimit: principal.dailyLimit, minuteLimit: principal.minuteLimit, headers: dayHeaders(principal, now), countKeys: new Map<string, string>() };
    this.days.set(principal.keyId, keyDay);
    return keyDay;
  }

  /**
   * Adds this server's counts to the database's, and to Redis's usage what it admitted from slices, giving back
   * the slices that ended; what does not get through is kept for the next flush.
   */
  flush(): Promise<void> {
    return this.settleAndStore(false);
  }

  /** The last flush: every slice ends and gives back what it holds. */
  close(): Promise<void> {
    return this.settleAndStore(true);
  }

  private settleAndStore(endEverySlice: boolean): Promise<void> {
    return this.turns.run(async () => {
      const now = this.clock.now();
      const [settled, stored] = await Promise.allSettled([this.settle(now, endEverySlice), this.storeCounts(now)]);
      for (const result of [settled, stored]) if (result.status === "rejected") throw result.reason;
    });
  }

  private async storeCounts(now: number): Promise<void> {
    const counts = this.pending.take();
    if (counts.length > 0) {
      try {
        await this.store.saveUsage(counts, []);
      } catch (err) {
        this.pending.restore(counts);
        throw err;
      }
    }
    this.lastFlushAt = now;
  }

  private async settle(now: number, endEverySlice: boolean): Promise<void> {
    const givebacks = this.slices.takeEnded(now, endEverySlice);
    const uses = this.sliceUses.take();
    const settlements = settlementsOf(givebacks, uses);
    const results = await Promise.allSettled(settlements.map((s) => this.limits.settle(s.keyId, s.day, s.back, s.second, s.uses)));
    let failure: unknown = null;
    results.forEach((result, i) => {
      if (result.status === "fulfilled") return;
      const s = settlements[i]!;
      failure ??= result.reason;
      if (s.back > 0) this.slices.restore([{ keyId: s.keyId, day: s.day, second: s.second, units: s.back }]);
      this.sliceUses.restore(s.uses.map(([endpoint, count]) => ({ keyId: s.keyId, day: s.day, endpoint, count })));
    });
    if (failure !== null) throw failure;
  }

  async report(principal: Principal): Promise<UsageReport> {
    const now = this.clock.now();
    const [counted, stored] = await Promise.all([this.limits.usage(principal.keyId, 30, now), this.store.countsByDay([principal.keyId], utcDay(now - 29 * DAY_MS))]);
    const larger = new Map<string, DayCount>();
    for (const c of [...stored, ...this.pending.ofKey(principal.keyId)]) {
      const key = `${c.day} ${c.endpoint}`;
      const kept = larger.get(key);
      if (kept) kept.count += c.count;
      else larger.set(key, { day: c.day, endpoint: c.endpoint, count: c.count });
    }
    for (const { date, byEndpoint } of counted) {
      for (const [endpoint, count] of Object.entries(byEndpoint)) {
        const kept = larger.get(`${date} ${endpoint}`);
        if (kept) kept.count = Math.max(kept.count, count);
        else larger.set(`${date} ${endpoint}`, { day: date, endpoint, count });
      }
    }
    return usageReport(principal, now, larger.values());
  }

  async reportText(principal: Principal): Promise<string> {
    return JSON.stringify(await this.report(principal));
  }
}

/** One settlement per key and day, carrying its uses and its first giveback; further givebacks of it ride alone. */
function settlementsOf(givebacks: readonly Giveback[], uses: readonly UsageCount[]): Settlement[] {
  const byKeyDay = new Map<string, Settlement>();
  const alone: Settlement[] = [];
  const of = (keyId: string, day: string) => {
    const id = `${keyId} ${day}`;
    let s = byKeyDay.get(id);
    if (!s) byKeyDay.set(id, (s = { keyId, day, back: 0, second: 0, uses: [] }));
    return s;
  };
  for (const use of uses) of(use.keyId, use.day).uses.push([use.endpoint, use.count]);
  for (const g of givebacks) {
    const s = of(g.keyId, g.day);
    if (s.back === 0) Object.assign(s, { back: g.units, second: g.second });
    else alone.push({ keyId: g.keyId, day: g.day, back: g.units, second: g.second, uses: [] });
  }
  return [...byKeyDay.values(), ...alone];
}
