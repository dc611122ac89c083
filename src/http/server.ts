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
import type { Metrics } from "../ops/metrics";

export function createFetchHandler(app: App): (req: Request) => Response | Promise<Response> {
  const routes = createRoutes(app);
  routes.compile();
  // `fetch`, not `handle`: handle only wraps fetch in one more async function. Route failures are answered
  // by the routes' onError; anything that still escapes ends in Bun.serve's error handler below.
  return createGate(app, routes.fetch, createMcpHandler(app));
}

export function startHttpServer(app: App, port: number, host: string, metrics?: Metrics): Server<undefined> {
  const handler = createFetchHandler(app);
  return Bun.serve({
    port,
    hostname: host,
    // Without metrics the handler runs unwrapped: metrics off costs the request path nothing.
    fetch: metrics ? metrics.instrument(handler) : handler,
    error(err) {
      log.error("unhandled error", { error: String(err) });
      return errorResponse(internalError());
    },
    idleTimeout: 30,
    maxRequestBodySize: 1024 * 1024,
  });
}
