/** `surfcast refresh` — fetch fresh forecasts now, with progress and a summary. */
import type { App } from "../app";
import { ApiError, UserError } from "../core/errors";
import { escapeControls } from "../core/log";
import { GIVE_UP_AFTER_BATCHES, outcomeOf, type RefreshProgress, type RefreshSummary } from "../forecast/refresh";
import { refreshForecasts } from "../server/refresh";
import { onceAmongServers, slotAt } from "../server/cluster";
import { alertOutbox, logRound } from "../server/alert-deliveries";
import { lockDataDir, type DataDirLock } from "../db/lock";
import { memoryPacer } from "../ops/memory";
import { noExtraPositionals, parse } from "./args";

export const REFRESH_HELP = `Usage: surfcast refresh [--spots ID,...]

Fetches fresh forecasts from Open-Meteo now (the server also does this twice a day) and stores one
document per spot. Spots whose batch fails keep their previous forecast.
  --spots ID,...   only these spots (slugs or 16-hex ids); default: every spot
Upstream: SURFCAST_OPEN_METEO_MARINE_URL, SURFCAST_OPEN_METEO_FORECAST_URL, SURFCAST_OPEN_METEO_API_KEY,
SURFCAST_OPEN_METEO_BATCH_SIZE (locations per request, 1..1000). After SURFCAST_REFRESH_GIVE_UP_AFTER
(default ${GIVE_UP_AFTER_BATCHES}) failed batches in a row the upstream is taken as down and the rest of the run is given up.
On a demo data directory (made by \`serve --demo\`) the data is demo data, made inside the binary: no upstream call.

Exit status: 0 every spot refreshed; 1 partial (some spots refreshed, the others keep their previous
forecast); 3 no spot refreshed (upstream down or refusing; every previous forecast kept); 2 a usage mistake.`;

/** Exit status by outcome (documented in REFRESH_HELP and docs/forecast.md). */
export const REFRESH_EXIT = { complete: 0, partial: 1, failed: 3 } as const;

function progressPrinter(): (p: RefreshProgress) => void {
  const tty = process.stderr.isTTY === true;
  return (p) => {
    const pct = p.spotsTotal === 0 ? 100 : Math.round((p.spotsDone / p.spotsTotal) * 100);
    if (tty) {
      const width = 30;
      const filled = Math.round((pct / 100) * width);
      process.stderr.write(`\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${pct}% batch ${p.batch}/${p.batches} (${p.spotsOk}/${p.spotsTotal} spots refreshed)`);
      if (p.batch === p.batches) process.stderr.write("\n");
    } else {
      const state = p.batchOk ? "ok" : p.batchWritten > 0 ? "PARTIAL" : "FAILED";
      process.stderr.write(`refresh: batch ${p.batch}/${p.batches} ${state}: ${p.batchWritten}/${p.batchSpots} spots refreshed (so far ${p.spotsOk}/${p.spotsTotal})\n`);
    }
  };
}

function printSummary(s: RefreshSummary): void {
  const lines = [
    `Outcome:   ${outcomeOf(s)}`,
    `Spots:     ${s.ok} ok, ${s.failed} failed (of ${s.spots})`,
    `Batches:   ${s.batches - s.failedBatches} ok, ${s.failedBatches} failed`,
    `Upstream:  ${s.requests} requests, weight ${s.weight.toFixed(1)} (${s.locations.marine} marine + ${s.locations.forecast} forecast locations)`,
    `Duration:  ${(s.durationMs / 1000).toFixed(1)} s`,
  ];
  // Upstream text: escaped, so it cannot drive the terminal or pose as a line of ours.
  for (const e of s.errors) lines.push(`Error:     ${escapeControls(e)}`);
  console.log(lines.join("\n"));
}

export async function runRefresh(app: App, argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { spots: { type: "string" } }, REFRESH_HELP);
  noExtraPositionals(positionals, 0, REFRESH_HELP);
  let spots = app.spots.all();
  if (values.spots !== undefined) {
    const ids = values.spots
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (ids.length === 0) throw new UserError(`--spots needs at least one spot id\n\n${REFRESH_HELP}`);
    const unknown: string[] = [];
    const chosen = new Map<string, (typeof spots)[number]>();
    for (const id of ids) {
      try {
        const spot = app.spots.get(id);
        chosen.set(spot.id, spot);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        unknown.push(id);
      }
    }
    if (unknown.length > 0) throw new UserError(`unknown spot id${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`);
    spots = [...chosen.values()];
  }
  if (spots.length === 0) throw new UserError("there are no spots to refresh (import a catalog with `surfcast spots import`)");
  if (values.spots === undefined) {
    // Every spot's tide station chosen in one pass first (a new catalog's, else nothing to do), then the tide
    // database's worker ended: the batches never hold the database (~140 MB) and their documents at once, and the
    // choices are made together instead of one worker call per spot.
    await app.tides.maintainWindow({ pacer: memoryPacer });
    app.tides.close();
  }
  // On a shared database a refresh by hand takes its turn with the servers' refreshes rather than doubling one.
  if (app.engine.kind === "postgres") console.log("waiting for a refresh another server runs, if there is one…");
  const slot = `${slotAt("by hand", app.clock.now(), 1)} ${process.pid}`;
  const summary = await onceAmongServers(app, "forecast-refresh", slot, () => refreshForecasts(app, { spots, onProgress: progressPrinter() }), new AbortController().signal);
  // A slot of its own is never done by another server: without a summary, the run lost its lease midway.
  if (summary === undefined) throw new UserError("the refresh lost its turn on the database (did PostgreSQL go away?) and stopped; what it stored is kept: run it again");
  printSummary(summary);
  await sendQueuedAlerts(app);
  return REFRESH_EXIT[outcomeOf(summary)];
}

/** The alerts the refresh queued: sent here when no server runs on the data directory, else by the server within seconds. */
async function sendQueuedAlerts(app: App): Promise<void> {
  if (app.engine.kind !== "sqlite") return; // the servers on the shared database send them
  let lock: DataDirLock;
  try {
    lock = lockDataDir(app.config.dataDir);
  } catch {
    return; // a server runs here
  }
  try {
    logRound(await (await alertOutbox(app)).runDue());
  } finally {
    lock.release();
  }
}
