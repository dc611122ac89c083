/**
 * Background forecast work for a running server: the refresh on `config.refreshCron` (UTC), plus one at
 * startup when documents are missing or stale, over the spots of the refresh scope (forecast/demand.ts); when they run is forecast/schedule.ts. Never
 * blocks the server; one refresh at a time.
 */
import { Cron } from "croner";
import type { App } from "../app";
import { log } from "../core/log";
import type { RefreshSpot, RefreshSummary } from "../forecast/refresh";
import { RECENT_MS } from "../forecast/demand";
import { nextRefreshAt, retryAt, startupRefreshReason } from "../forecast/schedule";
import { refreshForecasts } from "./refresh";
import { onceAmongServers, slotAt } from "./cluster";
import { HOUR_MS, MINUTE_MS } from "../core/clock";

export interface ForecastJobOptions {
  /** The refresh to run (tests inject a fake); `spots` limits a retry to what the last run missed. */
  refresh?: (app: App, signal: AbortSignal, spots?: readonly RefreshSpot[]) => Promise<RefreshSummary | void>;
  /** The first retry's delay (tests shorten it). */
  firstRetryMs?: number;
  /**
   * A start-up refresh waits for this (the tide job's start-up pass, src/server/serve.ts): a first start's refresh
   * then finds every tide station chosen, and the two never hold their working memory at once.
   */
  startAfter?: Promise<unknown>;
}

export function startForecastJobs(app: App, options: ForecastJobOptions = {}): { stop(): void; running(): Promise<void> | null } {
  const controller = new AbortController();
  const refresh = options.refresh ?? ((a: App, signal: AbortSignal, spots?: readonly RefreshSpot[]) => refreshForecasts(a, { signal, spots }));
  let current: Promise<void> | null = null;
  /** Incomplete runs in a row, the spots the last one missed, and the pending retry. */
  let failures = 0;
  let missed: Set<string> | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;

  const setRetry = (at: number | null) => {
    if (retry) clearTimeout(retry);
    retry = at === null ? null : setTimeout(() => run(`retry ${failures} of the ${missed?.size ?? 0} spots missed`, `${failedSlot} retry ${failures}`, true), at - app.clock.now());
    app.stores.forecasts.recordRetryAt(at === null ? null : new Date(at)).catch((err) => log.warn("could not record the refresh retry time", { error: String(err) }));
  };

  const settle = (summary: RefreshSummary | void) => {
    if (!summary || controller.signal.aborted) return;
    if (summary.failed === 0) {
      failures = 0;
      missed = null;
      setRetry(null);
      return;
    }
    failures++;
    missed = new Set(summary.failedSpotIds);
    const at = retryAt(failures, app.clock.now(), nextRefreshAt(app.config.refreshCron, new Date(app.clock.now())), options.firstRetryMs);
    if (at !== null) log.warn("forecast refresh incomplete; will retry the missed spots", { missed: missed.size, retryAt: new Date(at).toISOString() });
    else log.warn("forecast refresh incomplete; the next scheduled run will refresh every spot", { missed: missed.size });
    setRetry(at);
  };

  /** The spots a start-up or scheduled run covers: undefined for the whole catalog (scope `all`). */
  const inScope = async (): Promise<RefreshSpot[] | undefined> => {
    if (app.config.refreshScope === "all") return undefined;
    const requested = await app.demand.requestedSince(app.clock.now() - RECENT_MS);
    // A spot an enabled alert watches is refreshed although nobody asked for it: the alert is how its owner asks.
    const watched = new Set(await app.alerts.watchedSpots());
    return app.spots.all().filter((s) => requested.has(s.id) || watched.has(s.id));
  };

  /** The slot of the run that failed, whose retries are slots of their own after it. */
  let failedSlot = "";

  /**
   * Runs a refresh for `slot`: on several servers one of them runs it while the others wait and skip it. `stillDue`
   * (start-up runs) is asked again once this server holds the slot: another may have refreshed meanwhile.
   */
  const run = (trigger: string, slot: string, isRetry = false, stillDue: () => Promise<boolean> = async () => true) => {
    if (current) {
      log.info("forecast refresh already running; skipped", { trigger });
      return;
    }
    if (!isRetry) {
      // A scheduled or start-up run refreshes every spot: it replaces any pending retry.
      failures = 0;
      missed = null;
      if (retry) setRetry(null);
    }
    const failed = (err: unknown) => log.error("forecast refresh failed", { trigger, error: err instanceof Error ? err.message : String(err) });
    // `current` is set before the scope is read, so a run asked for meanwhile is skipped, not started twice.
    current = (async () => {
      const only = isRetry && missed ? app.spots.all().filter((s) => missed!.has(s.id)) : await inScope();
      if (only !== undefined && only.length === 0) {
        log.info("forecast refresh skipped: no spot was asked for in the last 7 days nor is watched by an alert (refresh scope: requested)", { trigger });
        return;
      }
      const summary = await onceAmongServers(
        app,
        "forecast-refresh",
        slot,
        async (signal) => {
          if (!(await stillDue())) return undefined;
          log.info("forecast refresh starting", { trigger, scope: app.config.refreshScope, spots: only?.length });
          failedSlot = slot;
          return refresh(app, signal, only);
        },
        controller.signal,
      );
      settle(summary);
    })()
      .catch(failed)
      .finally(() => {
        current = null;
      });
  };

  const jobs = app.config.refreshCron.map((pattern) => new Cron(pattern, { timezone: "UTC", protect: true }, () => run(`cron ${pattern}`, slotAt("scheduled", app.clock.now(), MINUTE_MS))));
  const next = nextRefreshAt(app.config.refreshCron, new Date(app.clock.now()));
  log.info("forecast refresh scheduled", { cron: app.config.refreshCron.join(" | "), next: next?.toISOString() });

  // Checked after the server is up, so a large catalog never delays the first request.
  const startup = setTimeout(async () => {
    try {
      const scoped = await inScope();
      if (scoped?.length === 0) {
        log.info("forecast refresh at start-up skipped: no spot was asked for in the last 7 days (refresh scope: requested); a spot's forecast is fetched when it is first asked for");
        return;
      }
      const reasonNow = async () => startupRefreshReason((scoped ?? app.spots.all()).map((s) => s.id), await app.stores.forecasts.documentAges(), app.clock.now());
      const reason = await reasonNow();
      if (!reason) return;
      await options.startAfter;
      if (!controller.signal.aborted) run(`startup: ${reason}`, slotAt("start-up", app.clock.now(), HOUR_MS), false, async () => (await reasonNow()) !== null);
    } catch (err) {
      log.error("forecast startup check failed", { error: (err as Error).message });
    }
  }, 0);

  return {
    stop() {
      clearTimeout(startup);
      if (retry) clearTimeout(retry);
      for (const job of jobs) job.stop();
      controller.abort();
    },
    running: () => current,
  };
}
