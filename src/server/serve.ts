/**
 * `surfcast serve`'s life cycle, wired above the app: the lock, the web server, the scheduled jobs, memory, the usage
 * flusher and the graceful stop.
 */
import type { App } from "../app";
import { localPublicUrl, type Config } from "../config";
import { log } from "../core/log";
import { maskPassword } from "../core/service-url";
import { lockDataDir } from "../db/lock";
import { startAlertDeliveries } from "./alert-deliveries";
import { listeningPorts } from "../alerts/delivery/address";
import { SCOPE_META } from "../forecast/demand";
import type { Metrics } from "../ops/metrics";
import { startIdleRelease, startMemoryGovernor } from "../ops/memory";
import { startForecastJobs } from "./forecast-jobs";
import { listenError, servedPorts, startWebServer } from "./web-server";
import { fetchFirstForecasts } from "./refresh";
import { startTideJobs } from "./tide-jobs";
import { joinServers } from "./cluster";

/** Usage counts are flushed this often (the crash-loss bound: a kill -9 loses at most this much). */
const FLUSH_MS = 500;
/** How long after listening the warm-up starts (see runServe). */
const WARM_UP_DELAY_MS = 50;

/** The meta key of the public URL the last server on this data directory answered at. */
export const ANNOUNCED_URL = "serve.public_url";

/** Fails before the database is opened when a port is taken, so a mistaken start changes no file. */
export function assertPortFree(config: Pick<Config, "host" | "port" | "tls">): void {
  for (const { port, flag } of servedPorts(config)) {
    if (port === 0) continue;
    try {
      Bun.serve({ port, hostname: config.host, fetch: () => new Response(null) }).stop(true);
    } catch (err) {
      throw listenError(err, config.host, port, flag);
    }
  }
}

/**
 * Runs the server until SIGTERM or SIGINT: the data directory's lock, the HTTP server (and metrics), the jobs, the
 * memory governor and idle release, the usage flusher, the graceful stop. `announce` is called with the address once
 * it accepts connections and its signal handlers are armed.
 */
export async function runServe(app: App, announce: (address: string) => void): Promise<number> {
  const { config } = app;
  // A spot asked for without a forecast is fetched by the same refresh as the scheduled runs (refresh scope).
  const firstFetches = new AbortController();
  app.demand.fetchWith((spotIds) => fetchFirstForecasts(app, spotIds, firstFetches.signal));
  // One server per data directory; on a shared database, as many as the operator runs, each in the node list.
  const lock = app.engine.kind === "sqlite" ? lockDataDir(config.dataDir) : null;
  const membership = await joinServers(app);
  // prom-client is loaded only when metrics are on: other starts and console commands do not pay for it.
  const ops = config.metrics.enabled ? await import("../ops/metrics") : undefined;
  const metrics = ops ? new ops.Metrics(app) : undefined;
  const server = await startWebServer(app, metrics);
  // Without SURFCAST_PUBLIC_URL, links (and the address recorded for the commands' links) name the port really
  // bound: `--port 0` lets the system pick one. With --https they name the first domain.
  if (!config.publicUrlSet && config.tls.mode !== "acme") config.publicUrl = localPublicUrl(server.port, config.tls);
  const metricsServer = ops && metrics ? ops.startMetricsServer(metrics, config.metrics.port) : undefined;
  // The node list (the metrics port's /status, `surfcast status`) names where each server itself listens.
  membership.listening(server.address);

  // No webhook, nor a redirect of one, may call this server: its ports are refused as targets on this machine.
  for (const port of [...server.ports, metricsServer?.port]) if (port !== undefined) listeningPorts.add(port);
  // Warm-up: the search and nearby indexes (~0.2 s of one core) are built before the first query needs them, but
  // only once the server has been listening for a moment, so that health probes and the first requests of a restart
  // are answered at once (a request that needs them sooner builds them itself). The tide database is not loaded:
  // predictions use stored station records, and the tide job loads it (in a worker) only to choose stations.
  setTimeout(() => app.spots.warm(), WARM_UP_DELAY_MS);
  const tideJobs = config.scheduler ? startTideJobs(app) : null;
  // The start-up refresh after the start-up tide pass: a new install's refresh then finds its stations chosen.
  const jobs = tideJobs ? [tideJobs, startForecastJobs(app, { startAfter: tideJobs.startup })] : [];
  const alertDeliveries = startAlertDeliveries(app);
  const memory = startMemoryGovernor(config.memoryTargetMb);
  const idle = startIdleRelease(config.idleReleaseMs, () => app.activity.requests);
  // A database away for a minute fails a hundred flushes: one line when they start failing, one when they work again.
  let flushFailing = false;
  const flusher = setInterval(() => {
    app.meter.flush().then(
      () => {
        if (flushFailing) log.info("usage flush works again; the counts kept meanwhile are written");
        flushFailing = false;
      },
      (err: unknown) => {
        if (!flushFailing) log.error("usage flush failed; the counts are kept and retried", { error: String(err) });
        flushFailing = true;
      },
    );
  }, FLUSH_MS);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info("stopping: finishing in-flight requests", { signal });
      for (const job of jobs) job.stop();
      firstFetches.abort();
      memory.stop();
      idle.stop();
      await server.stop();
      await alertDeliveries.stop();
      metricsServer?.stop(true);
      metrics?.close();
      clearInterval(flusher);
      await membership.stop();
      await app.close();
      lock?.release();
      log.info("stopped cleanly");
      resolve(0);
    };
    process.on("SIGTERM", () => void stop("SIGTERM"));
    process.on("SIGINT", () => void stop("SIGINT"));
    // Announced once the signal handlers are in place (the runtime arms them on its next turn): a supervisor or test
    // that stops the server as soon as it reads this line gets the graceful stop, not the default kill (exit 143).
    setImmediate(() => {
      const shown = server.address;
      // The commands that print links (invitations, embeds) use this when SURFCAST_PUBLIC_URL is not set for them.
      // Written only when changed: a restart then takes no write lock before its first answer.
      const record = async (key: string, value: string) => {
        if ((await app.stores.meta.read(key)) !== value) await app.stores.meta.write(key, value);
      };
      Promise.all([record(ANNOUNCED_URL, config.publicUrl), record(SCOPE_META, app.demand.scope)]).catch((err: unknown) =>
        log.warn("could not record the announced address and refresh scope", { error: String(err) }),
      );
      // On a shared database the data is there, not in the data directory (which then holds nothing of the service's).
      const place = config.databaseUrl === undefined ? { dataDir: config.dataDir } : { database: maskPassword(config.databaseUrl) };
      if (config.demo) log.warn("DEMO MODE: forecasts are synthetic, made inside the binary; not real data, no upstream is called", place);
      log.info("surfcast listening", { address: shown, demo: config.demo || undefined, ...place, scheduler: config.scheduler, console: config.console ? `${config.publicUrl}/console` : "off" });
      announce(shown);
    });
  });
}
