/** `surfcast serve`: its flags and what it prints; the server's life cycle is server/serve.ts. */
import { UserError } from "../core/errors";
import { intFlag, noExtraPositionals, parse } from "./args";

export const SERVE_HELP = `Usage: surfcast serve [--port N] [--host H] [--refresh-scope S] [--ndbc-url URL] [--no-scheduler] [--no-console] [--demo]
                     [--https DOMAIN[,DOMAIN…] [--https-port N] [--http-port N] | --tls-cert FILE --tls-key FILE]

Starts the API (/v1, /mcp, /openapi.json, /healthz) and the developer console (/console) on http://HOST:PORT.
  --port N          port to listen on (env PORT, default 8080; 0 picks a free port)
  --host H          address to bind (env HOST, default 127.0.0.1: this machine only; 0.0.0.0 for every
                    interface, e.g. in a container or without a reverse proxy in front)
  --refresh-scope S which spots the start-up and twice-daily refreshes fetch (env SURFCAST_REFRESH_SCOPE):
                    requested (default): the spots asked for in the last 7 days; a spot asked for the first
                    time is fetched at once (the request waits a few seconds) — no Open-Meteo call until
                    someone asks; all: the whole catalog (~6,600 calls a refresh), no request ever waits
  --ndbc-url URL    where buoy readings come from (env SURFCAST_NDBC_URL, default https://www.ndbc.noaa.gov;
                    SURFCAST_OBSERVATIONS=off never asks it)
  --no-scheduler    do not run the twice-daily forecast refresh or the daily tide job
  --no-console      do not serve the developer console (env SURFCAST_CONSOLE=off)
  --https DOMAINS   HTTPS by itself (env SURFCAST_HTTPS_DOMAINS): certificates for these names from Let's
                    Encrypt (or SURFCAST_ACME_DIRECTORY), renewed when 30 days are left; HTTPS on --https-port
                    (default 443), plain HTTP on --http-port (default 80) for the ACME challenge and a 301 to
                    https; the names' DNS must point here and port 80 be open (docs/https.md)
  --tls-cert FILE   serve TLS on --port with your own certificate chain (PEM) and --tls-key FILE; both are
                    read again on SIGHUP and when they change
  --demo            demo mode: synthetic forecasts made inside the binary (no internet, no Open-Meteo
                    key, no quota used), labelled as demo data everywhere; default data dir ./var-demo.
                    A data directory is demo or real for good: the other mode refuses to serve it.
One server per data directory: a second serve on the same directory refuses to start.
SIGTERM or SIGINT stops accepting connections, finishes in-flight requests, flushes usage and exits 0.`;

function portFlag(value: unknown, name = "--port"): number | undefined {
  const port = intFlag(value, name);
  if (port !== undefined && port > 65535) throw new UserError(`${name} must be a port number from 0 to 65535, got "${port}"`);
  return port;
}

export function parseServeArgs(argv: string[]) {
  const { values, positionals } = parse(argv, { port: { type: "string" }, host: { type: "string" }, "no-scheduler": { type: "boolean" }, "no-console": { type: "boolean" }, demo: { type: "boolean" }, "refresh-scope": { type: "string" }, "ndbc-url": { type: "string" }, https: { type: "string" }, "https-port": { type: "string" }, "http-port": { type: "string" }, "tls-cert": { type: "string" }, "tls-key": { type: "string" } }, SERVE_HELP);
  noExtraPositionals(positionals, 0, SERVE_HELP);
  return {
    help: values.help === true,
    port: portFlag(values.port),
    host: values.host,
    scheduler: values["no-scheduler"] ? false : undefined,
    console: values["no-console"] ? false : undefined,
    demo: values.demo === true,
    refreshScope: values["refresh-scope"],
    ndbcUrl: values["ndbc-url"],
    https: values.https,
    httpsPort: portFlag(values["https-port"], "--https-port"),
    httpPort: portFlag(values["http-port"], "--http-port"),
    tlsCert: values["tls-cert"],
    tlsKey: values["tls-key"],
  };
}

/** The line a supervisor, a test or a person waits for: the server accepts connections at `address`. */
export function announceServing(address: string, dataDir: string, demo: boolean): void {
  console.log(`Surfcast is serving on ${address} (data in ${dataDir})${demo ? " — DEMO MODE: synthetic forecasts, not real data" : ""}`);
}
