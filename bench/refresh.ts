/**
 * Full refresh of every spot through the compiled binary (`surfcast refresh`) against the local fake
 * Open-Meteo (test/support/fake-open-meteo.ts, running in the benchmark process): wall time, upstream requests
 * and call weight as the fake counted them, peak RSS of the refresh process, and the database's size afterwards;
 * then the repeat refresh with one, three and four wave models (SURFCAST_WAVE_MODELS).
 *
 * Run alone: `bun bench/refresh.ts` fills a data dir of its own and replaces only the wave models' section of
 * RESULTS.md.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_WAVE_MODELS } from "../src/forecast/models";
import { BINARY, tempDir } from "../test/support/env";
import { startFakeOpenMeteo } from "../test/support/fake-open-meteo";
import { sampleRss } from "./processes";
import { fmt, renderSection, writeSectionToResults, type Section } from "./report";

/** Issue #22: the database of the full catalog stays below this many MB. */
const DATABASE_TARGET_MB = 120;

/** Issue #22: a full refresh stays under this many seconds on the 2-core machine. */
const REPEAT_TARGET_S = 20;

/** The single-model request whose weight the 1.5 × spots budget (issue #16) was set for. */
const ONE_MODEL = { SURFCAST_WAVE_MODELS: "best_match" };

/** `surfcast refresh` of every spot against the fake: wall time (exec to exit), peak RSS and output. */
async function runRefresh(dataDir: string, fakeUrl: string, env: Record<string, string> = {}) {
  const started = performance.now();
  const proc = Bun.spawn([BINARY, "--data-dir", dataDir, "refresh"], {
    env: { ...process.env, SURFCAST_OPEN_METEO_MARINE_URL: fakeUrl, SURFCAST_OPEN_METEO_FORECAST_URL: fakeUrl, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const rss = sampleRss(proc.pid, 50);
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), new Response(proc.stderr as ReadableStream).text()]);
  const code = await proc.exited;
  const wallMs = performance.now() - started;
  // CPU time moves less than wall time with the other work on the shared machine.
  const cpu = proc.resourceUsage()?.cpuTime;
  const cpuMs = cpu ? Number(cpu.user + cpu.system) / 1000 : NaN;
  return { wallMs, cpuMs, peak: rss.stop().peak, code, stdout, stderr };
}

/** Size in MB of the data dir's database and of its write-ahead log. */
function databaseMb(dataDir: string): { db: number; wal: number } {
  const size = (file: string) => (existsSync(file) ? statSync(file).size / 1e6 : 0);
  return { db: size(join(dataDir, "surfcast.db")), wal: size(join(dataDir, "surfcast.db-wal")) };
}

export async function refreshSection(dataDir: string): Promise<Section> {
  const section: Section = {
    title: "Forecast refresh (all spots, local fake Open-Meteo)",
    intro: "`surfcast refresh` of the whole catalog against the fake Open-Meteo on loopback (default batch size and retries), with one wave model (`SURFCAST_WAVE_MODELS=best_match`, the request the 1.5 × spots budget was set for; the next section compares model counts). Upstream cost is as the fake counted it.",
    header: ["measure", "value"],
    rows: [],
    notes: [],
  };
  const fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  try {
    const { wallMs, peak, code, stdout, stderr } = await runRefresh(dataDir, fake.url, ONE_MODEL);
    if (code !== 0) {
      section.notes!.push(`refresh exited ${code}: ${(stdout + stderr).trim().split("\n").slice(-4).join(" / ")}`);
      if (/no spots|not implemented/.test(stdout + stderr)) return { title: section.title, notes: [`not measured: ${(stderr.trim().split("\n").at(-1) ?? "").replace(/^surfcast: /, "")}`] };
    }
    const spots = /Spots:\s+(\d+) ok, (\d+) failed/.exec(stdout);
    const spotCount = spots ? Number(spots[1]) + Number(spots[2]) : 5877;
    section.rows!.push(
      ["spots refreshed (ok / failed)", spots ? `${fmt.int(Number(spots[1]))} / ${fmt.int(Number(spots[2]))}` : "—"],
      ["wall time of the first refresh (exec to exit; empty data dir: the tide station choice included); target < 60 s", `${(wallMs / 1000).toFixed(1)} s — ${fmt.verdict(wallMs < 60_000)}`],
      ["upstream requests", fmt.int(fake.requests.length)],
      [
        `upstream locations; target < 1.2 × spots = ${fmt.int(Math.floor(1.2 * spotCount))}`,
        `${fmt.int(fake.locations())} (marine ${fmt.int(fake.locations("marine"))}, forecast ${fmt.int(fake.locations("forecast"))}) — ${fmt.verdict(fake.locations() < 1.2 * spotCount)}`,
      ],
      [
        `upstream call weight; budget ≤ 1.5 × spots = ${fmt.int(Math.floor(1.5 * spotCount))}`,
        `${fmt.int(fake.weight())} (marine ${fmt.int(fake.weight("marine"))}, forecast ${fmt.int(fake.weight("forecast"))}) — ${fmt.verdict(fake.weight() <= 1.5 * spotCount)}`,
      ],
      ["peak RSS of the refresh process; target < 400 MB", `${fmt.ms(peak)} MB — ${fmt.verdict(peak < 400)}`],
    );
    // What the schedule runs twice a day: the data dir already holds every forecast and tide choice.
    const repeat = await runRefresh(dataDir, fake.url, ONE_MODEL);
    section.rows!.push(
      [`repeat refresh on the filled data dir (what the schedule runs); wall time, #22 target < ${REPEAT_TARGET_S} s`, `${(repeat.wallMs / 1000).toFixed(1)} s — ${fmt.verdict(repeat.code === 0 && repeat.wallMs < REPEAT_TARGET_S * 1000)}`],
      ["peak RSS of the repeat refresh", `${fmt.ms(repeat.peak)} MB`],
    );
    const size = databaseMb(dataDir);
    section.rows!.push([
      `database after the refresh (forecast documents compressed); target < ${DATABASE_TARGET_MB} MB`,
      `${size.db.toFixed(1)} MB, WAL ${size.wal.toFixed(1)} MB — ${fmt.verdict(size.db + size.wal < DATABASE_TARGET_MB)}`,
    ]);
    section.notes!.push("The fake runs in the benchmark process on the same 2 cores; its JSON building is part of the wall time.");
    return section;
  } finally {
    await fake.close();
  }
}

export const WAVE_MODELS_TITLE = "Several wave models";

/** The model lists compared: the single blend, the default, and the four. */
const ONE = { what: "one (best_match)", models: [ONE_MODEL.SURFCAST_WAVE_MODELS] };
const THREE = { what: "three (the default)", models: [...DEFAULT_WAVE_MODELS] };
const FOUR = { what: "four", models: ["ecmwf_wam025", "ncep_gfswave025", "meteofrance_wave", "gwam"] };
const MODEL_SETS = [ONE, THREE, FOUR];

/**
 * The repeat refresh of a filled data dir with each model list, run in mirrored order (3, 1, 4, 4, 1, 3) so that
 * the shared machine's drift weighs on every list alike; the faster run of each list is kept. Ending on the default
 * leaves the data dir as a server with the default configuration has it, for the sections after this one. A fresh
 * fake per run counts that run's requests and weight.
 */
export async function waveModelsSection(dataDir: string): Promise<Section> {
  const section: Section = {
    title: WAVE_MODELS_TITLE,
    intro:
      "The repeat refresh of the whole catalog (a data dir filled by a first refresh: what the schedule runs) with SURFCAST_WAVE_MODELS set to each list, against the fake Open-Meteo (one marine request per batch names every model; one column per variable and model). Each list ran twice in mirrored order (3, 1, 4, 4, 1, 3); the faster run is shown, the other beside it. Weight as the fake counted it: max(1, variables × models / 10 × max(1, days / 14)) per marine location.",
    header: ["models", "wall time, best (other) — #22/#37 target < 20 s", "CPU of the refresh process, best", "upstream requests", "call weight (marine + forecast)", "weight per spot", "peak RSS of the refresh"],
    rows: [],
    notes: [],
  };
  const runs = new Map<string, { wallMs: number; cpuMs: number; peak: number; requests: number; weight: number; marine: number; forecast: number; spots: number; code: number; output: string }[]>();
  for (const set of [THREE, ONE, FOUR, FOUR, ONE, THREE]) {
    const fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
    try {
      const run = await runRefresh(dataDir, fake.url, { SURFCAST_WAVE_MODELS: set.models.join(",") });
      const spots = /Spots:\s+(\d+) ok, (\d+) failed/.exec(run.stdout);
      const list = runs.get(set.what) ?? [];
      list.push({
        wallMs: run.wallMs,
        cpuMs: run.cpuMs,
        peak: run.peak,
        requests: fake.requests.length,
        weight: fake.weight(),
        marine: fake.weight("marine"),
        forecast: fake.weight("forecast"),
        spots: spots ? Number(spots[1]) + Number(spots[2]) : NaN,
        code: run.code,
        output: (run.stdout + run.stderr).trim().split("\n").slice(-2).join(" / "),
      });
      runs.set(set.what, list);
    } finally {
      await fake.close();
    }
  }
  for (const set of MODEL_SETS) {
    const [a, b] = [...runs.get(set.what)!].sort((x, y) => x.wallMs - y.wallMs);
    const best = a!;
    const ok = best.code === 0 && best.wallMs < REPEAT_TARGET_S * 1000;
    section.rows!.push([
      `${set.what}: ${set.models.join(", ")}`,
      `${(best.wallMs / 1000).toFixed(1)} s (${b ? (b.wallMs / 1000).toFixed(1) : "—"}) — ${fmt.verdict(ok)}`,
      `${(Math.min(...runs.get(set.what)!.map((r) => r.cpuMs)) / 1000).toFixed(1)} s`,
      fmt.int(best.requests),
      `${fmt.int(best.weight)} (${fmt.int(best.marine)} + ${fmt.int(best.forecast)})`,
      (best.weight / best.spots).toFixed(2),
      `${fmt.ms(Math.max(best.peak, b?.peak ?? 0))} MB`,
    ]);
    for (const run of runs.get(set.what)!) if (run.code !== 0) section.notes!.push(`${set.what}: refresh exited ${run.code}: ${run.output}`);
  }
  section.notes!.push(
    "Peak RSS is the higher of the two runs. The fake runs in the benchmark process on the same 2 cores; building one column per variable and model is part of the wall time.",
    `load average at the end: ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")} (the machine is shared)`,
  );
  return section;
}

if (import.meta.main) {
  process.env.SURFCAST_LOG_LEVEL ??= "warn";
  const dataDir = tempDir("bench-wave-models");
  // `refresh` needs a database: an account makes one.
  const made = Bun.spawnSync([BINARY, "--data-dir", dataDir, "accounts", "create", "bench@example.com", "--plan", "starter"], { stderr: "pipe" });
  if (made.exitCode !== 0) throw new Error(`accounts create failed: ${made.stderr.toString()}`);
  // The first refresh fills the data dir (forecasts, tide station choice); only the repeat refreshes are measured.
  const fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  try {
    const first = await runRefresh(dataDir, fake.url);
    if (first.code !== 0) throw new Error(`the first refresh failed:\n${first.stdout}${first.stderr}`);
  } finally {
    await fake.close();
  }
  const section = await waveModelsSection(dataDir);
  section.notes!.push(`run alone (\`bun bench/refresh.ts\`) at ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`);
  console.log(renderSection(section));
  await writeSectionToResults(section);
  console.log("updated bench/RESULTS.md");
}
