/**
 * An in-process Surfcast on a real HTTP port, with an injectable clock: fast enough for table tests of the
 * endpoints, real enough that requests go through Bun.serve, the gate and the routes.
 */
import { loadConfig, type Config } from "../../src/config";
import { openApp, type App } from "../../src/app";
import type { Db } from "../../src/db";
import { ManualClock, systemClock, type Clock } from "../../src/core/clock";
import { createAccount, createKey } from "../../src/access/accounts";
import { startHttpServer } from "../../src/server/http";
import { tempDir } from "./env";
import { apiFetch } from "./http";

export interface TestServer {
  app: App;
  url: string;
  clock: Clock;
  /** Creates an account with the given plan (and custom limits) and returns a key for it. */
  key(plan?: string, limits?: { dailyLimit?: number; minuteLimit?: number; maxKeys?: number }, email?: string): Promise<string>;
  get(path: string, key?: string | null, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

let counter = 0;

export async function startTestServer(opts: { clock?: Clock; dataDir?: string; env?: Record<string, string> } = {}): Promise<TestServer> {
  const clock = opts.clock ?? systemClock;
  const config: Config = loadConfig({ dataDir: opts.dataDir ?? tempDir("inproc"), port: 0, host: "127.0.0.1", scheduler: false }, { SURFCAST_NDBC_URL: "http://127.0.0.1:9", ...process.env, ...opts.env });
  const app = await openApp(config, clock);
  const server = startHttpServer(app, 0, "127.0.0.1");
  const url = `http://127.0.0.1:${server.port}`;
  return {
    app,
    url,
    clock,
    async key(plan = "scale", limits = {}, email?: string) {
      const address = email ?? `user${++counter}-${Date.now()}@example.com`;
      try {
        await createAccount(app.stores.access, clock, address, plan, limits);
      } catch {
        /* account exists: add another key to it */
      }
      const created = await createKey(app.stores.access, clock, address, `test-${++counter}`);
      await app.keys.reload();
      return created.key;
    },
    get(path, key, headers = {}) {
      const h: Record<string, string> = { ...headers };
      if (key) h["X-API-Key"] = key;
      return apiFetch(url + path, { headers: h });
    },
    async close() {
      await server.stop(true);
      await app.close();
    },
  };
}

export { ManualClock };

/** The SQLite database of an app the tests opened on a data directory (they all do, but the PostgreSQL ones). */
export function sqliteDb(app: Pick<App, "engine">): Db {
  if (app.engine.kind !== "sqlite") throw new Error("this test needs an app on SQLite");
  return app.engine.db;
}
