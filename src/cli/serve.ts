/** `surfcast serve` — the HTTP + MCP server with its background jobs, and a graceful stop. */
import type { App } from "../app";
import type { Config } from "../config";
import { UserError } from "../core/errors";
import { log } from "../core/log";
import { startHttpServer } from "../http/server";
import { lockDataDir } from "../db/lock";
import { writeMeta } from "../db/meta";
import { SCOPE_META } from "../forecast/demand";
import type { Metrics } from "../ops/metrics";
import { startForecastJobs } from "../forecast/jobs";
import { startTideJobs } from "../tides/jobs";
import { startIdleRelease, startMemoryGovernor } from "../ops/memory";
import { intFlag, noExtraPositionals, parse } from "./args";

export const SERVE_HELP = `Usage: surfcast serve [--port N] [--host H] [--refresh-scope S] [--no-scheduler] [--no-console] [--demo]

Starts the API (/v1, /mcp, /openapi.json, /healthz) and the developer console (/console) on http://HOST:PORT.
  --port N          port to listen on (env PORT, default 8080; 0 picks a free port)
  --host H          address to bind (env HOST, default 127.0.0.1: this machine only; 0.0.0.0 for every
                    interface, e.g. in a container or without a reverse proxy in front)
  --refresh-scope S which spots the start-up and twice-daily refreshes fetch (env SURFCAST_REFRESH_SCOPE):
                    requested (default): the spots asked for in the last 7 days; a spot asked for the first
                    time is fetched at once (the request waits a few seconds) — no Open-Meteo call until
                    someone asks; all: the whole catalog (~6,600 calls a refresh), no request ever waits
  --no-scheduler    do not run the twice-daily forecast refresh or the daily tide job
  --no-console      do not serve the developer console (env SURFCAST_CONSOLE=off)
  --demo            demo mode: synthetic forecasts made inside the binary (no internet, no Open-Meteo
                    key, no quota used), labelled as demo data everywhere; default data dir ./var-demo.
                    A data directory is demo or real for good: the other mode refuses to serve it.
One server per data directory: a second serve on the same directory refuses to start.
SIGTERM or SIGINT stops accepting connections, finishes in-flight requests, flushes usage and exits 0.`;

/** Usage counts are flushed this often (the crash-loss bound: a kill -9 loses at most this much). */
const FLUSH_MS = 500;
/** How long after listening the warm-up starts (see runServe). */
const WARM_UP_DELAY_MS = 50;

function portFlag(value: unknown): number | undefined {
  const port = intFlag(value, "--port");
  if (port !== undefined && port > 65535) throw new UserError(`--port must be a port number from 0 to 65535, got "${port}"`);
  return port;
}

/** The meta key of the public URL the last server on this data directory answered at. */
export const ANNOUNCED_URL = "serve.public_url";

export function parseServeArgs(argv: string[]) {
  const { values, positionals } = parse(argv, { port: { type: "string" }, host: { type: "string" }, "no-scheduler": { type: "boolean" }, "no-console": { type: "boolean" }, demo: { type: "boolean" }, "refresh-scope": { type: "string" } }, SERVE_HELP);
  noExtraPositionals(positionals, 0, SERVE_HELP);
  return {
    help: values.help === true,
    port: portFlag(values.port),
    host: values.host,
    scheduler: values["no-scheduler"] ? false : undefined,
    console: values["no-console"] ? false : undefined,
    demo: values.demo === true,
    refreshScope: values["refresh-scope"],
  };
}

/** How to show the bound address: IPv6 literals in brackets; the wildcard says what it means. */
function shownAddress(host: string, port: number): string {
  const literal = host.includes(":") ? `[${host}]` : host;
  const url = `http://${literal}:${port}`;
  return host === "0.0.0.0" || host === "::" ? `${url} (every interface)` : url;
}

const portInUse = (config: Pick<Config, "host" | "port">) =>
  new UserError(`port ${config.port} on ${config.host} is already in use (another surfcast or another program): stop it, or choose another with --port or PORT`);

/** Fails before the database is opened when the port is taken, so a mistaken start changes no file. */
export function assertPortFree(config: Pick<Config, "host" | "port">): void {
  if (config.port === 0) return;
  try {
    Bun.serve({ port: config.port, hostname: config.host, fetch: () => new Response(null) }).stop(true);
  } catch (err) {
    if ((err as { code?: string }).code === "EADDRINUSE") throw portInUse(config);
    throw new UserError(`cannot listen on ${config.host}:${config.port}: ${(err as Error).message}`);
  }
}

function listen(app: App, metrics?: Metrics) {
  try {
    return startHttpServer(app, app.config.port, app.config.host, metrics);
  } catch (err) {
    if ((err as { code?: string }).code === "EADDRINUSE") throw portInUse(app.config);
    throw err;
  }
}

export async function runServe(app: App): Promise<number> {
  const { config } = app;
  const lock = lockDataDir(config.dataDir);
  // prom-client is loaded only when metrics are on: other starts and console commands do not pay for it.
  const ops = config.metrics.enabled ? await import("../ops/metrics") : undefined;
  const metrics = ops ? new ops.Metrics(app) : undefined;
  const server = listen(app, metrics);
  const metricsServer = ops && metrics ? ops.startMetricsServer(metrics, config.metrics.port) : undefined;
  // Warm-up: the search and nearby indexes (~0.2 s of one core) are built before the first query needs them, but
  // only once the server has been listening for a moment, so that health probes and the first requests of a restart
  // are answered at once (a request that needs them sooner builds them itself). The tide database is not loaded:
  // predictions use stored station records, and the tide job loads it (in a worker) only to choose stations.
  setTimeout(() => app.spots.warm(), WARM_UP_DELAY_MS);
  const jobs = config.scheduler ? [startTideJobs(app), startForecastJobs(app)] : [];
  const memory = startMemoryGovernor(config.memoryTargetMb);
  const idle = startIdleRelease(config.idleReleaseMs);
  const flusher = setInterval(() => {
    try {
      app.meter.flush();
    } catch (err) {
      log.error("usage flush failed; will retry", { error: String(err) });
    }
  }, FLUSH_MS);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info("stopping: finishing in-flight requests", { signal });
      for (const job of jobs) job.stop();
      memory.stop();
      idle.stop();
      await server.stop(false);
      metricsServer?.stop(true);
      metrics?.close();
      clearInterval(flusher);
      app.close();
      lock.release();
      log.info("stopped cleanly");
      resolve(0);
    };
    process.on("SIGTERM", () => void stop("SIGTERM"));
    process.on("SIGINT", () => void stop("SIGINT"));
    // Announced once the signal handlers are in place (the runtime arms them on its next turn): a supervisor or test
    // that stops the server as soon as it reads this line gets the graceful stop, not the default kill (exit 143).
    setImmediate(() => {
      const shown = shownAddress(config.host, server.port ?? config.port);
      // The commands that print links (invitations, embeds) use this when SURFCAST_PUBLIC_URL is not set for them.
      writeMeta(app.db, ANNOUNCED_URL, config.publicUrl);
      writeMeta(app.db, SCOPE_META, app.demand.scope);
      if (config.demo) log.warn("DEMO MODE: forecasts are synthetic, made inside the binary; not real data, no upstream is called", { dataDir: config.dataDir });
      log.info("surfcast listening", { address: shown, demo: config.demo || undefined, dataDir: config.dataDir, scheduler: config.scheduler, console: config.console ? `${config.publicUrl}/console` : "off" });
      console.log(`Surfcast is serving on ${shown} (data in ${config.dataDir})${config.demo ? " — DEMO MODE: synthetic forecasts, not real data" : ""}`);
    });
  });
}
