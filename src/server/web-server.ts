/**
 * The web server's listeners as `serve`'s TLS mode asks (docs/https.md): plain HTTP on --port; TLS on --port with
 * the operator's files, read again on SIGHUP and when they change; or, with --https, HTTPS on --https-port with
 * certificates ordered by ACME and plain HTTP on --http-port for the challenges and the redirect.
 */
import type { Server } from "bun";
import { watch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { App } from "../app";
import type { Config, TlsConfig } from "../config";
import { UserError } from "../core/errors";
import { log } from "../core/log";
import type { Metrics } from "../ops/metrics";
import { acmeOrderer, certificateInfo } from "../tls/acme";
import { explainAcmeFailure } from "../tls/acme-errors";
import { CertificateKeeper } from "../tls/keeper";
import { plainHttpHandler, STRICT_TRANSPORT_SECURITY } from "../tls/plain-http";
import { postgresCertificateStore } from "../tls/postgres-store";
import { fileCertificateStore } from "../tls/file-store";
import type { CertificatePair, CertificateStore } from "../tls/store";
import { inTurnAmongServers } from "./cluster";
import { startHttpServer, webServerOptions, type WebServerOptions } from "./http";

export interface WebServer {
  /** The port of the listener links name (the HTTPS one with --https). */
  port: number;
  /** Every port this process answers on. */
  ports: number[];
  /** The address announced at start. */
  address: string;
  /** Stops accepting connections and lets the requests in flight finish. */
  stop(): Promise<void>;
}

/** The ports `serve` binds: with --https the HTTPS and the plain HTTP one, else --port. */
export function servedPorts(config: Pick<Config, "port" | "tls">): { port: number; flag: string }[] {
  if (config.tls.mode === "acme") return [{ port: config.tls.httpsPort, flag: "--https-port" }, { port: config.tls.httpPort, flag: "--http-port" }];
  return [{ port: config.port, flag: "--port (or PORT)" }];
}

/** A failure to bind as one line saying what to do. */
export function listenError(err: unknown, host: string, port: number, flag: string): UserError {
  const code = (err as { code?: string }).code;
  if (code === "EADDRINUSE") return new UserError(`port ${port} on ${host} is already in use (another surfcast or another program): stop it, or choose another with ${flag}`);
  if (code === "EACCES") return new UserError(`port ${port} on ${host} needs privileges: run with CAP_NET_BIND_SERVICE (deploy/surfcast.service sets it), or choose a port above 1023 with ${flag}`);
  return new UserError(`cannot listen on ${host}:${port}: ${(err as Error).message}`);
}

function bound<T>(start: () => T, host: string, port: number, flag: string): T {
  try {
    return start();
  } catch (err) {
    throw listenError(err, host, port, flag);
  }
}

/** How to show a bound address: IPv6 literals in brackets; the wildcard says what it means. */
function shownAddress(scheme: string, host: string, port: number): string {
  const literal = host.includes(":") ? `[${host}]` : host;
  const url = `${scheme}://${literal}:${port}`;
  return host === "0.0.0.0" || host === "::" ? `${url} (every interface)` : url;
}

/** The handler behind TLS: the same gate (it reads https targets as it reads http ones); every answer carries Strict-Transport-Security. */
function behindTls(fetch: WebServerOptions["fetch"]): WebServerOptions["fetch"] {
  const stamped = (res: Response) => {
    res.headers.set("strict-transport-security", STRICT_TRANSPORT_SECURITY);
    return res;
  };
  return (req, server) => {
    const res = fetch(req, server);
    return res instanceof Promise ? res.then(stamped) : stamped(res);
  };
}

/**
 * A TLS listener whose certificate can be replaced. Bun's `server.reload()` swaps handlers but keeps the TLS context,
 * so a new certificate gets a new listener on the same port (SO_REUSEPORT) and the previous one stops accepting;
 * its open connections and requests in flight finish on the old certificate, none is dropped.
 */
class TlsListener {
  private server: Server<undefined> | null = null;
  private readonly options: WebServerOptions;

  constructor(options: WebServerOptions, private port: number, private readonly host: string) {
    this.options = { ...options, fetch: behindTls(options.fetch) };
  }

  get listening(): boolean {
    return this.server !== null;
  }

  serve(pair: CertificatePair): void {
    const previous = this.server;
    this.server = Bun.serve({ ...this.options, port: this.port, hostname: this.host, reusePort: true, tls: { cert: pair.cert, key: pair.key } });
    this.port = this.server.port ?? this.port;
    void previous?.stop(false);
  }

  boundPort(): number {
    return this.port;
  }

  async stop(): Promise<void> {
    await this.server?.stop(false);
  }
}

function plainServer(app: App, metrics?: Metrics): WebServer {
  const { host, port } = app.config;
  const server = bound(() => startHttpServer(app, port, host, metrics), host, port, "--port (or PORT)");
  return { port: server.port!, ports: [server.port!], address: shownAddress("http", host, server.port!), stop: () => server.stop(false) };
}

const readPair = async (tls: { certFile: string; keyFile: string }): Promise<CertificatePair> => {
  const [cert, key] = await Promise.all([readFile(tls.certFile, "utf8"), readFile(tls.keyFile, "utf8")]);
  return { cert, key };
};

/** How long file changes settle before the files are read (a renewal tool writes the chain and the key one after the other). */
const SETTLE_MS = 300;

async function filesServer(app: App, options: WebServerOptions, tls: Extract<TlsConfig, { mode: "files" }>): Promise<WebServer> {
  const { host, port } = app.config;
  const listener = new TlsListener(options, port, host);
  const named = `--tls-cert ${tls.certFile} and --tls-key ${tls.keyFile}`;
  let served = await readPair(tls);
  const use = (pair: CertificatePair) => {
    listener.serve(pair);
    served = pair;
    app.certificate.served(certificateInfo(pair.cert).notAfter);
  };
  try {
    use(served);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "EADDRINUSE" || code === "EACCES") throw listenError(err, host, port, "--port (or PORT)");
    throw new UserError(`${named} cannot be served: ${(err as Error).message} (they must be a PEM certificate chain and its PEM private key)`);
  }
  const reload = async (why: string) => {
    try {
      const pair = await readPair(tls);
      if (pair.cert === served.cert && pair.key === served.key) return;
      use(pair);
      log.info("TLS certificate reloaded", { why, expires: new Date(app.certificate.notAfter!).toISOString() });
    } catch (err) {
      log.error(`${named} could not be reloaded; the previous certificate stays in use`, { why, error: (err as Error).message });
    }
  };
  const onHangUp = () => void reload("SIGHUP");
  process.on("SIGHUP", onHangUp);
  let settling: ReturnType<typeof setTimeout> | undefined;
  const watchers: FSWatcher[] = [...new Set([dirname(tls.certFile), dirname(tls.keyFile)])].map((dir) =>
    watch(dir, () => {
      clearTimeout(settling);
      settling = setTimeout(() => void reload("file changed"), SETTLE_MS);
    }),
  );
  return {
    port: listener.boundPort(),
    ports: [listener.boundPort()],
    address: shownAddress("https", host, listener.boundPort()),
    async stop() {
      process.off("SIGHUP", onHangUp);
      clearTimeout(settling);
      for (const watcher of watchers) watcher.close();
      await listener.stop();
    },
  };
}

/** Where the certificates live: the data directory on one server, the shared database when several share one. */
function certificateStoreOf(app: App): CertificateStore {
  return app.engine.kind === "sqlite" ? fileCertificateStore(app.config.dataDir) : postgresCertificateStore(app.engine.db, app.clock);
}

/** Runs a certificate check under the job lease: one server orders at a time. */
function exclusiveAmongServers(app: App, signal: AbortSignal) {
  return async <T>(job: (othersFailedAt: number | null) => Promise<T>): Promise<T> => {
    const outcome = await inTurnAmongServers(app, "certificate order", job, signal);
    if (outcome === undefined) throw new Error("the certificate order's lease on the shared database was lost");
    return outcome;
  };
}

async function acmeServer(app: App, options: WebServerOptions, tls: Extract<TlsConfig, { mode: "acme" }>): Promise<WebServer> {
  const { host } = app.config;
  const listener = new TlsListener(options, tls.httpsPort, host);
  const store = certificateStoreOf(app);
  const plain = bound(
    () => Bun.serve({ port: tls.httpPort, hostname: host, fetch: plainHttpHandler({ challenges: store, domains: tls.domains, httpsPort: tls.httpsPort, httpsReady: () => listener.listening }), idleTimeout: 30 }),
    host,
    tls.httpPort,
    "--http-port",
  );
  const stopping = new AbortController();
  const keeper = new CertificateKeeper({
    domains: tls.domains,
    store,
    order: acmeOrderer(tls, store),
    exclusive: exclusiveAmongServers(app, stopping.signal),
    explain: (err) => explainAcmeFailure(err, { domains: tls.domains, directoryUrl: tls.directoryUrl, httpPort: tls.httpPort }),
    now: () => app.clock.now(),
    state: app.certificate,
    serve: (pair) => {
      try {
        listener.serve(pair);
      } catch (err) {
        log.error(listenError(err, host, tls.httpsPort, "--https-port").message);
      }
    },
  });
  await keeper.start();
  if (!listener.listening) log.info("no certificate yet: plain HTTP answers the ACME challenge; HTTPS answers once the certificate is in", { domains: tls.domains.join(","), directory: tls.directoryUrl });
  return {
    port: tls.httpsPort,
    ports: [tls.httpsPort, plain.port!],
    address: `${shownAddress("https", host, tls.httpsPort)} (plain HTTP on port ${plain.port}: the ACME challenge and a redirect to https)`,
    async stop() {
      keeper.stop();
      stopping.abort();
      await Promise.all([listener.stop(), plain.stop(false)]);
    },
  };
}

/** Starts the listeners `config.tls` asks for, all answering with one handler. */
export async function startWebServer(app: App, metrics?: Metrics): Promise<WebServer> {
  const { tls } = app.config;
  if (tls.mode === "off") return plainServer(app, metrics);
  const options = webServerOptions(app, metrics);
  return tls.mode === "files" ? filesServer(app, options, tls) : acmeServer(app, options, tls);
}
