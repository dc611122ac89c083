/**
 * The HTTP server: Bun.serve with the gate in front of the Elysia routes and the MCP handler.
 */
import type { Server } from "bun";
import type { App } from "../app";
import { log } from "../core/log";
import { createGate, type McpHandler } from "../http/gate";
import { errorResponse, internalError } from "../http/respond";
import { createKeyedRoutes, createOpenRoutes } from "../http/routes";
import { createConsoleHandler } from "../console/http";
import type { Peer } from "../core/proxy";
import type { Metrics } from "../ops/metrics";
import { createEmbedHandler, isEmbedPath } from "../embed/http";
import { createAlertsHandler, isAlertsPath } from "../alerts/http";

/** Whether a canonical path belongs to the developer console. */
const isConsolePath = (path: string) => path === "/console" || path.startsWith("/console/");

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

export function createFetchHandler(app: App): FetchHandler {
  const open = createOpenRoutes(app).compile();
  // `fetch`, not `handle`: handle only wraps fetch in one more async function. Route failures are answered
  // by the routes' onError; anything that still escapes ends in Bun.serve's error handler below.
  const openFetch = open.fetch;
  // The developer console has its own sign-in (a cookie scoped to /console): it is on the open side of the gate,
  // never sees an API key, and no keyed route can be reached through it.
  const consoleHandler = app.config.console ? createConsoleHandler(app) : null;
  const openFetchOrConsole = consoleHandler
    ? (req: Request, path: string, server?: Peer) => (isConsolePath(path) ? consoleHandler(req, server) : openFetch(req))
    : (req: Request) => openFetch(req);
  // Embeds (src/embed/): public pages whose id stands for a key; they count their views on it themselves.
  const embedHandler = createEmbedHandler(app);
  // An alert's calendar feed and an e-mail's unsubscribe link: public, each token its own credential.
  const alertsHandler = createAlertsHandler(app);
  const openSide = (req: Request, path: string, server?: Peer) =>
    isEmbedPath(path) ? embedHandler(req, path) : isAlertsPath(path) ? alertsHandler(req, path) : openFetchOrConsole(req, path, server);
  return withDateOnHead(createGate(app, { keyed: createKeyedRoutes(app), open: openSide, mcp: lazyMcpHandler(app) }));
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
