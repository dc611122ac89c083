/**
 * The HTTP server: Bun.serve with the gate in front of the Elysia routes and the MCP handler.
 */
import type { Server } from "bun";
import type { App } from "../app";
import { createMcpHandler } from "../mcp/server";
import { createGate } from "./gate";
import { createRoutes } from "./routes";

export function createFetchHandler(app: App): (req: Request) => Response | Promise<Response> {
  const routes = createRoutes(app);
  routes.compile();
  return createGate(app, (req) => routes.handle(req), createMcpHandler(app));
}

export function startHttpServer(app: App, port: number, host: string): Server<undefined> {
  return Bun.serve({ port, hostname: host, fetch: createFetchHandler(app), idleTimeout: 30, maxRequestBodySize: 1024 * 1024 });
}
