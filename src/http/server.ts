/**
 * The HTTP server: Bun.serve with the gate in front of the Elysia routes and the MCP handler.
 */
import type { Server } from "bun";
import type { App } from "../app";
import { createMcpHandler } from "../mcp/server";
import { log } from "../core/log";
import { createGate } from "./gate";
import { errorResponse, internalError } from "./respond";
import { createKeyedRoutes, createOpenRoutes } from "./routes";

export function createFetchHandler(app: App): (req: Request) => Response | Promise<Response> {
  const keyed = createKeyedRoutes(app).compile();
  const open = createOpenRoutes(keyed).compile();
  // `fetch`, not `handle`: handle only wraps fetch in one more async function. Route failures are answered
  // by the routes' onError; anything that still escapes ends in Bun.serve's error handler below.
  return createGate(app, { keyed: keyed.fetch, open: open.fetch, mcp: createMcpHandler(app) });
}

export function startHttpServer(app: App, port: number, host: string): Server<undefined> {
  return Bun.serve({
    port,
    hostname: host,
    fetch: createFetchHandler(app),
    error(err) {
      log.error("unhandled error", { error: String(err) });
      return errorResponse(internalError());
    },
    idleTimeout: 30,
    // Bodies are limited by the gate (http/body.ts), which answers 413 in the spec's shape; Bun's own limit
    // would answer first, with no body. Unread bodies are streamed past, never buffered.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  });
}
