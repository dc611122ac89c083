/**
 * What counting limits in Redis costs per request (several servers, SURFCAST_REDIS_URL): one admit is one round trip
 * to Redis running the limit script, against the in-memory window and quota one server keeps for itself. Measured
 * one at a time (the latency a request waits) and with many in flight (what one server's connection carries).
 * Needs Redis on 127.0.0.1:6379 (SURFCAST_BENCH_REDIS_URL to point elsewhere); its keys are deleted afterwards.
 * Alone: `bun bench/redis.ts`.
 */
import { RedisClient } from "bun";
import { BurstWindow, decide, type Limits } from "../src/access/limiter";
import { RedisConnection } from "../src/access/redis-connection";
import { RedisLimits } from "../src/access/redis-limits";
import { fmt, notMeasured, renderSection, type Section } from "./report";
import { summarize, timeEach, type Timing } from "./stats";

const TITLE = "Limits in Redis (several servers)";
const LIMITS: Limits = { dailyLimit: 1e9, minuteLimit: 1e9 };
const KEYS = 64;

async function throughput(limits: RedisLimits, inFlight: number, total: number, prefix: string): Promise<number> {
  let next = 0;
  const started = Bun.nanoseconds();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      await limits.admit(`${prefix}${i % KEYS}`, LIMITS, "spots.get", 1, Date.now());
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return total / ((Bun.nanoseconds() - started) / 1e9);
}

/**
 * Runs `work` with a RedisLimits of its own on `url` under a prefix of this process, and deletes its keys
 * afterwards; `unavailable` with the reason when nothing answers at `url`.
 */
export async function withBenchLimits<T>(url: string, work: (limits: RedisLimits) => Promise<T>): Promise<{ result: T } | { unavailable: string }> {
  const connection = new RedisConnection(url);
  try {
    await connection.ready();
  } catch (err) {
    connection.close();
    return { unavailable: `no Redis at ${url} (${String(err)})` };
  }
  const prefix = `surfcast-bench-${process.pid}:`;
  try {
    return { result: await work(new RedisLimits(connection, prefix)) };
  } finally {
    const cleaner = new RedisClient(url);
    const found = (await cleaner.send("KEYS", [`${prefix}*`])) as string[];
    for (let i = 0; i < found.length; i += 500) await cleaner.send("DEL", found.slice(i, i + 500));
    cleaner.close();
    connection.close();
  }
}

/** `calls` admits one after another over the bench's keys: the round trip a request waits for. */
export async function admitsOneAtATime(limits: RedisLimits, calls: number): Promise<Timing> {
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = Bun.nanoseconds();
    await limits.admit(`k${i % KEYS}`, LIMITS, "spots.get", 1, Date.now());
    samples.push(Bun.nanoseconds() - start);
  }
  return summarize(samples);
}

export async function redisSection(quick: boolean, url = process.env.SURFCAST_BENCH_REDIS_URL ?? "redis://127.0.0.1:6379"): Promise<Section> {
  const calls = quick ? 2_000 : 20_000;
  const measured = await withBenchLimits(url, async (limits) => {
    // In memory: what one server does today per admitted request (the window's count and the quota's check).
    const windows = Array.from({ length: KEYS }, () => new BurstWindow());
    const memory = timeEach(Array.from({ length: calls }, (_, i) => i), (i) => {
      const window = windows[i % KEYS]!;
      const now = Date.now();
      if (decide(LIMITS, i, window, now).allowed) window.add(now);
    });
    const oneAtATime = await admitsOneAtATime(limits, calls);
    const rows = [
      ["in memory (one server)", "1", fmt.us(memory.p50Us), fmt.us(memory.p99Us), fmt.int(1e6 / memory.meanUs)],
      ["Redis, one at a time", "1", fmt.us(oneAtATime.p50Us), fmt.us(oneAtATime.p99Us), fmt.int(1e6 / oneAtATime.meanUs)],
    ];
    for (const inFlight of [10, 100]) {
      // Mirrored runs, best kept: the machine is shared.
      const best = Math.max(await throughput(limits, inFlight, calls, "k"), await throughput(limits, inFlight, calls, "k"));
      rows.push([`Redis, ${inFlight} in flight`, String(inFlight), "—", "—", fmt.int(best)]);
    }
    return rows;
  });
  if ("unavailable" in measured) return notMeasured(TITLE, measured.unavailable);
  return {
    title: TITLE,
    intro: `One admit: the daily quota and the 60-second burst window of a key, checked and counted (${fmt.int(calls)} calls over ${KEYS} keys). In Redis it is one round trip running one Lua script (src/access/redis-limits.ts); Redis on the same machine.`,
    header: ["admit", "in flight", "p50 µs", "p99 µs", "admits/s"],
    rows: measured.result,
  };
}

if (import.meta.main) console.log(renderSection(await redisSection(process.argv.includes("--quick"))));
