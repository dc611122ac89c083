/**
 * Benchmark-only server that isolates the cost of the access layer: the same keyed routes
 *  - `gated`: behind the production gate (auth, quota, burst, usage accounting, rate-limit headers, usage flushes);
 *  - `ungated`: called directly;
 *  - `floor`: behind the least any gate that meets the spec must do (bench/floor.ts). What `floor` costs over
 *    `ungated` is the runtime's price for the spec's headers, whatever the implementation.
 * Usage: bun bench/gate-server.ts gated|ungated|floor DATA_DIR — prints "listening <port>" on stdout.
 * No production flag is needed for this: it is built from createKeyedRoutes(app) vs createFetchHandler(app).
 */
import { loadConfig } from "../src/config";
import { openApp } from "../src/app";
import { createKeyedRoutes } from "../src/http/routes";
import { createFetchHandler } from "../src/server/http";
import { floorHandler, ungatedHandler, type Handler } from "./floor";

/** As in `surfcast serve`, usage counts and burst windows are written to SQLite every half second. */
const FLUSH_MS = 500;
const MODES = ["gated", "ungated", "floor"] as const;

const [mode, dataDir] = process.argv.slice(2) as [(typeof MODES)[number], string | undefined];
if (!MODES.includes(mode) || !dataDir) throw new Error("usage: bun bench/gate-server.ts gated|ungated|floor DATA_DIR");

const app = await openApp(loadConfig({ dataDir, port: 0, host: "127.0.0.1", scheduler: false }));
let fetchHandler: Handler;
if (mode === "gated") {
  fetchHandler = createFetchHandler(app);
  setInterval(() => app.meter.flush(), FLUSH_MS);
} else {
  const routes = createKeyedRoutes(app);
  fetchHandler = mode === "floor" ? floorHandler(routes) : ungatedHandler(routes);
}
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: fetchHandler, idleTimeout: 30 });
console.log(`listening ${server.port}`);
