/**
 * A fleet of keys: what a request costs when every request carries the next of 48 keys of one Scale account, as
 * an operator with many customers sees it — the method of the issue that asked for it, beside the endpoint table's
 * own: wrk, 1 thread, 50 connections, 5 s per run, no warm-up, measured binary, bare, lean, lean, bare, binary, and the
 * mean of each side (not the best), against both yardsticks. Alone, `bun bench/fleet.ts [--quick]` makes a data dir of
 * its own with one spot's forecast and tides, prints the tables and, without --quick, replaces them in bench/RESULTS.md.
 */
import { cli, cliAsync, startServer } from "../test/support/binary";
import { tempDir } from "../test/support/env";
import { startFakeOpenMeteo } from "../test/support/fake-open-meteo";
import { bodyBytes, replayedByBare, replaying, type BenchCase } from "./http";
import { ensureWrk, runLoad, type LoadResult } from "./load";
import { fmt, renderSection, writeSectionToResults, type Section } from "./report";
import { isolatedFleetSection } from "./fleet-inprocess";

export const FLEET_SIZE = 48;
const EMAIL = "fleet@example.com";

/** The endpoints and targets, on one spot. */
export function fleetCases(spot: { id: string; lat: number; lng: number }): BenchCase[] {
  return [
    { name: "get spot", path: `/v1/spots/${spot.id}`, targetRatio: 0.7 },
    { name: "tides", path: `/v1/spots/${spot.id}/tides?days=7`, targetRatio: 0.65 },
    { name: "nearby", path: `/v1/spots/nearby?lat=${spot.lat}&lng=${spot.lng}&radius=50&limit=10`, targetRatio: 0.6 },
    { name: "usage", path: "/v1/usage", targetRatio: 0.6 },
    { name: "search", path: "/v1/spots?q=pipeline", targetRatio: 0.5 },
    { name: "forecast", path: `/v1/spots/${spot.id}/forecast`, targetRatio: 0.8 },
  ];
}

/** One Scale account with `count` keys (the fleet by default), limits raised so that no run reaches a quota or a burst window. */
export function createScaleKeys(dataDir: string, email = EMAIL, count = FLEET_SIZE): string[] {
  const made = cli(dataDir, ["accounts", "create", email, "--plan", "scale", "--daily-limit", "100000000", "--minute-limit", "100000", "--max-keys", String(count)]);
  if (made.code !== 0) throw new Error(`accounts create failed: ${made.stderr}`);
  return Array.from({ length: count }, (_, i) => {
    const r = cli(dataDir, ["keys", "create", email, "--name", `bench-${i}`]);
    if (r.code !== 0) throw new Error(`keys create failed: ${r.stderr}`);
    return r.stdout.trim().split("\n").at(-1)!;
  });
}

const mean = (runs: LoadResult[]) => ({
  rps: runs.reduce((n, r) => n + r.rps, 0) / runs.length,
  p50Ms: runs.reduce((n, r) => n + r.p50Ms, 0) / runs.length,
  failures: runs.reduce((n, r) => n + r.failures, 0),
});

/** The yardsticks: bare-server.ts (the URL parsed, the headers built from a plain object per request) and lean-bare-server.ts (Headers built once, one Map lookup by the whole URL). */
const SIDES = ["binary", "bare", "lean"] as const;

export async function fleetSection(opts: { dataDir: string; keys: string[]; cases: BenchCase[]; durationSeconds: number; connections: number }): Promise<Section> {
  const section: Section = {
    title: "A fleet of keys: every request with the next of 48 keys",
    intro:
      `wrk, 1 thread, ${opts.connections} connections, ${opts.durationSeconds} s per run, no warm-up; each request carries the next of ${opts.keys.length} keys of one Scale account. ` +
      "Measured binary, bare, lean, lean, bare, binary per endpoint; each side's figure is the mean of its two runs. Two yardsticks replay the binary's bytes: bare (bench/bare-server.ts: it parses the URL and builds the headers from a plain object per request) and lean (bench/lean-bare-server.ts: each answer's Headers built once, one Map lookup by the whole URL: the least JavaScript that sends these bytes). The target applies to the ratio to bare.",
    header: ["endpoint", "bytes", "req/s", "p50 ms", "bare req/s", "ratio to bare", "lean req/s", "ratio to lean", "target", "verdict"],
    rows: [],
    notes: [],
  };
  const server = await startServer({ dataDir: opts.dataDir, env: { SURFCAST_LOG_LEVEL: "warn" } });
  const { bare, recordingsFile, measurable, recordings } = await replayedByBare(server.url, opts.dataDir, opts.cases, opts.keys[0]!, section.notes!);
  const lean = await replaying("lean-bare-server.ts", recordingsFile);
  const urls = { binary: server.url, bare: bare.url, lean: lean.url };
  try {
    for (const bench of measurable) {
      const runs = { binary: [] as LoadResult[], bare: [] as LoadResult[], lean: [] as LoadResult[] };
      for (const side of [...SIDES, ...[...SIDES].reverse()]) {
        runs[side].push(await runLoad(urls[side] + bench.path, { connections: opts.connections, durationSeconds: opts.durationSeconds, keys: opts.keys }));
      }
      const [real, toBare, toLean] = [mean(runs.binary), mean(runs.bare), mean(runs.lean)];
      const ratio = real.rps / toBare.rps;
      section.rows!.push([
        `${bench.name} \`${bench.path}\``,
        fmt.int(bodyBytes(recordings, bench.path)),
        fmt.int(real.rps),
        fmt.ms(real.p50Ms),
        fmt.int(toBare.rps),
        fmt.ratio(ratio),
        fmt.int(toLean.rps),
        fmt.ratio(real.rps / toLean.rps),
        `≥ ${bench.targetRatio}×`,
        fmt.verdict(ratio >= bench.targetRatio!),
      ]);
      const failures = real.failures + toBare.failures + toLean.failures;
      if (failures > 0) section.notes!.push(`${bench.name}: ${failures} failed responses — case invalid`);
    }
  } finally {
    await lean.stop();
    await bare.stop();
    await server.stop();
  }
  return section;
}

/** `dataDir` with the fleet's keys and Pipeline's forecast and tides, refreshed from a local fake Open-Meteo: what the fleet's endpoints answer from. */
export async function fleetDataDir(dataDir: string): Promise<string[]> {
  const keys = createScaleKeys(dataDir);
  const fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  // The fake answers in this process: the refresh must not block it.
  const refreshed = await cliAsync(dataDir, ["refresh", "--spots", "pipeline"], { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url });
  await fake.close();
  if (refreshed.code !== 0) throw new Error(`refresh failed: ${refreshed.stderr}`);
  return keys;
}

if (import.meta.main) {
  ensureWrk();
  const quick = process.argv.includes("--quick");
  const dataDir = tempDir("bench-fleet");
  const keys = await fleetDataDir(dataDir);
  const cases = fleetCases({ id: "pipeline", lat: 21.665, lng: -158.053 });
  const sections = [await fleetSection({ dataDir, keys, cases, durationSeconds: quick ? 2 : 5, connections: 50 }), await isolatedFleetSection(dataDir, keys, cases, quick)];
  for (const section of sections) console.log("\n" + renderSection(section));
  if (!quick) for (const section of sections) await writeSectionToResults(section);
}
