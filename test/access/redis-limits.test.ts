/**
 * Quotas, bursts and usage counted in Redis (src/access/redis-limits.ts): the same verdicts, Retry-After and
 * header numbers as the in-memory limiter, exact under concurrent nodes, the UTC day rollover and key lifetimes
 * on a driven clock, and faults (Redis absent, hung, restarted) as RedisUnavailable, never as an admission.
 * Needs Redis at 127.0.0.1:6379 (scripts/services.sh starts it) and skips, saying so, without it; the fault tests
 * run their own redis-server on a free port. Each test counts under its own key prefix and deletes its keys.
 */
import { answersPing } from "../support/redis";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { DAY_MS, utcDay } from "../../src/core/clock";
import { BurstWindow, decide, varyingHeadersOfCounts, varyingRateLimitHeaders, type Limits } from "../../src/access/limiter";
import type { UsageKey } from "../../src/core/endpoints";
import { RedisConnection, RedisUnavailable } from "../../src/access/redis-connection";
import { admissionOf, lastDays, limitKeys, RedisLimits, usageOf, type Admission } from "../../src/access/redis-limits";
import { freePort } from "../support/env";

const REDIS_URL = "redis://127.0.0.1:6379";


const available = await answersPing(REDIS_URL);
if (!available) console.warn(`redis-limits.test: Redis tests skipped — nothing answers at ${REDIS_URL} (scripts/services.sh starts it)`);
const redisServer = Bun.which("redis-server");
if (!redisServer) console.warn("redis-limits.test: fault tests skipped — redis-server is not installed (scripts/services.sh installs it)");

const day = (iso: string) => Date.parse(iso);

describe("pure parts", () => {
  test("key names put the key id in a hash tag, so one script's keys share a Redis Cluster slot", () => {
    const keys = limitKeys("surfcast:", "key_0a1b", "2026-11-21");
    expect(keys).toEqual({
      quota: "surfcast:{key_0a1b}:quota:2026-11-21",
      window: "surfcast:{key_0a1b}:window",
      usage: "surfcast:{key_0a1b}:usage:2026-11-21",
    });
    // Cluster hashes the text between the first "{" and the next "}".
    for (const name of Object.values(keys)) expect(/\{([^}]*)\}/.exec(name)?.[1]).toBe("key_0a1b");
  });

  test("the admit script's reply becomes a verdict and the header counts; anything else is RedisUnavailable", () => {
    const now = day("2026-11-21T23:59:30.400Z");
    const cases: [unknown, Admission | "fault"][] = [
      [[0, 0, 7, 3, 59, 0], { verdict: { allowed: true }, usedToday: 7, windowUsed: 3, burstResetSeconds: 59, slice: 0 }],
      [[0, 0, 71, 67, 59, 64], { verdict: { allowed: true }, usedToday: 71, windowUsed: 67, burstResetSeconds: 59, slice: 64 }],
      [[1, 0, 500, 3, 12, 0], { verdict: { allowed: false, blockedBy: "daily", retryAfterSeconds: 30 }, usedToday: 500, windowUsed: 3, burstResetSeconds: 12, slice: 0 }],
      [[2, 41, 9, 60, 60, 0], { verdict: { allowed: false, blockedBy: "burst", retryAfterSeconds: 41 }, usedToday: 9, windowUsed: 60, burstResetSeconds: 60, slice: 0 }],
      [[3, 0, 0, 0, 0, 0], "fault"],
      [[0, 0, 7, 3, 59], "fault"],
      [[0, 0, "7", 3, 59, 0], "fault"],
      [null, "fault"],
      ["OK", "fault"],
    ];
    for (const [reply, expected] of cases) {
      if (expected === "fault") expect(() => admissionOf(reply, now)).toThrow(RedisUnavailable);
      else expect(admissionOf(reply, now)).toEqual(expected);
    }
  });

  test("usage days end with today's, oldest first; replies become counts per endpoint", () => {
    const now = day("2026-03-01T00:00:05Z");
    expect(lastDays(3, now)).toEqual(["2026-02-27", "2026-02-28", "2026-03-01"]);
    expect(lastDays(1, now)).toEqual(["2026-03-01"]);
    expect(lastDays(30, now)).toHaveLength(30);
    expect(usageOf([[], ["forecast", "4", "embed", "2"]], ["2026-02-28", "2026-03-01"])).toEqual([
      { date: "2026-02-28", byEndpoint: {} },
      { date: "2026-03-01", byEndpoint: { forecast: 4, embed: 2 } },
    ]);
    expect(() => usageOf([[]], ["2026-02-28", "2026-03-01"])).toThrow(RedisUnavailable);
    expect(() => usageOf("OK", ["2026-03-01"])).toThrow(RedisUnavailable);
  });
});

/** Redis keys under test prefixes, deleted after each test. */
const admin = available ? new RedisClient(REDIS_URL) : null;
const prefixesInUse: string[] = [];
const connections: RedisConnection[] = [];

function testPrefix(): string {
  const prefix = `surfcast-test:${crypto.randomUUID()}:`;
  prefixesInUse.push(prefix);
  return prefix;
}

async function keysUnder(client: RedisClient, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = (await client.send("SCAN", [cursor, "MATCH", `${prefix}*`, "COUNT", "1000"])) as [string, string[]];
    found.push(...keys);
    cursor = next;
  } while (cursor !== "0");
  return found;
}

async function openLimits(url = REDIS_URL, prefix = testPrefix(), commandTimeoutMs?: number): Promise<RedisLimits> {
  const connection = new RedisConnection(url, { commandTimeoutMs });
  connections.push(connection);
  await connection.ready();
  return new RedisLimits(connection, prefix);
}

afterEach(async () => {
  for (const c of connections.splice(0)) c.close();
  if (!admin) return;
  for (const prefix of prefixesInUse.splice(0)) {
    const keys = await keysUnder(admin, prefix);
    if (keys.length > 0) await admin.send("DEL", keys);
  }
});
afterAll(() => admin?.close());

/** The in-memory limiter as the meter drives it: decide, then count, then the headers at the same `now`. */
class MemoryLimits {
  private readonly window = new BurstWindow();
  private readonly usedByDay = new Map<number, number>();
  readonly usage = new Map<string, Record<string, number>>();

  constructor(private readonly limits: Limits) {}

  admit(endpoint: UsageKey | null, weight: number, now: number) {
    const dayNumber = Math.floor(now / DAY_MS);
    const verdict = decide(this.limits, endpoint === null ? 0 : (this.usedByDay.get(dayNumber) ?? 0), this.window, now, weight);
    if (verdict.allowed) {
      this.window.add(now, weight);
      if (endpoint !== null) {
        this.usedByDay.set(dayNumber, (this.usedByDay.get(dayNumber) ?? 0) + weight);
        this.record(endpoint, weight, now);
      }
    }
    const usedToday = this.usedByDay.get(dayNumber) ?? 0;
    const counts = { usedToday, windowUsed: this.window.used(now), burstResetSeconds: this.window.resetSeconds(now) };
    return { verdict, ...counts, headers: varyingRateLimitHeaders(this.limits, usedToday, this.window, now) };
  }

  record(endpoint: UsageKey, weight: number, now: number): void {
    const counts = this.usage.get(utcDay(now)) ?? {};
    counts[endpoint] = (counts[endpoint] ?? 0) + weight;
    this.usage.set(utcDay(now), counts);
  }
}

/** mulberry32: a small seeded generator, so a failing sequence can be replayed from its seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe.skipIf(!available)("the same arithmetic as the in-memory limiter", () => {
  test("random sequences of time steps, weights, limits and uncounted requests: same verdicts, Retry-After, headers and usage", async () => {
    const seed = Number(process.env.REDIS_LIMITS_SEED ?? Math.floor(Math.random() * 2 ** 32));
    const random = seeded(seed);
    const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
    const limits = await openLimits();
    const seen = { allowed: 0, daily: 0, burst: 0, uncounted: 0, weighted: 0 };

    for (let sequence = 0; sequence < 60; sequence++) {
      const keyId = `key_${sequence}`;
      const keyLimits = { dailyLimit: random() < 0.05 ? 0 : int(1, 40), minuteLimit: int(1, 12) };
      const memory = new MemoryLimits(keyLimits);
      // Starts within two minutes of a UTC midnight, so many sequences cross it.
      let now = day("2026-11-21T23:58:00Z") + int(0, 120_000);
      let latest = now;
      for (let step = 0; step < 80; step++) {
        const r = random();
        if (r < 0.15) {
          // the same millisecond again
        } else if (r < 0.5) now += int(1, 999);
        else if (r < 0.75) now += int(1_000, 3_000);
        else if (r < 0.9) now += int(5_000, 65_000);
        // Clocks of different nodes disagree a little: small steps back, never a minute behind the latest.
        else now = Math.max(latest - 30_000, now - int(1, 20_000));
        latest = Math.max(latest, now);

        if (random() < 0.1) {
          const weight = int(1, 3);
          memory.record("embed", weight, now);
          await limits.record(keyId, "embed", weight, now);
          continue;
        }
        const endpoint = random() < 0.15 ? null : (["forecast", "tides", "spots.get"] as const)[int(0, 2)]!;
        const weight = random() < 0.7 ? 1 : int(2, 4);
        const want = memory.admit(endpoint, weight, now);
        const got = await limits.admit(keyId, keyLimits, endpoint, weight, now);
        const context = `seed ${seed} (REDIS_LIMITS_SEED), sequence ${sequence}, step ${step}, now ${new Date(now).toISOString()}`;
        expect({ ...got, headers: varyingHeadersOfCounts(keyLimits, got.usedToday, got.windowUsed, got.burstResetSeconds, now) }, context).toEqual({ ...want, slice: 0 });

        if (want.verdict.allowed) seen.allowed++;
        else seen[want.verdict.blockedBy]++;
        if (endpoint === null) seen.uncounted++;
        if (weight > 1) seen.weighted++;
      }
      const days = await limits.usage(keyId, 3, now);
      expect(days, `seed ${seed}, sequence ${sequence}`).toEqual(lastDays(3, now).map((date) => ({ date, byEndpoint: memory.usage.get(date) ?? {} })));
    }
    // The sequences reached every branch, so the equality above means something.
    for (const n of Object.values(seen)) expect(n).toBeGreaterThan(50);
  });
});

describe.skipIf(!available)("exact across nodes", () => {
  const nodes = async (prefix: string) => Promise.all([1, 2, 3].map(() => openLimits(REDIS_URL, prefix)));

  test("a daily quota of 300: 450 requests over three nodes, 30 at a time, admit exactly 300, each with its own count", async () => {
    const three = await nodes(testPrefix());
    const limits = { dailyLimit: 300, minuteLimit: 1_000_000 };
    const start = day("2026-11-21T12:00:00Z");
    const results: Admission[] = [];
    for (let batch = 0; batch < 15; batch++) {
      const sent = Array.from({ length: 30 }, (_, i) => three[i % 3]!.admit("key_quota", limits, "forecast", 1, start + batch * 250));
      results.push(...(await Promise.all(sent)));
    }
    const allowed = results.filter((a) => a.verdict.allowed);
    expect(allowed).toHaveLength(300);
    // Every admitted request saw its own place in the day: the X-RateLimit-Remaining values are exact too.
    expect(allowed.map((a) => a.usedToday).sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    for (const refused of results.filter((a) => !a.verdict.allowed)) {
      expect(refused).toMatchObject({ verdict: { blockedBy: "daily" }, usedToday: 300 });
    }
    const [today] = await three[1]!.usage("key_quota", 1, start);
    expect(today).toEqual({ date: "2026-11-21", byEndpoint: { forecast: 300 } });
  });

  test("a burst of 50 a minute: 120 simultaneous requests over three nodes admit exactly 50", async () => {
    const three = await nodes(testPrefix());
    const limits = { dailyLimit: 1_000_000, minuteLimit: 50 };
    const now = day("2026-11-21T12:00:00.300Z");
    const results = await Promise.all(Array.from({ length: 120 }, (_, i) => three[i % 3]!.admit("key_burst", limits, "tides", 1, now)));
    const allowed = results.filter((a) => a.verdict.allowed);
    expect(allowed).toHaveLength(50);
    expect(allowed.map((a) => a.windowUsed).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const full = new BurstWindow();
    full.add(now, 50);
    const refusal = decide(limits, 50, full, now);
    expect(refusal).toMatchObject({ allowed: false, blockedBy: "burst" });
    for (const refused of results.filter((a) => !a.verdict.allowed)) {
      expect(refused).toEqual({ verdict: refusal, usedToday: 50, windowUsed: 50, burstResetSeconds: full.resetSeconds(now), slice: 0 });
    }
  });
});

describe.skipIf(!available)("days and lifetimes on a driven clock", () => {
  test("the quota starts again at UTC midnight, the burst window runs across it, usage keeps both days", async () => {
    const limits = await openLimits();
    const keyLimits = { dailyLimit: 3, minuteLimit: 10 };
    const evening = day("2026-11-21T23:59:59.500Z");
    for (let i = 1; i <= 3; i++) expect((await limits.admit("key_day", keyLimits, "forecast", 1, evening)).usedToday).toBe(i);
    expect(await limits.admit("key_day", keyLimits, "forecast", 1, evening + 100)).toEqual({
      verdict: { allowed: false, blockedBy: "daily", retryAfterSeconds: 1 },
      usedToday: 3,
      windowUsed: 3,
      burstResetSeconds: 60,
      slice: 0,
    });
    // GET /v1/usage passes the window but never uses the quota: admitted although the quota is spent.
    expect(await limits.admit("key_day", keyLimits, null, 1, evening + 200)).toMatchObject({ verdict: { allowed: true }, usedToday: 3, windowUsed: 4 });

    const morning = day("2026-11-22T00:00:00.200Z");
    expect(await limits.admit("key_day", keyLimits, "forecast", 2, morning)).toEqual({
      verdict: { allowed: true },
      usedToday: 2,
      windowUsed: 6,
      burstResetSeconds: 60,
      slice: 0,
    });
    await limits.record("key_day", "embed", 5, morning);
    expect(await limits.usage("key_day", 3, morning)).toEqual([
      { date: "2026-11-20", byEndpoint: {} },
      { date: "2026-11-21", byEndpoint: { forecast: 3 } },
      { date: "2026-11-22", byEndpoint: { forecast: 2, embed: 5 } },
    ]);
    // A minute after the last request the window is empty, whatever Redis still keeps.
    expect(await limits.admit("key_day", keyLimits, "forecast", 1, morning + 60_000)).toMatchObject({ usedToday: 3, windowUsed: 1 });
  });

  test("every key expires on its own: quota after two days, window after two minutes, usage after 32 days", async () => {
    const prefix = testPrefix();
    const limits = await openLimits(REDIS_URL, prefix);
    const now = day("2026-11-21T12:00:00Z");
    await limits.admit("key_ttl", { dailyLimit: 10, minuteLimit: 10 }, "forecast", 1, now);
    const keys = limitKeys(prefix, "key_ttl", "2026-11-21");
    const pttl = async (key: string) => Number(await admin!.send("PTTL", [key]));
    expect(await pttl(keys.quota)).toBeWithin(2 * DAY_MS - 60_000, 2 * DAY_MS + 1);
    expect(await pttl(keys.window)).toBeWithin(60_000, 120_001);
    expect(await pttl(keys.usage)).toBeWithin(32 * DAY_MS - 60_000, 32 * DAY_MS + 1);

    // An embed view on another day writes that day's usage only, with its own lifetime.
    await limits.record("key_ttl", "embed", 1, now + DAY_MS);
    const next = limitKeys(prefix, "key_ttl", "2026-11-22");
    expect(await pttl(next.usage)).toBeWithin(32 * DAY_MS - 60_000, 32 * DAY_MS + 1);
    expect(await pttl(next.quota)).toBe(-2); // no such key
  });

  test("a key busy for longer than its window keeps at most 60 seconds of it", async () => {
    const prefix = testPrefix();
    const limits = await openLimits(REDIS_URL, prefix);
    const start = day("2026-11-21T12:00:00Z");
    for (let s = 0; s < 150; s++) await limits.admit("key_busy", { dailyLimit: 1_000, minuteLimit: 1_000 }, "forecast", 1, start + s * 1_000);
    expect(Number(await admin!.send("HLEN", [limitKeys(prefix, "key_busy", "2026-11-21").window]))).toBe(60);
  });
});


/** A redis-server of this test's own, so it can be stopped, paused and restarted. */
async function startRedis(port: number): Promise<ReturnType<typeof Bun.spawn>> {
  const proc = Bun.spawn([redisServer!, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdout: "ignore", stderr: "ignore" });
  for (let i = 0; i < 100; i++) {
    if (await answersPing(`redis://127.0.0.1:${port}`)) return proc;
    await Bun.sleep(50);
  }
  proc.kill("SIGKILL");
  throw new Error(`redis-server on port ${port} did not start`);
}

async function timed<T>(work: Promise<T>): Promise<{ ms: number; outcome: T | unknown }> {
  const start = performance.now();
  const outcome = await work.catch((err: unknown) => err);
  return { ms: performance.now() - start, outcome };
}

describe("faults", () => {
  const keyLimits = { dailyLimit: 100, minuteLimit: 100 };
  const servers: ReturnType<typeof Bun.spawn>[] = [];
  afterAll(async () => {
    for (const s of servers) {
      s.kill("SIGKILL");
      await s.exited;
    }
  });

  test("nothing listening: admit, record, usage and ready reject with RedisUnavailable at once, again and again", async () => {
    const connection = new RedisConnection(`redis://127.0.0.1:${freePort()}`);
    connections.push(connection);
    const limits = new RedisLimits(connection, testPrefix());
    expect((await timed(connection.ready(300))).outcome).toBeInstanceOf(RedisUnavailable);
    // Calls all through a second: across the reconnect loop's attempts (RECONNECT_DELAY_MS apart), not only between them.
    for (const until = Date.now() + 1_000; Date.now() < until; await Bun.sleep(50)) {
      const calls: (() => Promise<unknown>)[] = [
        () => limits.admit("key_down", keyLimits, "forecast", 1, Date.now()),
        () => limits.admit("key_down", keyLimits, null, 1, Date.now()),
        () => limits.record("key_down", "embed", 1, Date.now()),
        () => limits.usage("key_down", 30, Date.now()),
      ];
      for (const call of calls) {
        const { ms, outcome } = await timed(call());
        expect(outcome).toBeInstanceOf(RedisUnavailable);
        expect(ms).toBeLessThan(200);
      }
    }
  });

  test.skipIf(!redisServer)("a paused Redis: RedisUnavailable after the command deadline; its late count still stands", async () => {
    const port = freePort();
    const server = await startRedis(port);
    servers.push(server);
    const limits = await openLimits(`redis://127.0.0.1:${port}`, testPrefix(), 200);
    const now = day("2026-11-21T12:00:00Z");
    expect((await limits.admit("key_pause", keyLimits, "forecast", 1, now)).usedToday).toBe(1);

    server.kill("SIGSTOP");
    try {
      const { ms, outcome } = await timed(limits.admit("key_pause", keyLimits, "forecast", 1, now));
      expect(outcome).toBeInstanceOf(RedisUnavailable);
      expect(ms).toBeWithin(190, 900);
    } finally {
      server.kill("SIGCONT");
    }
    // The refused request was on the wire and Redis ran it once resumed: a timeout may over-count, never under-count.
    expect((await limits.admit("key_pause", keyLimits, "forecast", 1, now)).usedToday).toBe(3);
  });

  test.skipIf(!redisServer)("Redis stopped and started again: RedisUnavailable at once while away, back by itself within 1.5 s", async () => {
    const port = freePort();
    servers.push(await startRedis(port));
    const limits = await openLimits(`redis://127.0.0.1:${port}`, testPrefix());
    const now = day("2026-11-21T12:00:00Z");
    expect((await limits.admit("key_restart", keyLimits, "forecast", 1, now)).verdict.allowed).toBe(true);

    const first = servers.pop()!;
    first.kill("SIGKILL");
    await first.exited;
    // Calls all through a second away: across the reconnect loop's failed attempts.
    for (const until = Date.now() + 1_000; Date.now() < until; await Bun.sleep(50)) {
      const { ms, outcome } = await timed(limits.admit("key_restart", keyLimits, "forecast", 1, now));
      expect(outcome).toBeInstanceOf(RedisUnavailable);
      expect(ms).toBeLessThan(200);
    }

    // A new, empty server: it knows no script, so the first admit falls back from EVALSHA to EVAL.
    servers.push(await startRedis(port));
    const started = performance.now();
    let back: Admission | null = null;
    while (back === null && performance.now() - started < 3_000) {
      back = await limits.admit("key_restart", keyLimits, "forecast", 1, now).catch(() => null);
      if (back === null) await Bun.sleep(50);
    }
    expect(back).toMatchObject({ verdict: { allowed: true }, usedToday: 1 });
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});
