/**
 * Benchmark-only server that isolates the cost of the access layer: the same Elysia routes, either behind the
 * production gate (auth, quota, burst, usage accounting, rate-limit headers, usage flushes) or called directly.
 * Usage: bun bench/gate-server.ts gated|ungated DATA_DIR — prints "listening <port>" on stdout.
 * No production flag is needed for this: it is built from createRoutes(app) vs createFetchHandler(app).
 */
import { loadConfig } from "../src/config";
import { openApp } from "../src/app";
import { createRoutes } from "../src/http/routes";
import { createFetchHandler } from "../src/http/server";

/** As in `surfcast serve`, usage counts and burst windows are written to SQLite every half second. */
const FLUSH_MS = 500;

const [mode, dataDir] = process.argv.slice(2);
if ((mode !== "gated" && mode !== "ungated") || !dataDir) throw new Error("usage: bun bench/gate-server.ts gated|ungated DATA_DIR");

const app = openApp(loadConfig({ dataDir, port: 0, host: "127.0.0.1", scheduler: false }));
let fetchHandler: (req: Request) => Response | Promise<Response>;
if (mode === "gated") {
  fetchHandler = createFetchHandler(app);
  setInterval(() => app.meter.flush(), FLUSH_MS);
} else {
  const routes = createRoutes(app);
  routes.compile();
  fetchHandler = routes.fetch;
}
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: fetchHandler, idleTimeout: 30 });
console.log(`listening ${server.port}`);
