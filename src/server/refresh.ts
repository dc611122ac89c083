/**
 * The forecast refresh with the app's configuration, facings and tides (forecast/refresh.ts runs it): what the
 * scheduled jobs, on-demand fetches and `surfcast refresh` call.
 */
import type { App } from "../app";
import { reclaimSpace } from "../db";
import { log } from "../core/log";
import { onceAmongServers } from "./cluster";
import { memoryPacer } from "../ops/memory";
import { demoFetch } from "../forecast/demo";
import { ensureFacings, loadFacings } from "../forecast/facings";
import { mergeModelGaps, MODEL_GAPS_META, parseModelGaps } from "../forecast/model-gaps";
import { requestedModels } from "../forecast/models";
import { OpenMeteoClient, type OpenMeteoOptions } from "../forecast/openmeteo";
import type { ForecastCorrection } from "../observations/types";
import { outcomeOf, runForecastRefresh, summaryFields, type RefreshProgress, type RefreshSpot, type RefreshSummary } from "../forecast/refresh";

export interface RefreshOptions {
  /** Default: every spot of the catalog. */
  spots?: readonly RefreshSpot[];
  onProgress?: (p: RefreshProgress) => void;
  signal?: AbortSignal;
  /** Test hooks for the upstream client (fast backoff). */
  client?: Partial<Pick<OpenMeteoOptions, "sleep" | "backoffMs" | "timeformat">>;
  /**
   * A first forecast fetched because a client asked for the spot (the `requested` refresh scope): it is not "the
   * last refresh" of status and health, and a few rows written give no space back worth a pass over the file.
   */
  onDemand?: boolean;
}

/** A refresh with the app's configuration, facings and tides; logs one summary line. */
export async function refreshForecasts(app: App, options: RefreshOptions = {}): Promise<RefreshSummary> {
  const spots = options.spots ?? app.spots.all();
  // Demo mode: the synthetic upstream answers in place of fetch; nothing leaves the process.
  const models = { requested: requestedModels(app.config.openMeteo.waveModels), counted: app.config.openMeteo.waveModels };
  const client = new OpenMeteoClient({ ...app.config.openMeteo, marineModels: models.requested, ...options.client, ...(app.config.demo ? { fetch: demoFetch } : {}) });
  if (app.config.demo) log.warn("forecast refresh uses DEMO data: synthetic values made inside the binary, not a real forecast", { spots: spots.length });
  const corrections = await correctionsAt(app, spots);
  const summary = await runForecastRefresh(
    {
      corrections,
      forecasts: app.stores.forecasts,
      clock: app.clock,
      client,
      batchSize: app.config.openMeteo.batchSize,
      tides: app.tides,
      facings: async () => {
        await ensureFacings(app.stores.forecasts, spots);
        return loadFacings(app.stores.forecasts);
      },
      onProgress: options.onProgress,
      pacer: memoryPacer,
      onWritten: () => app.forecasts.invalidate(),
      signal: options.signal,
      giveUpAfter: app.config.refreshGiveUpAfter,
      demo: app.config.demo,
      models,
    },
    spots,
  );
  const outcome = outcomeOf(summary);
  try {
    await app.alerts.evaluate(spots.map((s) => s.id));
  } catch (err) {
    log.error("alerts could not be evaluated after the refresh", { error: String(err) });
  }
  app.refreshEvents.emit(summary);
  await recordModelGaps(app, spots, summary);
  if (!options.onDemand) {
    await recordRun(app, summary, outcome);
    await keepForecastsAtBuoys(app);
  }
  logSummary(app, summary, outcome);
  return summary;
}

/** Where wave models read no sea, for `surfcast spots check`; a spot no model sees sea at is worth a line now. */
async function recordModelGaps(app: App, spots: readonly RefreshSpot[], summary: RefreshSummary): Promise<void> {
  const sealess = [...summary.modelGaps].filter(([, gap]) => gap.sealess).map(([id]) => id);
  if (sealess.length > 0) log.warn("no wave model sees sea at some spots: they get no forecast (surfcast spots check lists them)", { spots: sealess.length, first: sealess.slice(0, 5).join(",") });
  if (summary.modelGaps.size === 0 && summary.failed === summary.spots) return;
  try {
    const stored = parseModelGaps(await app.stores.meta.read(MODEL_GAPS_META));
    const merged = mergeModelGaps(stored, spots, summary, new Date(app.clock.now()).toISOString());
    if (JSON.stringify(merged) !== JSON.stringify(stored)) await app.stores.meta.write(MODEL_GAPS_META, Object.keys(merged).length > 0 ? JSON.stringify(merged) : null);
  } catch (err) {
    log.warn("could not record where wave models read no sea", { error: String(err) });
  }
}

/** The bias correction at the spots where it holds (SURFCAST_BIAS_CORRECTION=on); none when it is off or cannot be had. */
async function correctionsAt(app: App, spots: readonly RefreshSpot[]): Promise<ReadonlyMap<string, ForecastCorrection> | undefined> {
  const { observations, demo } = app.config;
  if (!observations.biasCorrection || !observations.enabled || demo) return undefined;
  try {
    const corrections = await app.verification.corrections(spots.flatMap((s) => app.spots.find(s.id) ?? []));
    if (corrections.size > 0) log.info("bias correction: wave heights scaled by the buoys' measured ratios where that lowers the error", { spots: corrections.size });
    return corrections;
  } catch (err) {
    log.warn("bias correction unavailable for this refresh: wave heights stay uncorrected", { error: String(err) });
    return undefined;
  }
}

/** Each model's forecast at the buoys whose verification is in use, kept by lead day (docs/observations.md). */
async function keepForecastsAtBuoys(app: App): Promise<void> {
  // Demo data is no forecast to verify; with observations off there is no buoy.
  if (app.config.demo || !app.config.observations.enabled) return;
  try {
    const { kept, failed } = await app.verification.keepForecastsAtBuoys();
    if (kept + failed > 0) log.info("the models' forecasts at the buoys in use kept for verification by lead day", { buoys: kept, failed });
  } catch (err) {
    log.warn("the models' forecasts at the buoys could not be kept for verification by lead day", { error: String(err) });
  }
}

/** What status and health show as the last refresh; then the space the replaced documents freed goes back. */
async function recordRun(app: App, summary: RefreshSummary, outcome: ReturnType<typeof outcomeOf>): Promise<void> {
  try {
    await app.stores.forecasts.recordRefresh({ at: new Date(app.clock.now()).toISOString(), outcome, spots: summary.spots, ok: summary.ok, failed: summary.failed, durationMs: summary.durationMs, reason: summary.errors[0] });
  } catch (err) {
    log.warn("could not record the refresh outcome", { error: String(err) });
  }
  // PostgreSQL's autovacuum gives space back by itself.
  if (app.engine.kind !== "sqlite") return;
  try {
    const reclaimed = reclaimSpace(app.engine.db);
    if (reclaimed > 0) log.info("database space given back after the refresh", { mb: Math.round(reclaimed / 1048576) });
  } catch (err) {
    log.warn("could not give the database's free space back", { error: String(err) });
  }
}

/** One line per refresh; upstream text goes into a field, never into the message. */
function logSummary(app: App, summary: RefreshSummary, outcome: ReturnType<typeof outcomeOf>): void {
  const { errors } = summary;
  const fields = {
    ...summaryFields(summary),
    demo: app.config.demo || undefined,
    reason: errors[0] ?? (outcome === "complete" ? undefined : "spots came back without data"),
    stopped: errors.length > 1 && !errors.at(-1)!.startsWith("batch ") ? errors.at(-1) : undefined,
  };
  if (outcome === "complete") log.info("forecast refresh done", fields);
  else if (outcome === "partial") log.warn(`forecast refresh partial: ${summary.ok} of ${summary.spots} spots refreshed, the others keep their previous forecast`, fields);
  else log.error("forecast refresh failed: no spot refreshed, every previous forecast kept", fields);
}

let firstFetchRuns = 0;

/**
 * First forecasts of spots asked for in the `requested` scope. On a shared database one server at a time fetches
 * them, under the `forecast-first-fetch` lease (server/cluster.ts), and fetches only the spots that no server wrote
 * a document for since they were asked for: two servers asked for the same new spot at once fetch it, and evaluate
 * its alerts, once. Resolves with the ids that could not be fetched.
 */
export async function fetchFirstForecasts(app: App, spotIds: readonly string[], signal: AbortSignal): Promise<readonly string[]> {
  const askedAt = app.clock.now();
  const slot = `${app.engine.kind === "postgres" ? app.engine.node.id : "local"} ${askedAt} ${++firstFetchRuns}`;
  const failed = await onceAmongServers(
    app,
    "forecast-first-fetch",
    slot,
    async (leaseSignal) => {
      const written = app.engine.kind === "postgres" ? await app.stores.forecasts.documentAges() : new Map<string, number>();
      const wanted = new Set(spotIds.filter((id) => (written.get(id) ?? -Infinity) < askedAt));
      if (wanted.size === 0) return [];
      return (await refreshForecasts(app, { spots: app.spots.all().filter((s) => wanted.has(s.id)), onDemand: true, signal: leaseSignal })).failedSpotIds;
    },
    signal,
  );
  // Stopped while waiting for another server's turn: nothing was fetched here.
  return failed ?? spotIds;
}
