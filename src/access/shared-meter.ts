/**
 * The usage meter of several servers: each admission is decided and counted in Redis (RedisLimits: one round trip),
 * so a key's quota and burst window are exact across the servers, and its rate-limit headers come from the counts
 * Redis returned. Redis not answering rejects the admission with an Outage: the request gets a 503, never an
 * uncounted answer.
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
import { varyingHeadersOfCounts } from "./limiter";
import { SharedRuns } from "../core/shared-runs";
import { dayHeaders, meteredTotal, usageReport, type DayCount, type Meter, type Metered, type UNMETERED, type UsageReport } from "./meter";
import { PendingCounts } from "./pending-counts";
import type { RedisLimits } from "./redis-limits";
import type { Principal } from "./registry";
import type { UsageStore } from "./store";

/** A key's day-fixed headers, rebuilt when the day or the key's limits change. */
interface FixedHeaders {
  dayNumber: number;
  dailyLimit: number;
  minuteLimit: number;
  headers: Headers;
}

export class SharedUsageMeter implements Meter {
  private pending = new PendingCounts();
  private fixed = new Map<string, FixedHeaders>();
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
  ) {}

  /** Nothing to load: Redis holds every key's counts. */
  ready(): null {
    return null;
  }

  async admit(principal: Principal, endpoint: UsageKey | null, weight = 1): Promise<Metered> {
    const now = this.clock.now();
    const counted = await this.limits.admit(principal.keyId, principal, endpoint, weight, now, (day) => this.storedCount(principal.keyId, day));
    const { verdict } = counted;
    if (!verdict.allowed) this.refusals[verdict.blockedBy]++;
    else if (endpoint !== null) this.count(principal.keyId, now, endpoint, weight);
    const varying = varyingHeadersOfCounts(principal, counted.usedToday, counted.windowUsed, counted.burstResetSeconds, now);
    return { verdict, headers: { shared: this.fixedHeaders(principal, now), own: { "X-RateLimit-Remaining": varying.remaining, RateLimit: varying.rateLimit } } };
  }

  async record(principal: Principal, endpoint: (typeof UNMETERED)[number], weight = 1): Promise<void> {
    const now = this.clock.now();
    await this.limits.record(principal.keyId, endpoint, weight, now);
    this.count(principal.keyId, now, endpoint, weight);
  }

  /** What the quota counted of the key's day as far as the database and this server know. */
  private storedCount(keyId: string, day: string): Promise<number> {
    return this.seeds.run(`${keyId} ${day}`, async () => meteredTotal([...(await this.store.countsByDay([keyId], day)), ...this.pending.ofKey(keyId, day)], day));
  }

  private count(keyId: string, now: number, endpoint: UsageKey, weight: number): void {
    this.admitted.set(endpoint, (this.admitted.get(endpoint) ?? 0) + weight);
    this.pending.add(PendingCounts.keyOf(keyId, utcDay(now), endpoint), weight);
  }

  private fixedHeaders(principal: Principal, now: number): Headers {
    const dayNumber = Math.floor(now / DAY_MS);
    const kept = this.fixed.get(principal.keyId);
    if (kept && kept.dayNumber === dayNumber && kept.dailyLimit === principal.dailyLimit && kept.minuteLimit === principal.minuteLimit) return kept.headers;
    const headers = dayHeaders(principal, now);
    this.fixed.set(principal.keyId, { dayNumber, dailyLimit: principal.dailyLimit, minuteLimit: principal.minuteLimit, headers });
    return headers;
  }

  /** Adds this server's counts to the database's; kept for the next flush when the database does not answer. */
  flush(): Promise<void> {
    return this.turns.run(async () => {
      const now = this.clock.now();
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
    });
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
