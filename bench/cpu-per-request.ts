/**
 * CPU time per request, robust to a loaded machine: the fleet's endpoints under wrk (1 thread, 50 connections,
 * every request with the next of 48 keys), and for each server the CPU time its process used during the run
 * (/proc/PID/stat, user + system) divided by the requests answered. Another process taking a core slows a run's
 * req/s, but hardly what one request costs the server. Three servers: the binary, the bare yardstick of the other
 * tables (bench/bare-server.ts) and the leaner one (bench/lean-bare-server.ts: Headers built once). Rounds in the
 * order binary, bare, lean, lean, bare, binary; each side's figure is the mean of its two runs.
 *
 * `bun bench/cpu-per-request.ts [--quick] [--data-dir DIR] [--binary PATH]…`: a data dir of its own unless given one
 * (its keys kept in DIR/bench-keys.json for the next run); several `--binary` measure each (an A/B of two builds).
 */
import { cpSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BINARY, tempDir } from "../test/support/env";
import { fleetCases, fleetDataDir } from "./fleet";
import { replaying } from "./http";
import { ensureWrk, runLoad } from "./load";
import { cpuSecondsOf, spawnListening, type Child } from "./processes";
import { record, type Recording } from "./recordings";
import { fmt, renderSection, type Section } from "./report";

/** A data dir with the fleet's keys and one spot's forecast and tides, made once and reused when given. */
async function preparedDataDir(given: string | undefined): Promise<{ dataDir: string; keys: string[] }> {
  const dataDir = given ?? tempDir("bench-cpu");
  const keysFile = join(dataDir, "bench-keys.json");
  if (existsSync(keysFile)) return { dataDir, keys: (await Bun.file(keysFile).json()) as string[] };
  const keys = await fleetDataDir(dataDir);
  await Bun.write(keysFile, JSON.stringify(keys));
  return { dataDir, keys };
}

function copied(dataDir: string, n: number): string {
  const copy = `${dataDir}-${n}`;
  rmSync(copy, { recursive: true, force: true });
  cpSync(dataDir, copy, { recursive: true });
  return copy;
}

function serveBinary(binary: string, dataDir: string): Promise<Child> {
  return spawnListening([binary, "--data-dir", dataDir, "serve", "--port", "0", "--host", "127.0.0.1", "--no-scheduler"], {
    env: { SURFCAST_LOG_LEVEL: "warn", SURFCAST_NDBC_URL: "http://127.0.0.1:9", SURFCAST_OPEN_METEO_MARINE_URL: "http://127.0.0.1:9", SURFCAST_OPEN_METEO_FORECAST_URL: "http://127.0.0.1:9" },
  });
}

/** One wrk run: the server's CPU µs per answered request, and its req/s (noisy on a shared machine). */
async function cpuRun(server: Child, path: string, keys: string[], seconds: number): Promise<{ us: number; rps: number }> {
  const before = cpuSecondsOf(server.pid);
  const load = await runLoad(server.url + path, { connections: 50, durationSeconds: seconds, keys });
  const used = cpuSecondsOf(server.pid) - before;
  if (load.failures > 0) throw new Error(`${server.url}${path}: ${load.failures} failed responses`);
  return { us: (used / load.requests) * 1e6, rps: load.rps };
}

if (import.meta.main) {
  ensureWrk();
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const valuesOf = (flag: string) => args.flatMap((a, i) => (a === flag && args[i + 1] ? [args[i + 1]!] : []));
  const binaries = valuesOf("--binary");
  if (binaries.length === 0) binaries.push(BINARY);
  const { dataDir, keys } = await preparedDataDir(valuesOf("--data-dir")[0]);
  const cases = fleetCases({ id: "pipeline", lat: 21.665, lng: -158.053 });
  const seconds = quick ? 2 : 4;

  // One serve per data dir: each further binary serves a copy.
  const servers = await Promise.all(binaries.map((b, i) => serveBinary(b, i === 0 ? dataDir : copied(dataDir, i))));
  const recordings: Recording[] = [];
  for (const bench of cases) recordings.push(await record(servers[0]!.url, bench.path, { "X-API-Key": keys[0]! }));
  const recordingsFile = join(dataDir, "bench-cpu-recordings.json");
  await Bun.write(recordingsFile, JSON.stringify(recordings));
  const [bare, lean] = await Promise.all([replaying("bare-server.ts", recordingsFile), replaying("lean-bare-server.ts", recordingsFile)]);

  const names = binaries.map((b, i) => (binaries.length === 1 ? "binary" : `binary ${i + 1}`));
  const section: Section = {
    title: "CPU per request under wrk",
    intro: `wrk, 1 thread, 50 connections, ${seconds} s per run, 48 keys in rotation; the server process's CPU time (user + system) per answered request, µs; mean of two runs per side.`,
    header: ["endpoint", ...names.map((n) => `${n} µs`), "bare µs", "lean bare µs", ...names.map((n) => `${n} − lean µs`), ...names.map((n) => `${n} req/s`), "lean req/s"],
    rows: [],
  };
  try {
    for (const bench of cases) {
      const sides: Child[] = [...servers, bare, lean];
      const runs = new Map<Child, { us: number; rps: number }[]>(sides.map((s) => [s, []]));
      for (const side of [...sides, ...[...sides].reverse()]) runs.get(side)!.push(await cpuRun(side, bench.path, keys, seconds));
      const mean = (side: Child, of: "us" | "rps") => runs.get(side)!.reduce((n, r) => n + r[of], 0) / 2;
      section.rows!.push([
        bench.name,
        ...servers.map((s) => fmt.us(mean(s, "us"))),
        fmt.us(mean(bare, "us")),
        fmt.us(mean(lean, "us")),
        ...servers.map((s) => fmt.us(mean(s, "us") - mean(lean, "us"))),
        ...servers.map((s) => fmt.int(mean(s, "rps"))),
        fmt.int(mean(lean, "rps")),
      ]);
      console.error(section.rows!.at(-1)!.join(" | "));
    }
  } finally {
    await Promise.all([...servers, bare, lean].map((s) => s.stop()));
  }
  console.log(renderSection(section));
}
