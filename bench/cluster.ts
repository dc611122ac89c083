/**
 * Several servers on one machine: requests per second and p99 of `surfcast serve --demo` (the compiled binary) as one
 * node on SQLite, one node on PostgreSQL + Redis, and three nodes on PostgreSQL + Redis driven at once, beside a bare
 * Bun.serve replaying the same bytes; and what Redis costs per request (latency, node and Redis CPU, the admit round
 * trip in process, Redis memory per key) with PostgreSQL's primary-key reads per second.
 * Needs PostgreSQL (SURFCAST_BENCH_POSTGRES_URL, default the local one, user postgres) and redis-server: a database
 * and a redis-server of its own on a free port, both gone at the end. Alone: `bun bench/cluster.ts [--quick]`, which
 * prints the sections and, without --quick, replaces them in bench/RESULTS.md.
 */
import { join } from "node:path";
import { RedisClient, SQL } from "bun";
import { cli, cliAsync, startServer, type RunningServer } from "../test/support/binary";
import { tempDir } from "../test/support/env";
import { bestOfTwo } from "./http";
import { ensureWrk, runLoad, type LoadResult } from "./load";
import { describeMachine } from "./machine";
import { cpuSecondsOf, spawnListening } from "./processes";
import { record, type Recording } from "./recordings";
import { admitsOneAtATime, withBenchLimits } from "./redis";
import { fmt, notMeasured, renderSection, writeSectionToResults, type Section } from "./report";

const TITLE = "Several servers";
const COST_TITLE = "Several servers: what Redis costs per request";
const ADMIN_URL = process.env.SURFCAST_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/**
 * With 100,000/min each (the most a plan allows), 32 keys carry 53k req/s for a whole minute before any burst window
 * fills: more than this machine serves. Fewer than run.ts's 64, since each key costs a start of the binary.
 */
const KEY_COUNT = 32;
const EMAIL = "cluster@example.com";
/** The hot spot (run.ts's too), its demo forecast made before the nodes start. */
const SPOT = "pipeline";
const BUN = process.execPath;
/** Nodes keep their caches however long they wait for their turn (what docs/scale.md advises for busy nodes). */
const NODE_ENV = { SURFCAST_LOG_LEVEL: "warn", SURFCAST_IDLE_RELEASE_S: "0" };
const SIDES = ["bare", "sqlite", "pg1", "pg3"] as const;
type Side = (typeof SIDES)[number];
const SIDE_NAMES: Record<Side, string> = {
  bare: "bare Bun.serve",
  sqlite: "one node, SQLite",
  pg1: "one node, PostgreSQL + Redis",
  pg3: "three nodes, PostgreSQL + Redis",
};

export interface ClusterSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

interface Measured extends LoadResult {
  /** CPU the serving processes used per request, µs (all three nodes for pg3). */
  nodeCpuUs: number;
  /** CPU redis-server used per request, µs. */
  redisCpuUs: number;
  /** PostgreSQL transactions committed or rolled back in the bench's database per request. */
  pgTransactions: number;
}

/** The shared parts a setup uses, watched while it runs: redis-server's process and the database's transaction count. */
interface Shared {
  redisPid: number;
  transactions: () => Promise<number>;
}

interface BenchCase {
  name: string;
  paths: string[];
}

async function unreachablePostgres(): Promise<string | null> {
  const admin = new SQL({ url: ADMIN_URL, connectionTimeout: 3, max: 1 });
  try {
    await admin`SELECT 1`;
    return null;
  } catch (err) {
    return `no PostgreSQL at ${new URL(ADMIN_URL).host} (${err instanceof Error ? err.message : String(err)})`;
  } finally {
    await admin.close();
  }
}

function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/** A redis-server of the bench's own, without persistence: nothing else's keys, counters or load in it. */
async function startRedis(binary: string): Promise<{ url: string; proc: ReturnType<typeof Bun.spawn> }> {
  const port = freePort();
  const url = `redis://127.0.0.1:${port}`;
  const proc = Bun.spawn([binary, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdout: "ignore", stderr: "ignore" });
  for (let i = 0; i < 100; i++) {
    const client = new RedisClient(url, { connectionTimeout: 500, autoReconnect: false });
    const up = await client.send("PING", []).then(
      (r) => r === "PONG",
      () => false,
    );
    client.close();
    if (up) return { url, proc };
    await Bun.sleep(50);
  }
  proc.kill("SIGKILL");
  throw new Error(`redis-server on port ${port} did not start`);
}

/** An account at the most a plan allows and its keys, made with the binary in a SQLite data directory. */
async function createKeys(dataDir: string): Promise<string[]> {
  const made = cli(dataDir, ["accounts", "create", EMAIL, "--plan", "scale", "--daily-limit", "100000000", "--minute-limit", "100000", "--max-keys", String(KEY_COUNT)]);
  if (made.code !== 0) throw new Error(`accounts create failed: ${made.stderr}`);
  const keys: string[] = [];
  // A few at a time: each command is a process start of the binary.
  for (let i = 0; i < KEY_COUNT; i += 8) {
    const batch = await Promise.all(Array.from({ length: Math.min(8, KEY_COUNT - i) }, (_, j) => cliAsync(dataDir, ["keys", "create", EMAIL, "--name", `cluster-${i + j}`])));
    for (const r of batch) {
      if (r.code !== 0) throw new Error(`keys create failed: ${r.stderr}`);
      keys.push(r.stdout.trim().split("\n").at(-1)!);
    }
  }
  return keys;
}

/** `total` connections shared out over `n` load generators. */
function split(total: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => Math.floor(total / n) + (i < total % n ? 1 : 0));
}

/**
 * Drives every url at once, one wrk each, its share of the connections. Throughput adds up; p50 and p99 are the
 * worst of the generators' (wrk reports percentiles, not histograms that could be merged).
 */
async function drive(urls: string[], paths: string[], keys: string[], settings: ClusterSettings, durationSeconds: number): Promise<LoadResult> {
  const shares = split(settings.connections, urls.length);
  const results = await Promise.all(urls.map((url, i) => runLoad(url, { connections: shares[i]!, durationSeconds, keys, paths })));
  return {
    requests: results.reduce((a, r) => a + r.requests, 0),
    rps: results.reduce((a, r) => a + r.rps, 0),
    p50Ms: Math.max(...results.map((r) => r.p50Ms)),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    failures: results.reduce((a, r) => a + r.failures, 0),
  };
}

async function measure(urls: string[], servingPids: number[], shared: Shared | null, paths: string[], keys: string[], settings: ClusterSettings): Promise<Measured> {
  if (settings.warmupSeconds > 0) await drive(urls, paths, keys, settings, settings.warmupSeconds);
  const take = async () => ({
    nodes: servingPids.reduce((a, pid) => a + cpuSecondsOf(pid), 0),
    redis: shared ? cpuSecondsOf(shared.redisPid) : NaN,
    transactions: shared ? await shared.transactions() : NaN,
  });
  const before = await take();
  const load = await drive(urls, paths, keys, settings, settings.durationSeconds);
  const after = await take();
  const perRequest = (key: keyof typeof before, scale = 1) => ((after[key] - before[key]) * scale) / load.requests;
  return { ...load, nodeCpuUs: perRequest("nodes", 1e6), redisCpuUs: perRequest("redis", 1e6), pgTransactions: perRequest("transactions") };
}

/** Redis's own CPU per admit script call since the last CONFIG RESETSTAT (`INFO commandstats`), µs. */
async function usecPerEvalsha(redis: RedisClient): Promise<number> {
  const info = String(await redis.send("INFO", ["commandstats"]));
  return Number(/cmdstat_evalsha:[^\r\n]*usec_per_call=([\d.]+)/.exec(info)?.[1] ?? NaN);
}

/**
 * Redis memory one active API key holds (`MEMORY USAGE` of its keys, grouped by the key id's hash tag): the day's
 * quota, the burst window and the day's usage by endpoint, and that usage hash alone (kept 32 days).
 */
async function memoryPerApiKey(redis: RedisClient): Promise<{ bytes: number; usageBytes: number; apiKeys: number }> {
  const names = (await redis.send("KEYS", ["*{*}*"])) as string[];
  let total = 0;
  let usage = 0;
  const tags = new Set<string>();
  for (const name of names) {
    const bytes = Number(await redis.send("MEMORY", ["USAGE", name, "SAMPLES", "0"]));
    total += bytes;
    if (name.includes(":usage:")) usage += bytes;
    tags.add(/\{([^}]*)\}/.exec(name)![1]!);
  }
  return { bytes: total / tags.size, usageBytes: usage / tags.size, apiKeys: tags.size };
}

/** Primary-key reads of a forecast document (what a node's cache miss runs), 100 in flight over a pool of 10, per second. */
async function documentReadsPerSecond(databaseUrl: string, spotId: string, seconds: number): Promise<number> {
  const sql = new SQL({ url: databaseUrl, max: 10 });
  try {
    let reads = 0;
    const until = performance.now() + seconds * 1000;
    const reader = async () => {
      while (performance.now() < until) {
        await sql`SELECT updated_at, body FROM forecast_documents WHERE spot_id = ${spotId}`;
        reads++;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: 100 }, reader));
    return reads / ((performance.now() - started) / 1000);
  } finally {
    await sql.close();
  }
}

export async function clusterSections(settings: ClusterSettings): Promise<Section[]> {
  const redisServer = Bun.which("redis-server");
  const missing = !redisServer ? "redis-server is not installed" : await unreachablePostgres();
  if (missing) return [notMeasured(TITLE, missing)];

  const machine = describeMachine();
  const redis = await startRedis(redisServer!);
  const databaseName = `surfcast_bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = new SQL({ url: ADMIN_URL, max: 1 });
  await admin.unsafe(`CREATE DATABASE "${databaseName}"`);
  const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${databaseName}` }).href;
  const benchDb = new SQL({ url: databaseUrl, max: 1 });
  const pgEnv = { ...NODE_ENV, SURFCAST_DATABASE_URL: databaseUrl, SURFCAST_REDIS_URL: redis.url };
  const servers: RunningServer[] = [];
  const stopBare: (() => Promise<void>)[] = [];
  try {
    // The same account, keys and demo forecast on both engines: made in SQLite, then copied with `surfcast migrate`.
    const dataDir = tempDir("cluster");
    const keys = await createKeys(dataDir);
    const serveArgs = ["--demo", "--no-scheduler"];
    await (await startServer({ dataDir, env: NODE_ENV, args: serveArgs })).stop(); // the directory becomes a demo one
    const refreshed = cli(dataDir, ["refresh", "--spots", SPOT]);
    if (refreshed.code !== 0) throw new Error(`surfcast refresh --spots ${SPOT} failed: ${refreshed.stderr}`);
    const migrated = cli(dataDir, ["migrate"], { SURFCAST_DATABASE_URL: databaseUrl });
    if (migrated.code !== 0) throw new Error(`surfcast migrate failed: ${migrated.stderr}`);

    const sqlite = await startServer({ dataDir, env: NODE_ENV, args: serveArgs });
    servers.push(sqlite);
    const nodes = await Promise.all([0, 1, 2].map(() => startServer({ dataDir: tempDir("cluster-node"), env: pgEnv, args: serveArgs })));
    servers.push(...nodes);

    const headers = { "X-API-Key": keys[0]! };
    const spot = (await (await fetch(`${sqlite.url}/v1/spots/${SPOT}`, { headers })).json()) as { id: string; lat: number; lng: number };
    const spotPath = `/v1/spots/${spot.id}`;
    const forecastPath = `${spotPath}/forecast?days=7`;
    const mix = [spotPath, `/v1/spots?q=${SPOT}&limit=10`, `/v1/spots/nearby?lat=${spot.lat}&lng=${spot.lng}&radius=50&limit=10`, forecastPath, `${spotPath}/tides?days=7`, `${spotPath}/now`];
    const cases: BenchCase[] = [
      { name: `get spot \`${spotPath}\``, paths: [spotPath] },
      { name: `forecast 7 days \`${forecastPath}\``, paths: [forecastPath] },
      { name: "mix: get spot, search, nearby, forecast, tides, now in turn", paths: mix },
    ];

    // Every path once on every node: the demo forecast is made on the first ask, and each node fills its caches.
    const recordings: Recording[] = [];
    const notes: string[] = [];
    for (const path of mix) {
      for (const server of [sqlite, ...nodes]) {
        const res = await fetch(server.url + path, { headers });
        if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status} on ${server.url}: ${await res.text()}`);
      }
      recordings.push(await record(sqlite.url, path, headers));
    }
    const recordingsFile = join(dataDir, "cluster-recordings.json");
    await Bun.write(recordingsFile, JSON.stringify(recordings));
    const bare = await spawnListening([BUN, join(import.meta.dir, "bare-server.ts"), recordingsFile]);
    stopBare.push(() => bare.stop());

    const control = new RedisClient(redis.url);
    await control.send("CONFIG", ["RESETSTAT"]);
    // Counted from the admin database, so these reads are not among the counted transactions.
    const transactions = async () => {
      const [row] = await admin`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = ${databaseName}`;
      return Number(row.n);
    };
    const shared: Shared = { redisPid: redis.proc.pid, transactions };
    const changes = () => benchDb.unsafe("SELECT topic, version FROM cluster.change_counters ORDER BY topic") as Promise<{ topic: string; version: string }[]>;
    const changesBefore = await changes();
    const targets: Record<Side, { urls: string[]; pids: number[]; shared: Shared | null }> = {
      bare: { urls: [bare.url], pids: [bare.pid], shared: null },
      sqlite: { urls: [sqlite.url], pids: [sqlite.proc.pid], shared: null },
      pg1: { urls: [nodes[0]!.url], pids: [nodes[0]!.proc.pid], shared },
      pg3: { urls: nodes.map((n) => n.url), pids: nodes.map((n) => n.proc.pid), shared },
    };
    const results = new Map<string, Record<Side, Measured>>();
    for (const bench of cases) {
      results.set(
        bench.name,
        await bestOfTwo<Side, Measured>(SIDES, (side) => {
          const t = targets[side];
          return measure(t.urls, t.pids, t.shared, bench.paths, keys, settings);
        }),
      );
    }
    const changesAfter = await changes();
    const evalshaUs = await usecPerEvalsha(control);
    const memory = await memoryPerApiKey(control);
    control.close();
    const pgReads = await documentReadsPerSecond(databaseUrl, spot.id, Math.min(3, settings.durationSeconds));
    const admit = await withBenchLimits(redis.url, (limits) => admitsOneAtATime(limits, 5_000));

    const throughput: Section = {
      title: TITLE,
      intro:
        `${machine.date.slice(0, 16).replace("T", " ")} UTC, ${machine.cpuModel}, ${machine.nproc} cores, load average ${machine.loadAverage.toFixed(2)} at the start. ` +
        `\`surfcast serve --demo --no-scheduler\` of the compiled binary, on loopback: one node on SQLite; three nodes on one PostgreSQL database with quotas counted in one Redis (a redis-server of the bench's own), ` +
        `"one node" being the first of them alone, "three nodes" the three at once, each driven by its own wrk (1 thread, a third of the ${settings.connections} connections). ` +
        `wrk, ${settings.connections} connections in all, ${settings.durationSeconds} s per case after a ${settings.warmupSeconds} s warm-up; requests rotate over ${KEY_COUNT} Scale keys (100,000/min each). ` +
        `Bare = a Bun.serve replaying the SQLite node's bytes. Each setup is measured twice per case, in the order ${SIDES.map((s) => SIDE_NAMES[s]).join(", ")}, then back, and its faster run is kept. ` +
        "CPU per request = the serving processes' user + system time (/proc) over the measured run, divided by its requests; PG transactions per request from pg_stat_database over the same run (approximate: a busy backend publishes its counts about once a second; heartbeats and the change feed's checks included). For three nodes, p50 and p99 are the worst of the three generators'. " +
        (machine.nproc < 8
          ? `**${machine.nproc} cores hold the nodes, the load generators, PostgreSQL and Redis together: three nodes cannot scale out here.** The three-node rows show what running three processes behind one set of cores costs (scheduling, three caches, more Redis traffic at once), not what three machines would serve; on separate machines the node figure multiplies by the node count until Redis or PostgreSQL is the limit (docs/scale.md).`
          : ""),
      header: ["case", "setup", "req/s", "p50 ms", "p99 ms", "ratio to bare", "node CPU µs/req", "Redis CPU µs/req", "PG transactions/req"],
      rows: [],
      notes,
    };
    const changed = changesAfter.map((c) => `${c.topic} +${Number(c.version) - Number(changesBefore.find((b) => b.topic === c.topic)?.version ?? 0)}`);
    notes.push(`changes announced by the nodes during the runs (cluster.change_counters): ${changed.join(", ") || "none"}`);
    for (const bench of cases) {
      const r = results.get(bench.name)!;
      for (const side of SIDES) {
        const m = r[side];
        throughput.rows!.push([bench.name, SIDE_NAMES[side], fmt.int(m.rps), fmt.ms(m.p50Ms), fmt.ms(m.p99Ms), side === "bare" ? "1.00×" : fmt.ratio(m.rps / r.bare.rps), fmt.us(m.nodeCpuUs), fmt.us(m.redisCpuUs), Number.isFinite(m.pgTransactions) ? m.pgTransactions.toFixed(3) : "—"]);
        if (m.failures > 0) notes.push(`${bench.name}, ${SIDE_NAMES[side]}: ${m.failures} failed responses (non-2xx/3xx or socket errors) — case invalid`);
      }
    }

    const cost: Section = {
      title: COST_TITLE,
      intro:
        "From the runs above: the SQLite node counts quotas in memory, the PostgreSQL node runs one admit script in Redis per request (what else reaches PostgreSQL is the table's last column). " +
        "Extra latency = the PostgreSQL + Redis node's p50 minus the SQLite node's, at the same connections; extra CPU = its node CPU per request minus the SQLite node's, plus Redis's.",
      header: ["measure", "value"],
      rows: [],
    };
    for (const bench of cases) {
      const r = results.get(bench.name)!;
      cost.rows!.push(
        [`${bench.name}: p50, SQLite node → PostgreSQL + Redis node`, `${fmt.ms(r.sqlite.p50Ms)} → ${fmt.ms(r.pg1.p50Ms)} ms (${signed(r.pg1.p50Ms - r.sqlite.p50Ms, fmt.ms)} ms)`],
        [`${bench.name}: CPU per request, SQLite node → node + Redis`, `${fmt.us(r.sqlite.nodeCpuUs)} → ${fmt.us(r.pg1.nodeCpuUs)} + ${fmt.us(r.pg1.redisCpuUs)} µs (${signed(r.pg1.nodeCpuUs + r.pg1.redisCpuUs - r.sqlite.nodeCpuUs, fmt.us)} µs)`],
      );
    }
    cost.rows!.push(
      ["admit round trip in process, one at a time (bench/redis.ts, 5,000 calls): p50 / p99", "unavailable" in admit ? admit.unavailable : `${fmt.us(admit.result.p50Us)} / ${fmt.us(admit.result.p99Us)} µs`],
      ["Redis CPU per admit script call (`INFO commandstats`, `usec_per_call` of `evalsha`, all runs above)", `${fmt.us(evalshaUs)} µs`],
      [`Redis memory per active API key (\`MEMORY USAGE\`, ${memory.apiKeys} keys after the runs): quota, full burst window, one day's usage`, `${fmt.int(memory.bytes)} bytes`],
      ["of which one day's usage by endpoint (kept 32 days)", `${fmt.int(memory.usageBytes)} bytes`],
      ["PostgreSQL: a forecast document read by primary key (a cache miss), 100 in flight over a pool of 10", `${fmt.int(pgReads)} reads/s`],
    );
    return [throughput, cost];
  } finally {
    for (const stop of stopBare) await stop();
    for (const server of servers) await server.stop();
    redis.proc.kill();
    await redis.proc.exited;
    await benchDb.close();
    await admin.unsafe(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
    await admin.close();
  }
}

function signed(n: number, format: (n: number) => string): string {
  return `${n >= 0 ? "+" : "−"}${format(Math.abs(n))}`;
}

if (import.meta.main) {
  const quick = process.argv.includes("--quick");
  process.env.SURFCAST_LOG_LEVEL ??= "warn";
  ensureWrk();
  const sections = await clusterSections(quick ? { connections: 10, durationSeconds: 2, warmupSeconds: 1 } : { connections: 50, durationSeconds: 4, warmupSeconds: 1 });
  for (const section of sections) console.log("\n" + renderSection(section));
  if (!quick) {
    for (const section of sections) await writeSectionToResults(section);
    console.log("\nupdated the several-servers sections of bench/RESULTS.md");
  }
}
