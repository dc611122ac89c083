/**
 * Full recomputation of the tide window for every spot, from an empty data dir: station choice, 9-day extremes,
 * storage — what a fresh installation's first tide pass does (issue target: < 30 s on this 2-core machine).
 * Runs in the benchmark process, before anything else here has loaded the tide database, so its load counts.
 */
import { sqliteDb } from "../test/support/inprocess";
import { loadConfig } from "../src/config";
import { openApp } from "../src/app";
import { memoryPacer } from "../src/ops/memory";
import { tempDir } from "../test/support/env";
import { fmt, type Section } from "./report";

export async function tideWindowSection(): Promise<Section> {
  const title = "Tide window: full recomputation (all spots, empty data dir)";
  const app = await openApp(loadConfig({ dataDir: tempDir("bench-tides"), port: 0, host: "127.0.0.1", scheduler: false }));
  try {
    const started = performance.now();
    const report = await app.tides.maintainWindow({ pacer: memoryPacer });
    const wallMs = performance.now() - started;
    if (!report) return { title, notes: ["not measured: the window pass stopped early"] };
    const extremes = (sqliteDb(app).$client.query("SELECT count(*) AS n FROM tide_extremes").get() as { n: number }).n;
    return {
      title,
      intro: "`TideService.maintainWindow()` on a fresh database: loading the tide database, choosing a station per spot, predicting and storing the extremes of the rolling window (yesterday .. today + 9 days).",
      header: ["measure", "value", "target", "verdict"],
      rows: [
        ["spots (a station chosen / none in reach or negligible: the model decides, see Tide sources)", `${fmt.int(report.spots)} (${fmt.int(report.spots - report.tideless)} / ${fmt.int(report.tideless)})`, "—", "—"],
        ["extremes stored", fmt.int(extremes), "—", "—"],
        ["wall time, including the tide database load", `${(wallMs / 1000).toFixed(1)} s`, "< 30 s", fmt.verdict(wallMs < 30_000)],
      ],
    };
  } finally {
    await app.close();
  }
}
