/**
 * Foundation: migrations, the console against the compiled binary, /healthz, graceful stop, and console
 * changes reaching a running server.
 */
import { describe, expect, test, afterAll } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { cli, createKey, startServer, type RunningServer } from "../support/binary";
import { tempDir, ROOT } from "../support/env";
import { renderEmbeddedMigrations } from "../../scripts/embed-migrations";
import { openDatabase, closeDatabase } from "../../src/db";
import { migrations } from "../../src/db/migrations.gen";

describe("migrations", () => {
  test("embedded migrations match drizzle/ (run `npm run generate` after a schema change)", () => {
    expect(readFileSync(join(ROOT, "src/db/migrations.gen.ts"), "utf8")).toBe(renderEmbeddedMigrations());
  });

  test("fresh start creates every table in WAL mode; reopening an existing database is a no-op", () => {
    const dir = tempDir("migrate");
    const db = openDatabase(dir);
    const tables = db.$client.query("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name").all() as { name: string }[];
    for (const t of ["accounts", "api_keys", "plans", "usage_counters", "rate_limit_state", "spots", "spot_aliases", "forecast_documents", "tide_extremes", "meta"]) {
      expect(tables.map((r) => r.name)).toContain(t);
    }
    expect((db.$client.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("wal");
    db.$client.exec("INSERT INTO meta (key, value) VALUES ('probe', 'kept')");
    closeDatabase(db);
    const again = openDatabase(dir);
    expect((again.$client.query("SELECT value FROM meta WHERE key='probe'").get() as { value: string }).value).toBe("kept");
    expect((again.$client.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n).toBe(migrations.length);
    closeDatabase(again);
  });
});

describe("console (compiled binary)", () => {
  const dir = tempDir("console");

  test("--help everywhere, errors on stderr with a non-zero exit and no stack", () => {
    for (const args of [["--help"], ["serve", "--help"], ["accounts", "--help"], ["keys", "--help"], ["refresh", "--help"], ["spots", "--help"]]) {
      const r = cli(dir, args);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Usage");
    }
    for (const args of [["accounts", "create", "not-an-email", "--plan", "starter"], ["accounts", "create", "x@y.zz", "--plan", "platinum"], ["keys", "create", "nobody@example.com", "--name", "k"], ["frobnicate"], ["accounts", "create", "x@y.zz", "--plan", "starter", "--daily-limit", "-5"]]) {
      const r = cli(dir, args);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/^surfcast: /);
      expect(r.stderr).not.toContain("    at ");
    }
  });

  test("accounts and keys: create, list, plan key cap, revoke, key never listed in clear", () => {
    expect(cli(dir, ["accounts", "create", "shop@example.com", "--plan", "starter"]).code).toBe(0);
    const json = cli(dir, ["keys", "create", "shop@example.com", "--name", "till", "--json"]);
    expect(json.code).toBe(0);
    const created = JSON.parse(json.stdout);
    expect(created).toMatchObject({ name: "till", account: "shop@example.com", plan: "starter" });
    expect(created.key).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    const plain = cli(dir, ["keys", "create", "shop@example.com", "--name", "web"]);
    expect(plain.stdout.trim().split("\n").at(-1)).toMatch(/^sk_live_/);
    const third = cli(dir, ["keys", "create", "shop@example.com", "--name", "one-too-many"]);
    expect(third.code).not.toBe(0);
    expect(third.stderr).toContain("2 active keys");
    const listed = cli(dir, ["keys", "list", "shop@example.com", "--json"]);
    expect(listed.stdout).not.toContain(created.key);
    expect(JSON.parse(listed.stdout)).toHaveLength(2);
    expect(cli(dir, ["keys", "revoke", created.id]).code).toBe(0);
    expect(cli(dir, ["keys", "create", "shop@example.com", "--name", "replacement"]).code).toBe(0);
    const db = new Database(join(dir, "surfcast.db"), { readonly: true });
    const hashes = db.query("SELECT hash FROM api_keys").all() as { hash: string }[];
    expect(hashes.every((h) => /^[0-9a-f]{64}$/.test(h.hash))).toBe(true);
    expect(JSON.stringify(db.query("SELECT * FROM api_keys").all())).not.toContain(created.key);
    db.close();
  });

  test("custom limits for the scale plan", () => {
    const r = cli(dir, ["accounts", "create", "big@example.com", "--plan", "scale", "--daily-limit", "100000", "--minute-limit", "5000", "--max-keys", "3", "--json"]);
    expect(JSON.parse(r.stdout)).toMatchObject({ plan: "scale", dailyLimit: 100000, minuteLimit: 5000, maxKeys: 3 });
  });
});

describe("server (compiled binary)", () => {
  let server: RunningServer;
  afterAll(async () => {
    if (server && server.proc.exitCode === null) await server.stop("SIGKILL");
  });

  test("healthz without a key, console changes take effect within 5 s, SIGTERM exits 0", async () => {
    server = await startServer();
    const health = await fetch(server.url + "/healthz");
    expect(health.status).toBe(200);

    const key = createKey(server.dataDir, "live@example.com", "starter");
    const ok = async () => (await fetch(server.url + "/v1/usage", { headers: { "X-API-Key": key } })).status;
    const waitFor = async (status: number) => {
      const deadline = Date.now() + 5000;
      let last = await ok();
      while (last !== status && Date.now() < deadline) {
        await Bun.sleep(100);
        last = await ok();
      }
      return last;
    };
    expect(await waitFor(200)).toBe(200);

    expect(cli(server.dataDir, ["accounts", "disable", "live@example.com"]).code).toBe(0);
    expect(await waitFor(401)).toBe(401);
    const disabled = await fetch(server.url + "/v1/usage", { headers: { "X-API-Key": key } });
    expect(((await disabled.json()) as { error: { code: string } }).error.code).toBe("account_disabled");

    expect(cli(server.dataDir, ["accounts", "enable", "live@example.com"]).code).toBe(0);
    expect(await waitFor(200)).toBe(200);

    const keyId = JSON.parse(cli(server.dataDir, ["keys", "list", "live@example.com", "--json"]).stdout)[0].id;
    expect(cli(server.dataDir, ["keys", "revoke", keyId]).code).toBe(0);
    expect(await waitFor(401)).toBe(401);
    const revoked = await fetch(server.url + "/v1/usage", { headers: { "X-API-Key": key } });
    expect(((await revoked.json()) as { error: { code: string } }).error.code).toBe("invalid_key");

    expect(await server.stop("SIGTERM")).toBe(0);
    expect(server.output()).toContain("stopped cleanly");
  });
});
