/**
 * The HTTP server: Bun.serve with the gate in front of the Elysia routes and the MCP handler.
 */
import type { Server } from "bun";
import type { App } from "../app";
import { createMcpHandler } from "../mcp/server";
import { log } from "../core/log";
import { createGate } from "./gate";
import { errorResponse, internalError } from "./respond";
import { createRoutes } from "./routes";
import { createConsoleHandler, isConsoleUrl, type AddressSource } from "../console/http";

export function createFetchHandler(app: App): (req: Request, server?: AddressSource) => Response | Promise<Response> {
  const routes = createRoutes(app);
  routes.compile();
  // `fetch`, not `handle`: handle only wraps fetch in one more async function. Route failures are answered
  // by the routes' onError; anything that still escapes ends in Bun.serve's error handler below.
  const gate = createGate(app, routes.fetch, createMcpHandler(app));
  if (!app.config.console) return gate;
  // The developer console has its own sign-in (a cookie scoped to /console) and never reaches the gate.
  const consoleHandler = createConsoleHandler(app);
  return (req, server) => (isConsoleUrl(req.url) ? consoleHandler(req, server) : gate(req));
}

export function startHttpServer(app: App, port: number, host: string): Server<undefined> {
  const server = Bun.serve({
    port,
    hostname: host,
    fetch: createFetchHandler(app),
    error(err) {
      log.error("unhandled error", { error: String(err) });
      return errorResponse(internalError());
    },
    idleTimeout: 30,
    maxRequestBodySize: 1024 * 1024,
  });
  // The default public URL names the configured port; with port 0 only the started server knows the real one.
  if (app.config.publicUrl === "http://localhost:0") app.config.publicUrl = `http://localhost:${server.port}`;
  return server;
}
