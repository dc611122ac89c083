/**
 * Which source serves each spot's tides after a full refresh against the fake Open-Meteo (its synthetic sea level:
 * test/support/fake-sea-level.ts), and why the tideless ones are tideless, by reason and region. Also the refresh's
 * call weight with the sea level, and with issue #16's nine extra marine variables on top.
 *
 *   bun bench/tide-sources.ts     full refresh in a fresh data dir, prints the section and splices it into RESULTS.md
 * `bench/run.ts` runs the same section on its own data dir right after its refresh.
 */
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openApp } from "../src/app";
import { callWeight, FORECAST_DAYS, MARINE_HOURLY } from "../src/forecast/openmeteo";
import type { TideSourceKind } from "../src/tides/source";
import { BINARY, tempDir } from "../test/support/env";
import { startFakeOpenMeteo } from "../test/support/fake-open-meteo";
import { atOnce } from "../test/support/at-once";
import { fmt, renderSection, type Section } from "./report";

export const TIDE_SOURCES_TITLE = "Tide sources (default catalog, after a full refresh against the fake Open-Meteo)";
/** Issue #16 adds secondary_swell_wave_*, tertiary_swell_wave_* and wind_wave_* (height, direction, period). */
const ISSUE_16_MARINE_VARIABLES = 9;

/** A tideless reason, without the per-spot numbers. */
function reasonKind(reason: string): string {
  if (reason.startsWith("override")) return "import override";
  if (reason.startsWith("no sea-level data")) return "no sea-level data (lake, river, pool)";
  if (reason.startsWith("negligible tide: model range")) return `negligible: model range below the threshold`;
  if (reason.startsWith("negligible tide")) return "negligible: every station in reach below 0.2 m, model not read";
  return reason;
}

export async function tideSourcesSection(dataDir: string, refresh?: { weight: number; marineLocations: number; forecastLocations: number }): Promise<Section> {
  const app = await openApp(loadConfig({ dataDir, port: 0, host: "127.0.0.1", scheduler: false }));
  try {
    const spots = app.spots.all();
    const bySource = new Map<TideSourceKind, number>();
    const byCase = new Map<string, number>();
    const tideless = new Map<string, Map<string, number>>();
    for (const spot of spots) {
      const { source, reason } = atOnce(app.tides.sourceOf(spot.id));
      bySource.set(source, (bySource.get(source) ?? 0) + 1);
      const why = caseOf(source, reason);
      if (why) byCase.set(why, (byCase.get(why) ?? 0) + 1);
      if (source !== "none") continue;
      const kind = reasonKind(reason);
      const regions = tideless.get(kind) ?? new Map<string, number>();
      const region = spot.region && ["USA", "Canada"].includes(spot.country) ? `${spot.country}, ${spot.region.split(",")[0]}` : spot.country;
      regions.set(region, (regions.get(region) ?? 0) + 1);
      tideless.set(kind, regions);
    }
    const rows: string[][] = (["station", "model", "none", "pending"] as const).map((s) => [
      s === "none" ? "none (tideless)" : s === "pending" ? "pending (model not read yet)" : s,
      fmt.int(bySource.get(s) ?? 0),
      fmt.pct((bySource.get(s) ?? 0) / spots.length),
    ]);
    const notes: string[] = [...byCase].sort((a, b) => b[1] - a[1]).map(([why, n]) => `${why}: ${fmt.int(n)}`);
    for (const [kind, regions] of [...tideless].sort((a, b) => sum(b[1]) - sum(a[1]))) {
      const list = [...regions].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([r, n]) => `${r} ${n}`);
      notes.push(`tideless — ${kind}: **${sum(regions)}** — ${list.join(", ")}`);
    }
    if (refresh) {
      const budget = 1.5 * spots.length;
      const withIssue16 = refresh.weight + (callWeight(MARINE_HOURLY.length + ISSUE_16_MARINE_VARIABLES, FORECAST_DAYS) - callWeight(MARINE_HOURLY.length, FORECAST_DAYS)) * refresh.marineLocations;
      notes.push(
        `call weight of the refresh with \`sea_level_height_msl\` (${MARINE_HOURLY.length} marine variables: ${callWeight(MARINE_HOURLY.length, FORECAST_DAYS).toFixed(1)} per location): ${fmt.int(refresh.weight)} = ${(refresh.weight / spots.length).toFixed(2)} × spots (${fmt.int(refresh.marineLocations)} marine + ${fmt.int(refresh.forecastLocations)} forecast locations)`,
        `with issue #16's ${ISSUE_16_MARINE_VARIABLES} marine variables as well (${MARINE_HOURLY.length + ISSUE_16_MARINE_VARIABLES} variables: ${callWeight(MARINE_HOURLY.length + ISSUE_16_MARINE_VARIABLES, FORECAST_DAYS).toFixed(1)} per marine location): ${fmt.int(withIssue16)} = ${(withIssue16 / spots.length).toFixed(2)} × spots; budget 1.5 × spots = ${fmt.int(budget)} — ${fmt.verdict(withIssue16 <= budget)}`,
      );
    }
    notes.push("The sea level is the fake's synthetic tide (regimes by region, all null on land more than 15 km from the coast): the split between station and model reflects that stand-in, not Open-Meteo's real SMOC field.");
    return {
      title: TIDE_SOURCES_TITLE,
      intro: "Source per spot by the rule of docs/tides.md (a station within 25 km not damped against the model, or one within 200 km whose range agrees with the model's; else the model; else none — tideless), after `surfcast refresh` of every spot.",
      header: ["source", "spots", "share"],
      rows,
      notes,
    };
  } finally {
    void app.close(); // nothing pending: the database closes once the empty flush resolves
  }
}

/** Why a station or the model serves a spot, in a few words (from the rule's reason). */
function caseOf(source: TideSourceKind, reason: string): string | null {
  if (source === "station") {
    if (reason.startsWith("override")) return "station: the import or the catalog overlay says tidal (tidal bores, coastal spots placed inland)";
    if (reason.includes("sees no tide")) return "station: it disagrees with the model, but the model sees no tide";
    if (reason.includes("near, and not damped")) return `station: within 25 km and not damped against the model`;
    if (reason.includes("agrees")) return "station: in reach and agrees with the model";
    return `station: ${reason.replace(/^.*?; /, "")}`;
  }
  if (source === "model") return reason.includes("disagrees") ? "model: the station in reach disagrees with it" : "model: no station in reach";
  return null;
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** Reads the refresh summary `Upstream: N requests, weight W (M marine + F forecast locations)`. */
export function parseRefreshWeight(stdout: string): { weight: number; marineLocations: number; forecastLocations: number } | undefined {
  const m = /weight ([\d.]+) \((\d+) marine \+ (\d+) forecast locations\)/.exec(stdout);
  return m ? { weight: Number(m[1]), marineLocations: Number(m[2]), forecastLocations: Number(m[3]) } : undefined;
}

if (import.meta.main) {
  process.env.SURFCAST_LOG_LEVEL ??= "warn";
  const dataDir = tempDir("bench-tide-sources");
  const fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  let stdout = "";
  const started = performance.now();
  try {
    const proc = Bun.spawn([BINARY, "--data-dir", dataDir, "refresh"], {
      env: { ...process.env, SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url },
      stdout: "pipe",
      stderr: "inherit",
    });
    stdout = await new Response(proc.stdout as ReadableStream).text();
    if ((await proc.exited) !== 0) throw new Error(`refresh failed:\n${stdout}`);
  } finally {
    await fake.close();
  }
  const refreshSeconds = (performance.now() - started) / 1000;
  const section = await tideSourcesSection(dataDir, parseRefreshWeight(stdout));
  section.notes!.push(`this run's refresh (first on an empty data dir, so every spot's station is chosen during it): ${refreshSeconds.toFixed(1)} s wall time, load average ${(await Bun.file("/proc/loadavg").text()).split(" ")[0]} on the shared machine`);
  const text = renderSection(section);
  console.log(text);
  // Replace this section in RESULTS.md (or add it after the tide window's), leaving the rest as it is.
  const path = join(import.meta.dir, "RESULTS.md");
  const results = await Bun.file(path).text();
  const sections = results.split(/\n(?=## )/);
  const at = sections.findIndex((s) => s.startsWith(`## ${TIDE_SOURCES_TITLE}`));
  if (at >= 0) sections[at] = text.trimEnd() + "\n";
  else sections.splice(sections.findIndex((s) => s.startsWith("## Tide window")) + 1, 0, text.trimEnd() + "\n");
  await Bun.write(path, sections.join("\n"));
  console.log("updated bench/RESULTS.md");
}
