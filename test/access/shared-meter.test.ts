/**
 * The meter of several servers (src/access/shared-meter.ts): two meters on one Redis count one key's quota together,
 * with exact rate-limit headers; each adds what it admitted to the database's usage counts; a report takes the
 * larger of Redis's and the database's counts, so every server answers the same; a Redis that does not answer
 * refuses the admission as an outage (a 503 at the gate), never as an uncounted admission.
 * Needs Redis at 127.0.0.1:6379 (scripts/services.sh starts it) and skips, saying so, without it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { answersPing, LOCAL_REDIS_URL } from "../support/redis";
import { ManualClock, utcDay } from "../../src/core/clock";
import { isOutage } from "../../src/core/errors";
import { RedisConnection } from "../../src/access/redis-connection";
import { limitKeys, RedisLimits } from "../../src/access/redis-limits";
import { LIFETIME_MS } from "../../src/access/quota-lease";
import { RedisClient } from "bun";
import { SharedUsageMeter } from "../../src/access/shared-meter";
import type { Principal } from "../../src/access/registry";
import type { UsageCount, UsageStore } from "../../src/access/store";
import { freePort } from "../support/env";

const REDIS_URL = LOCAL_REDIS_URL;
const available = await answersPing(REDIS_URL);
if (!available) console.warn(`shared-meter.test: skipped — nothing answers at ${REDIS_URL} (scripts/services.sh starts it)`);

/** The database's usage counts, as the PostgreSQL store keeps them: added up per key, day and endpoint. */
class MemoryUsageStore implements Pick<UsageStore, "saveUsage" | "countsByDay"> {
  readonly rows = new Map<string, UsageCount>();
  async saveUsage(counts: readonly UsageCount[]): Promise<void> {
    for (const c of counts) {
      const key = `${c.keyId} ${c.day} ${c.endpoint}`;
      const row = this.rows.get(key);
      if (row) row.count += c.count;
      else this.rows.set(key, { ...c });
    }
  }
  async countsByDay(keyIds: readonly string[], firstDay: string) {
    return [...this.rows.values()].filter((r) => keyIds.includes(r.keyId) && r.day >= firstDay).map(({ day, endpoint, count }) => ({ day, endpoint, count }));
  }
}

const connections: RedisConnection[] = [];
afterAll(() => {
  for (const c of connections) c.close();
});

async function meterOn(store: MemoryUsageStore, clock: ManualClock, prefix: string, url = REDIS_URL): Promise<SharedUsageMeter> {
  return (await countedMeterOn(store, clock, prefix, url)).meter;
}

/** A meter and how many admissions it has asked Redis to decide. */
async function countedMeterOn(store: MemoryUsageStore, clock: ManualClock, prefix: string, url = REDIS_URL) {
  const connection = new RedisConnection(url, { commandTimeoutMs: 500 });
  connections.push(connection);
  if (url === REDIS_URL) await connection.ready();
  const limits = new RedisLimits(connection, prefix);
  const asked = { admissions: 0 };
  const admit = limits.admit.bind(limits);
  limits.admit = (...args) => {
    asked.admissions++;
    return admit(...args);
  };
  return { meter: new SharedUsageMeter(limits, store as unknown as UsageStore, clock), asked };
}

const redis = available ? new RedisClient(REDIS_URL) : null;
afterAll(() => redis?.close());

describe.skipIf(!available)("the shared meter", () => {
  const clock = new ManualClock(Date.parse("2026-11-26T12:00:00Z"));
  const principal: Principal = { keyId: `key_${crypto.randomUUID().slice(0, 8)}`, accountId: 1, plan: "starter", dailyLimit: 5, minuteLimit: 100 };

  test("two servers share one quota, their headers exact; usage reaches the database; reports agree", async () => {
    const store = new MemoryUsageStore();
    const prefix = `surfcast-test:${crypto.randomUUID()}:`;
    const [a, b] = [await meterOn(store, clock, prefix), await meterOn(store, clock, prefix)];
    const remaining: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { verdict, headers } = await (i % 2 === 0 ? a : b).admit(principal, "forecast");
      expect(verdict.allowed).toBe(i < 5);
      remaining.push(headers.own["X-RateLimit-Remaining"]!);
      expect(headers.shared.get("X-RateLimit-Limit")).toBe("5");
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0", "0"]);
    expect(a.refusals.daily + b.refusals.daily).toBe(1);

    // Before any flush the database has nothing, yet both report what Redis counted.
    const [ra, rb] = [await a.report(principal), await b.report(principal)];
    expect(ra).toEqual(rb);
    expect(ra.today).toBe(5);
    expect(ra.days.at(-1)!.byEndpoint.forecast).toBe(5);

    await Promise.all([a.flush(), b.flush()]);
    expect(store.rows.get(`${principal.keyId} ${utcDay(clock.now())} forecast`)?.count).toBe(5);
    // Flushed once: a second flush adds nothing, and the reports stay the same.
    await a.flush();
    expect(store.rows.get(`${principal.keyId} ${utcDay(clock.now())} forecast`)?.count).toBe(5);
    expect(await a.report(principal)).toEqual(ra);
  });

  test("an earlier day only the database holds (a migrated history) shows in the report", async () => {
    const store = new MemoryUsageStore();
    const meter = await meterOn(store, clock, `surfcast-test:${crypto.randomUUID()}:`);
    const yesterday = utcDay(clock.now() - 86_400_000);
    await store.saveUsage([{ keyId: principal.keyId, day: yesterday, endpoint: "tides", count: 7 }]);
    const report = await meter.report(principal);
    expect(report.days.find((d) => d.date === yesterday)?.byEndpoint.tides).toBe(7);
    expect(report.today).toBe(0);
  });

  test("Redis not answering: the admission is refused as an outage, and nothing is counted", async () => {
    const store = new MemoryUsageStore();
    const meter = await meterOn(store, clock, "surfcast-test:gone:", `redis://127.0.0.1:${freePort()}`);
    const refused = await Promise.resolve(meter.admit(principal, "forecast")).then(
      () => null,
      (err: unknown) => err,
    );
    expect(isOutage(refused)).toBe(true);
    await meter.flush();
    expect(store.rows.size).toBe(0);
  });

  // ── admitting from slices ─────────────────────────────────────────────────────────────────────────

  const busy: Principal = { keyId: "key_busy", accountId: 2, plan: "scale", dailyLimit: 2_000, minuteLimit: 100_000 };

  test("three servers admitting from slices: exactly the quota, each count reported once, and Redis counts only what was used", async () => {
    const store = new MemoryUsageStore();
    const prefix = `surfcast-test:${crypto.randomUUID()}:`;
    const servers = await Promise.all([0, 1, 2].map(() => countedMeterOn(store, clock, prefix)));
    const answers: { allowed: boolean; remaining: number }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 30 }, async () => {
        for (let i = next++; i < 3_000; i = next++) {
          const { verdict, headers } = await servers[i % 3]!.meter.admit(busy, "forecast");
          answers.push({ allowed: verdict.allowed, remaining: Number(headers.own["X-RateLimit-Remaining"]) });
        }
      }),
    );
    const admitted = answers.filter((a) => a.allowed);
    expect(admitted).toHaveLength(2_000);
    // Every unit of the quota was answered once: the remaining counts are 1,999 … 0, each once.
    expect(admitted.map((a) => a.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 2_000 }, (_, i) => i));
    // While the quota left 1,000 or more, most requests were admitted from slices without a round trip; below that,
    // every request (the 1,000 refusals too) was decided in Redis.
    const fromSlices = 3_000 - servers.reduce((n, s) => n + s.asked.admissions, 0);
    expect(fromSlices).toBeGreaterThan(900);
    expect(fromSlices).toBeLessThan(1_000);

    await Promise.all(servers.map((s) => s.meter.close()));
    const keys = limitKeys(prefix, busy.keyId, utcDay(clock.now()));
    expect(Number(await redis!.get(keys.quota))).toBe(2_000);
    expect(Number(await redis!.hget(keys.usage, "forecast"))).toBe(2_000);
    expect(store.rows.get(`${busy.keyId} ${utcDay(clock.now())} forecast`)?.count).toBe(2_000);
    expect((await servers[0]!.meter.report(busy)).today).toBe(2_000);
    await redis!.del(keys.quota, keys.window, keys.usage);
  });

  test("a slice ends after its lifetime: what it did not use is given back to the quota and the burst window", async () => {
    const store = new MemoryUsageStore();
    const prefix = `surfcast-test:${crypto.randomUUID()}:`;
    const { meter, asked } = await countedMeterOn(store, clock, prefix);
    const start = clock.now();
    for (let i = 0; i < 5; i++) expect((await meter.admit(busy, "tides")).verdict.allowed).toBe(true);
    expect(asked.admissions).toBe(1);
    const keys = limitKeys(prefix, busy.keyId, utcDay(start));
    // The leading request and its slice are counted at once …
    expect(Number(await redis!.get(keys.quota))).toBeGreaterThan(5);
    clock.advance(LIFETIME_MS);
    await meter.flush();
    // … and once the slice ends, only the five used remain, in the second they were counted in.
    expect(Number(await redis!.get(keys.quota))).toBe(5);
    expect(Number(await redis!.hget(keys.window, String(Math.floor(start / 1000))))).toBe(5);
    expect(Number(await redis!.hget(keys.usage, "tides"))).toBe(5);
    // The next request asks Redis again.
    await meter.admit(busy, "tides");
    expect(asked.admissions).toBe(2);
    await meter.close();
    expect(Number(await redis!.get(keys.quota))).toBe(6);
    await redis!.del(keys.quota, keys.window, keys.usage);
  });

  test("a plan's own limits are too small for slices: every request is decided in Redis, side by side", async () => {
    const { meter, asked } = await countedMeterOn(new MemoryUsageStore(), clock, `surfcast-test:${crypto.randomUUID()}:`);
    const starter: Principal = { keyId: "key_starter", accountId: 3, plan: "starter", dailyLimit: 500, minuteLimit: 60 };
    const answers = await Promise.all(Array.from({ length: 10 }, () => meter.admit(starter, "forecast")));
    expect(asked.admissions).toBe(10);
    expect(answers.map((a) => a.headers.own["X-RateLimit-Remaining"]).sort()).toEqual(["490", "491", "492", "493", "494", "495", "496", "497", "498", "499"]);
  });
});
