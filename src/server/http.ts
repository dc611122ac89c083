/**
 * The HTTP server: Bun.serve with the gate in front of every room's adapter. Which adapter answers a path is the
 * mount table's (core/mounts.ts); here each room's adapter is built once.
 */
import type { Server } from "bun";
import type { App } from "../app";
import { log } from "../core/log";
import { createGate, type McpHandler } from "../http/gate";
import type { MountHandler } from "../core/mounts";
import { errorResponse, internalError, noSuchEndpoint } from "../http/respond";
import { createKeyedRoutes, createOpenRoutes } from "../http/routes";
import { createConsoleHandler } from "../console/http";
import type { Peer } from "../core/proxy";
import type { Metrics } from "../ops/metrics";
import { createEmbedHandler } from "../embed/http";
import { createAlertsHandler } from "../alerts/http";

/**
 * The MCP SDK and zod load with the first /mcp request: ~50 ms of start-up and their heap, which a server that
 * no MCP client calls never pays.
 */
function lazyMcpHandler(app: App): McpHandler {
  let loading: Promise<McpHandler> | undefined;
  return async (req, principal) => {
    loading ??= import("../mcp/server").then((mcp) => mcp.createMcpHandler(app, { alerts: app.alerts }));
    return (await loading)(req, principal);
  };
}

type FetchHandler = (req: Request, server?: Peer) => Response | Promise<Response>;

/** The console's rows when it is switched off: no such path, as anywhere no row serves. */
const consoleOff: MountHandler<"console"> = (req, path) => noSuchEndpoint(req, path);

export function createFetchHandler(app: App): FetchHandler {
  const open = {
    open: createOpenRoutes(app),
    // The developer console has its own sign-in (a cookie scoped to /console): it never sees an API key, and no
    // keyed route can be reached through it.
    console: app.config.console ? createConsoleHandler(app) : consoleOff,
    // Embeds (src/embed/): public pages whose id stands for a key; they count their views on it themselves.
    embed: createEmbedHandler(app),
    // An alert's calendar feed and an e-mail's links: public, each token its own credential.
    alerts: createAlertsHandler(app),
  };
  return withDateOnHead(createGate(app, { keyed: createKeyedRoutes(app), open, mcp: lazyMcpHandler(app) }));
}

/** Stamps a HEAD answer with the time: Bun sends a Date header with every other answer, not with these. */
function withDateOnHead(handler: FetchHandler): FetchHandler {
  const dated = (res: Response) => {
    if (!res.headers.has("date")) res.headers.set("date", new Date().toUTCString());
    return res;
  };
  return (req, server) => {
    if (req.method !== "HEAD") return handler(req, server);
    const res = handler(req, server);
    return res instanceof Promise ? res.then(dated) : dated(res);
  };
}

/** What every listener of the web server shares, built once: the handler (and its state) and the error answer. */
export function webServerOptions(app: App, metrics?: Metrics) {
  const handler = createFetchHandler(app);
  return {
    // Without metrics the handler runs unwrapped: metrics off costs the request path nothing.
    fetch: metrics ? metrics.instrument(handler) : handler,
    error(err: Error) {
      log.error("unhandled error", { error: String(err) });
      return errorResponse(internalError());
    },
    idleTimeout: 30,
    // Bodies are limited by the gate (http/body.ts), which answers 413 in the spec's shape; Bun's own limit
    // would answer first, with no body. Unread bodies are streamed past, never buffered.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  };
}

export type WebServerOptions = ReturnType<typeof webServerOptions>;

export function startHttpServer(app: App, port: number, host: string, metrics?: Metrics): Server<undefined> {
  const server = Bun.serve({ ...webServerOptions(app, metrics), port, hostname: host });
  // The default public URL names the configured port; with port 0 only the started server knows the real one.
  if (app.config.publicUrl === "http://localhost:0") app.config.publicUrl = `http://localhost:${server.port}`;
  return server;
}
