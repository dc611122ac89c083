/**
 * Background forecast work for a running server: the refresh on `config.refreshCron` (UTC), plus one at
 * startup when documents are missing or stale. Never blocks the server; one refresh at a time.
 */
import { Cron } from "croner";
import type { App } from "../app";
import { log } from "../core/log";
import { refreshForecasts } from "./refresh";
import { documentAges } from "./store";

/** A document older than this at startup triggers an immediate refresh. */
export const STALE_AFTER_MS = 12 * 3_600_000;

/** Why a startup refresh is needed (missing or stale documents), or null when all are fresh. */
export function startupRefreshReason(spotIds: readonly string[], ages: ReadonlyMap<string, number>, now: number): string | null {
  let missing = 0;
  let stale = 0;
  for (const id of spotIds) {
    const updatedAt = ages.get(id);
    if (updatedAt === undefined) missing++;
    else if (now - updatedAt > STALE_AFTER_MS) stale++;
  }
  if (missing === 0 && stale === 0) return null;
  return `${missing} spots without a forecast, ${stale} older than 12 h`;
}

/** The next scheduled refresh after `from` over all cron expressions (UTC). */
export function nextRefreshAt(crons: readonly string[], from: Date): Date | null {
  const next = crons.map((c) => new Cron(c, { timezone: "UTC", paused: true }).nextRun(from)).filter((d): d is Date => d !== null);
  return next.length === 0 ? null : new Date(Math.min(...next.map((d) => d.getTime())));
}

export interface ForecastJobOptions {
  /** The refresh to run (tests inject a fake). */
  refresh?: (app: App, signal: AbortSignal) => Promise<unknown>;
}

export function startForecastJobs(app: App, options: ForecastJobOptions = {}): { stop(): void; running(): Promise<void> | null } {
  const controller = new AbortController();
  const refresh = options.refresh ?? ((a: App, signal: AbortSignal) => refreshForecasts(a, { signal }));
  let current: Promise<void> | null = null;

  const run = (trigger: string) => {
    if (current) {
      log.info("forecast refresh already running; skipped", { trigger });
      return;
    }
    log.info("forecast refresh starting", { trigger });
    current = refresh(app, controller.signal)
      .then(
        () => undefined,
        (err) => log.error("forecast refresh failed", { trigger, error: err instanceof Error ? err.message : String(err) }),
      )
      .finally(() => {
        current = null;
      });
  };

  const jobs = app.config.refreshCron.map((pattern) => new Cron(pattern, { timezone: "UTC", protect: true }, () => run(`cron ${pattern}`)));
  const next = nextRefreshAt(app.config.refreshCron, new Date(app.clock.now()));
  log.info("forecast refresh scheduled", { cron: app.config.refreshCron.join(" | "), next: next?.toISOString() });

  // Checked after the server is up, so a large catalog never delays the first request.
  const startup = setTimeout(() => {
    try {
      const reason = startupRefreshReason(
        app.spots.all().map((s) => s.id),
        documentAges(app.db),
        app.clock.now(),
      );
      if (reason) run(`startup: ${reason}`);
    } catch (err) {
      log.error("forecast startup check failed", { error: (err as Error).message });
    }
  }, 0);

  return {
    stop() {
      clearTimeout(startup);
      for (const job of jobs) job.stop();
      controller.abort();
    },
    running: () => current,
  };
}
