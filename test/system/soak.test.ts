/**
 * Soak (#9): 60 s of mixed traffic at the rate-limit edge across 10 keys with small per-minute limits, through
 * the compiled binary. Afterwards every key's /v1/usage equals, per endpoint and in total, the requests the
 * client saw admitted (every response that is neither 429 nor /v1/usage) — exactly.
 * Paced (not flat-out), so it fits a 2-core machine; it stops itself after SOAK_SECONDS.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { seededRng } from "../../bench/prng";
import { cliAsync, startServer, type RunningServer } from "../support/binary";
import { tempDir } from "../support/env";
import { apiFetch } from "../support/http";

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const KEYS = 10;
/** Requests per second over all keys: about 1.5× what the minute limits allow, so the limiter is always busy. */
const RATE = 9;
const CONCURRENCY = 6;

type UsageBody = { today: number; days: { date: string; total: number; byEndpoint: Record<string, number> }[] };

let server: RunningServer;
const keys: { key: string; minuteLimit: number }[] = [];

/** An account with its own minute limit and one key on it (the console commands are tested elsewhere). */
async function limitedKey(dataDir: string, i: number): Promise<{ key: string; minuteLimit: number }> {
  const minuteLimit = 25 + 5 * (i % 4);
  const email = `soak${i}@example.com`;
  const account = await cliAsync(dataDir, ["accounts", "create", email, "--plan", "scale", "--daily-limit", "100000", "--minute-limit", String(minuteLimit)]);
  if (account.code !== 0) throw new Error(`accounts create failed: ${account.stderr}`);
  const made = await cliAsync(dataDir, ["keys", "create", email, "--name", "soak"]);
  if (made.code !== 0) throw new Error(`keys create failed: ${made.stderr}`);
  return { key: made.stdout.trim().split("\n").at(-1)!, minuteLimit };
}

beforeAll(async () => {
  const dataDir = tempDir("soak");
  // The first account makes the database; the other keys are made side by side.
  keys.push(await limitedKey(dataDir, 0));
  keys.push(...(await Promise.all(Array.from({ length: KEYS - 1 }, (_, i) => limitedKey(dataDir, i + 1)))));
  server = await startServer({ dataDir });
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

/** Endpoint name as usage reports it (null: not counted), and a generator of paths for it. */
const MIX: { endpoint: string | null; path: (n: number) => string }[] = [
  { endpoint: "spots.search", path: (n) => `/v1/spots?q=${["pipeline", "hossegor", "bali", "x"][n % 4]}` },
  { endpoint: "spots.search", path: () => "/v1/spots?q=a" }, // 400, still counted
  { endpoint: "spots.nearby", path: (n) => `/v1/spots/nearby?lat=${(n % 90) - 45}&lng=${(n % 360) - 180}&radius=100` },
  { endpoint: "spots.get", path: (n) => `/v1/spots/${n % 3 === 0 ? "does-not-exist" : "pipeline"}` },
  { endpoint: "forecast", path: () => "/v1/spots/pipeline/forecast?days=2" },
  { endpoint: "tides", path: () => "/v1/spots/pipeline/tides" },
  { endpoint: null, path: () => "/v1/usage" },
];

test(
  `soak: ${SOAK_SECONDS} s of mixed traffic at the limit edge, usage equals what the client saw`,
  async () => {
    const rng = seededRng(4242);
    const seen = keys.map(() => new Map<string, number>());
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let sent = 0;
    const stopAt = performance.now() + SOAK_SECONDS * 1000;
    const worker = async () => {
      while (performance.now() < stopAt) {
        const n = sent++;
        // Paced: request n leaves no earlier than n / RATE seconds after the start.
        const due = stopAt - SOAK_SECONDS * 1000 + (n / RATE) * 1000;
        if (due > performance.now()) await Bun.sleep(due - performance.now());
        if (performance.now() >= stopAt) break;
        const k = rng.int(0, KEYS - 1);
        const pick = rng.pick(MIX);
        const res = await apiFetch(server.url + pick.path(n), { headers: { "X-API-Key": keys[k]!.key } });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) failures.push(`${pick.path(n)} → ${res.status}`);
        if (res.status !== 429 && pick.endpoint !== null) seen[k]!.set(pick.endpoint, (seen[k]!.get(pick.endpoint) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    console.log(`soak: ${sent} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect(failures).toEqual([]);
    // The limiter really was at the edge: some requests refused, most admitted.
    expect(statuses.get(429) ?? 0).toBeGreaterThan(0);

    for (const [k, { key }] of keys.entries()) {
      let res = await apiFetch(`${server.url}/v1/usage`, { headers: { "X-API-Key": key } });
      // The usage call itself passes the burst window: wait for a free slot when the key is still full.
      for (let tries = 0; res.status === 429 && tries < 5; tries++) {
        await Bun.sleep(Number(res.headers.get("retry-after") ?? 1) * 1000);
        res = await apiFetch(`${server.url}/v1/usage`, { headers: { "X-API-Key": key } });
      }
      expect(res.status).toBe(200);
      const usage = (await res.json()) as UsageBody;
      // The keys are new: every use is the soak's, on the last day or (a run across UTC midnight) the two last.
      const reported: Record<string, number> = {};
      for (const day of usage.days.slice(-2)) for (const [endpoint, n] of Object.entries(day.byEndpoint)) if (n > 0) reported[endpoint] = (reported[endpoint] ?? 0) + n;
      const expected = Object.fromEntries(seen[k]!);
      expect({ key: k, byEndpoint: reported }).toEqual({ key: k, byEndpoint: expected });
      const total = [...seen[k]!.values()].reduce((a, b) => a + b, 0);
      expect(usage.days.slice(-2).reduce((n, day) => n + day.total, 0)).toBe(total);
      // What the quota counted today: all of it, or the part after midnight.
      expect(usage.today).toBe(usage.days.at(-1)!.total);
    }
  },
  (SOAK_SECONDS + 90) * 1000,
);
