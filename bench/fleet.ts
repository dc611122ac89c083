/**
 * A fleet of keys: what a request costs when every request carries the next of 48 keys of one Scale account, as
 * an operator with many customers sees it — the method of the issue that asked for it, beside the endpoint table's
 * own: wrk, 1 thread, 50 connections, 5 s per run, no warm-up, measured binary, bare, bare, binary, and the mean of
 * each side (not the best). Alone, `bun bench/fleet.ts [--quick]` makes a data dir of its own with one spot's
 * forecast and tides, and prints the table.
 */
import { cli, cliAsync, startServer } from "../test/support/binary";
import { tempDir } from "../test/support/env";
import { startFakeOpenMeteo } from "../test/support/fake-open-meteo";
import { bodyBytes, replayedByBare, type BenchCase } from "./http";
import { ensureWrk, runLoad, type LoadResult } from "./load";
import { fmt, renderSection, type Section } from "./report";
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

export async function fleetSection(opts: { dataDir: string; keys: string[]; cases: BenchCase[]; durationSeconds: number; connections: number }): Promise<Section> {
  const section: Section = {
    title: "A fleet of keys: every request with the next of 48 keys",
    intro:
      `wrk, 1 thread, ${opts.connections} connections, ${opts.durationSeconds} s per run, no warm-up; each request carries the next of ${opts.keys.length} keys of one Scale account. ` +
      "Measured binary, bare, bare, binary per endpoint; each side's figure is the mean of its two runs. Bare = a Bun.serve replaying the binary's bytes (bench/bare-server.ts).",
    header: ["endpoint", "bytes", "req/s", "p50 ms", "bare req/s", "bare p50", "ratio", "target", "verdict"],
    rows: [],
    notes: [],
  };
  const server = await startServer({ dataDir: opts.dataDir, env: { SURFCAST_LOG_LEVEL: "warn" } });
  const { bare, measurable, recordings } = await replayedByBare(server.url, opts.dataDir, opts.cases, opts.keys[0]!, section.notes!);
  try {
    for (const bench of measurable) {
      const runs = { binary: [] as LoadResult[], bare: [] as LoadResult[] };
      for (const side of ["binary", "bare", "bare", "binary"] as const) {
        const url = (side === "binary" ? server : bare).url + bench.path;
        runs[side].push(await runLoad(url, { connections: opts.connections, durationSeconds: opts.durationSeconds, keys: opts.keys }));
      }
      const [real, yardstick] = [mean(runs.binary), mean(runs.bare)];
      const ratio = real.rps / yardstick.rps;
      section.rows!.push([
        `${bench.name} \`${bench.path}\``,
        fmt.int(bodyBytes(recordings, bench.path)),
        fmt.int(real.rps),
        fmt.ms(real.p50Ms),
        fmt.int(yardstick.rps),
        fmt.ms(yardstick.p50Ms),
        fmt.ratio(ratio),
        `≥ ${bench.targetRatio}×`,
        fmt.verdict(ratio >= bench.targetRatio!),
      ]);
      if (real.failures + yardstick.failures > 0) section.notes!.push(`${bench.name}: ${real.failures + yardstick.failures} failed responses — case invalid`);
    }
  } finally {
    await bare.stop();
    await server.stop();
  }
  return section;
}

if (import.meta.main) {
  ensureWrk();
  const quick = process.argv.includes("--quick");
  const dataDir = tempDir("bench-fleet");
  const keys = createScaleKeys(dataDir);
  const fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  // The fake answers in this process: the refresh must not block it.
  const refreshed = await cliAsync(dataDir, ["refresh", "--spots", "pipeline"], { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url });
  await fake.close();
  if (refreshed.code !== 0) throw new Error(`refresh failed: ${refreshed.stderr}`);
  const cases = fleetCases({ id: "pipeline", lat: 21.665, lng: -158.053 });
  const section = await fleetSection({ dataDir, keys, cases, durationSeconds: quick ? 2 : 5, connections: 50 });
  console.log(renderSection(section));
  console.log("\n" + renderSection(await isolatedFleetSection(dataDir, keys, cases, quick)));
}
