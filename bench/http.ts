/**
 * HTTP throughput and latency: each endpoint of the compiled binary under wrk, side by side with a bare
 * Bun.serve replaying the same bytes (same run, same connections), then the access layer's cost measured as the
 * same routes with and without the gate (bench/gate-server.ts).
 */
import { join } from "node:path";
import { startServer } from "../test/support/binary";
import { runLoad, type LoadResult } from "./load";
import { sampleRss, spawnListening, type Child } from "./processes";
import { record, type Recording } from "./recordings";
import { fmt, type Section } from "./report";

export interface BenchCase {
  name: string;
  path: string;
  /** Minimum throughput relative to the bare server, when the issue sets one. */
  targetRatio?: number;
}

export interface HttpOptions {
  dataDir: string;
  keys: string[];
  cases: BenchCase[];
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

/** The access layer may cost at most this share of an endpoint's throughput. */
const MAX_ACCESS_COST = 0.15;
const BUN = process.execPath;

async function measure(url: string, opts: HttpOptions): Promise<LoadResult> {
  if (opts.warmupSeconds > 0) await runLoad(url, { connections: opts.connections, durationSeconds: opts.warmupSeconds, keys: opts.keys });
  return runLoad(url, { connections: opts.connections, durationSeconds: opts.durationSeconds, keys: opts.keys });
}

function status(rec: Recording): string {
  try {
    const body = JSON.parse(Buffer.from(rec.bodyBase64, "base64").toString()) as { error?: { code?: string } };
    return body.error?.code ? `${rec.status} ${body.error.code}` : String(rec.status);
  } catch {
    return String(rec.status);
  }
}

export interface HttpResults {
  endpoints: Section;
  access: Section;
  memory: Section;
}

export async function httpSections(opts: HttpOptions): Promise<HttpResults> {
  const endpoints: Section = {
    title: "Endpoints: compiled binary vs bare Bun.serve",
    intro:
      `wrk, 1 thread, ${opts.connections} connections, ${opts.durationSeconds} s per case after a ${opts.warmupSeconds} s warm-up, on loopback. ` +
      "Bare = a separate Bun.serve process answering with the exact bytes the binary returned for that request (status, headers and body). " +
      "Each side is measured twice per endpoint, in the order binary, bare, bare, binary, and its faster run is kept. " +
      `Requests rotate over ${opts.keys.length} Scale keys (100,000,000/day, 100,000/min each) so no key's minute window fills up.`,
    header: ["endpoint", "bytes", "req/s", "p50 ms", "p99 ms", "bare req/s", "bare p50", "bare p99", "ratio", "target", "verdict"],
    rows: [],
    notes: [],
  };
  const server = await startServer({ dataDir: opts.dataDir, env: { SURFCAST_LOG_LEVEL: "warn" } });
  const rss = sampleRss(server.proc.pid);
  const { bare, measurable, recordings } = await replayedByBare(server.url, opts.dataDir, opts.cases, opts.keys[0]!, endpoints.notes!);
  const rssIdle = rss.stop().peak;
  const underLoad = sampleRss(server.proc.pid);
  try {
    for (const bench of measurable) {
      const { binary: real, bare: yardstick } = await bestOfTwo(["binary", "bare"] as const, (side) => measure((side === "binary" ? server : bare).url + bench.path, opts));
      const size = bodyBytes(recordings, bench.path);
      const ratio = real.rps / yardstick.rps;
      endpoints.rows!.push([
        `${bench.name} \`${bench.path}\``,
        fmt.int(size),
        fmt.int(real.rps),
        fmt.ms(real.p50Ms),
        fmt.ms(real.p99Ms),
        fmt.int(yardstick.rps),
        fmt.ms(yardstick.p50Ms),
        fmt.ms(yardstick.p99Ms),
        fmt.ratio(ratio),
        bench.targetRatio ? `≥ ${bench.targetRatio}×` : "—",
        bench.targetRatio ? fmt.verdict(ratio >= bench.targetRatio) : "—",
      ]);
      for (const [who, r] of [["binary", real], ["bare", yardstick]] as const) {
        if (r.failures > 0) endpoints.notes!.push(`${bench.name}: ${r.failures} failed responses from the ${who} server (non-2xx/3xx or socket errors) — case invalid`);
      }
    }
  } finally {
    await bare.stop();
  }
  const loadRss = underLoad.stop();
  await server.stop();

  const access = await accessCost(opts, measurable.filter((b) => b.path !== "/v1/usage"));
  const memory: Section = {
    title: "Memory of the compiled binary",
    header: ["measure", "MB", "target", "verdict"],
    rows: [
      ["RSS after start and one request per endpoint", fmt.ms(rssIdle), "—", "—"],
      ["steady RSS under load: median of samples every 200 ms (all cases above)", fmt.ms(loadRss.median), "< 250", fmt.verdict(loadRss.median < 250)],
      ["peak RSS under load (includes garbage not yet collected)", fmt.ms(loadRss.peak), "—", "—"],
    ],
  };
  return { endpoints, access, memory };
}

async function accessCost(opts: HttpOptions, cases: BenchCase[]): Promise<Section> {
  const section: Section = {
    title: "Access layer cost (auth + limits + usage accounting)",
    intro:
      "The same keyed routes in three benchmark-only servers run from source (bench/gate-server.ts): behind the production gate " +
      "(createFetchHandler: key lookup, quota and burst window, usage counting, rate-limit headers, usage flushed every 500 ms), called directly (createKeyedRoutes), " +
      "and behind the floor — the least any gate that meets the spec must do: read the key header and send the five rate-limit headers " +
      "(Remaining and RateLimit change per request, from one counter), with no key lookup, no limits and no usage accounting. cost = 1 − gated/ungated; floor cost = 1 − floor/ungated, the runtime's price for " +
      "the spec's headers alone. Each server is measured twice per endpoint, in the order gated, ungated, floor, floor, ungated, gated, and " +
      "its faster run is kept: other work on the shared machine only ever slows a run down. /v1/usage is left out: it cannot run without the gate.",
    header: ["endpoint", "gated req/s", "ungated req/s", "floor req/s", "cost", "floor cost", "target", "verdict"],
    rows: [],
    notes: [],
  };
  if (cases.length === 0) {
    section.notes!.push("not measured: no endpoint answered 200");
    return section;
  }
  const modes = ["gated", "ungated", "floor"] as const;
  const servers = {} as Record<(typeof modes)[number], Child>;
  try {
    for (const mode of modes) servers[mode] = await spawnListening([BUN, join(import.meta.dir, "gate-server.ts"), mode, opts.dataDir]);
    for (const bench of cases) {
      const { gated, ungated, floor } = await bestOfTwo(modes, (mode) => measure(servers[mode].url + bench.path, opts));
      const cost = 1 - gated.rps / ungated.rps;
      const floorCost = 1 - floor.rps / ungated.rps;
      const verdict = cost <= MAX_ACCESS_COST ? fmt.verdict(true) : floorCost > MAX_ACCESS_COST ? "**MISSED** (floor alone exceeds it)" : fmt.verdict(false);
      section.rows!.push([bench.name, fmt.int(gated.rps), fmt.int(ungated.rps), fmt.int(floor.rps), fmt.pct(cost), fmt.pct(floorCost), `≤ ${MAX_ACCESS_COST * 100}%`, verdict]);
      const failures = gated.failures + ungated.failures + floor.failures;
      if (failures > 0) section.notes!.push(`${bench.name}: ${failures} failed responses — case invalid`);
    }
  } finally {
    for (const mode of modes) await servers[mode]?.stop();
  }
  return section;
}

export interface Replayed {
  /** The bare server, replaying what the binary answered to each measurable case. */
  bare: Child;
  /** The recordings' file, for the leaner yardstick to replay (`replaying("lean-bare-server.ts", …)`). */
  recordingsFile: string;
  /** The cases the binary answered with 200 (the others are noted as not measured). */
  measurable: BenchCase[];
  recordings: Recording[];
}

/** A yardstick replaying the recorded answers: bare-server.ts, or lean-bare-server.ts (each answer's Headers built once). */
export function replaying(yardstick: "bare-server.ts" | "lean-bare-server.ts", recordingsFile: string): Promise<Child> {
  return spawnListening([BUN, join(import.meta.dir, yardstick), recordingsFile]);
}

/** Records the binary's answer to each case (under `key`) and starts a bare Bun.serve replaying those bytes. */
export async function replayedByBare(serverUrl: string, dataDir: string, cases: BenchCase[], key: string, notes: string[]): Promise<Replayed> {
  const recordings: Recording[] = [];
  const measurable: BenchCase[] = [];
  for (const bench of cases) {
    const rec = await record(serverUrl, bench.path, { "X-API-Key": key });
    if (rec.status === 200) {
      recordings.push(rec);
      measurable.push(bench);
    } else notes.push(`${bench.name} — not measured: GET ${bench.path} answers ${status(rec)}`);
  }
  const recordingsFile = join(dataDir, "bench-recordings.json");
  await Bun.write(recordingsFile, JSON.stringify(recordings));
  return { bare: await replaying("bare-server.ts", recordingsFile), recordingsFile, measurable, recordings };
}

/** The body size of a recorded case, in bytes. */
export function bodyBytes(recordings: Recording[], path: string): number {
  return Buffer.from(recordings.find((r) => r.path === path)!.bodyBase64, "base64").length;
}

/**
 * Measures every mode twice, in mirrored order (so a drift in machine load hits each mode alike), and keeps each
 * mode's faster run, with the failures of both.
 */
export async function bestOfTwo<M extends string, R extends Pick<LoadResult, "rps" | "failures"> = LoadResult>(modes: readonly M[], run: (mode: M) => Promise<R>): Promise<Record<M, R>> {
  const best = {} as Record<M, R>;
  for (const mode of [...modes, ...[...modes].reverse()]) {
    const result = await run(mode);
    const previous = best[mode];
    if (!previous) best[mode] = result;
    else best[mode] = { ...(result.rps > previous.rps ? result : previous), failures: result.failures + previous.failures };
  }
  return best;
}
