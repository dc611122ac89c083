/** `surfcast serve` — the HTTP + MCP server with its background jobs, and a graceful stop. */
import type { App } from "../app";
import { log } from "../core/log";
import { startHttpServer } from "../http/server";
import { lockDataDir } from "../db/lock";
import { startForecastJobs } from "../forecast/jobs";
import { startTideJobs } from "../tides/jobs";
import { intFlag, noExtraPositionals, parse } from "./args";

export const SERVE_HELP = `Usage: surfcast serve [--port N] [--host H] [--no-scheduler] [--no-console]

Starts the API (/v1, /mcp, /openapi.json, /healthz) and the developer console (/console) on http://HOST:PORT.
  --port N          port to listen on (env PORT, default 8080; 0 picks a free port)
  --host H          address to bind (env HOST, default 127.0.0.1: this machine only; 0.0.0.0 for every
                    interface, e.g. in a container or without a reverse proxy in front)
  --no-scheduler    do not run the twice-daily forecast refresh or the daily tide job
  --no-console      do not serve the developer console (env SURFCAST_CONSOLE=off)
One server per data directory: a second serve on the same directory refuses to start.
SIGTERM or SIGINT stops accepting connections, finishes in-flight requests, flushes usage and exits 0.`;

/** Usage counts are flushed this often (the crash-loss bound: a kill -9 loses at most this much). */
const FLUSH_MS = 500;

export function parseServeArgs(argv: string[]) {
  const { values, positionals } = parse(argv, { port: { type: "string" }, host: { type: "string" }, "no-scheduler": { type: "boolean" }, "no-console": { type: "boolean" } }, SERVE_HELP);
  noExtraPositionals(positionals, 0, SERVE_HELP);
  return {
    help: values.help === true,
    port: intFlag(values.port, "--port"),
    host: values.host,
    scheduler: values["no-scheduler"] ? false : undefined,
    console: values["no-console"] ? false : undefined,
  };
}

/** How to show the bound address: IPv6 literals in brackets; the wildcard says what it means. */
function shownAddress(host: string, port: number): string {
  const literal = host.includes(":") ? `[${host}]` : host;
  const url = `http://${literal}:${port}`;
  return host === "0.0.0.0" || host === "::" ? `${url} (every interface)` : url;
}

export async function runServe(app: App): Promise<number> {
  const { config } = app;
  const lock = lockDataDir(config.dataDir);
  const server = startHttpServer(app, config.port, config.host);
  // Load the tide database off the request path even without the scheduler, so no request waits for it.
  void app.tides.ready();
  setTimeout(() => app.spots.warm(), 0); // build the search and nearby indexes before the first query needs them
  const jobs = config.scheduler ? [startTideJobs(app), startForecastJobs(app)] : [];
  const flusher = setInterval(() => {
    try {
      app.meter.flush();
    } catch (err) {
      log.error("usage flush failed; will retry", { error: String(err) });
    }
  }, FLUSH_MS);
  const shown = shownAddress(config.host, server.port ?? config.port);
  log.info("surfcast listening", { address: shown, dataDir: config.dataDir, scheduler: config.scheduler, console: config.console ? `${config.publicUrl}/console` : "off" });
  console.log(`Surfcast is serving on ${shown} (data in ${config.dataDir})`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info("stopping: finishing in-flight requests", { signal });
      for (const job of jobs) job.stop();
      await server.stop(false);
      clearInterval(flusher);
      app.close();
      lock.release();
      log.info("stopped cleanly");
      resolve(0);
    };
    process.on("SIGTERM", () => void stop("SIGTERM"));
    process.on("SIGINT", () => void stop("SIGINT"));
  });
}
