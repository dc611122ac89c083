/**
 * The PostgreSQL foundation: the pg schema mirrors the SQLite one; its migrations apply once even when processes
 * start together; connection mistakes are one line, exit 2, without the password; `surfcast migrate` (compiled
 * binary) copies a populated data directory row by row, verifies it, refuses a second run and leaves SQLite as it was.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { renderEmbeddedMigrations } from "../../scripts/embed-migrations";
import { loadConfig } from "../../src/config";
import { UserError } from "../../src/core/errors";
import { closePostgres, openPostgres } from "../../src/db/postgres";
import { migrations as postgresMigrations } from "../../src/db/postgres/migrations.gen";
import { openSqliteSource } from "../../src/db/postgres/sqlite-source";
import { TABLES } from "../../src/db/postgres/tables";
import { CopyMismatch, verifyTable } from "../../src/db/postgres/verify-copy";
import { cli, cliAsync, installDir, startServer } from "../support/binary";
import { ConsoleClient } from "../support/console-client";
import { ROOT, tempDir } from "../support/env";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../support/postgres";

const PASSWORD = `pw-${crypto.randomUUID()}`;
const databases: TestDatabase[] = [];
async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  databases.push(db);
  return db;
}
afterAll(async () => {
  for (const db of databases) await db.drop();
});

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
const count = async (db: TestDatabase, table: string) => ((await db.sql.unsafe(`SELECT count(*)::int AS n FROM "${table}"`)) as { n: number }[])[0]!.n;

test("the embedded PostgreSQL migrations match drizzle-pg/ (run `npm run generate` after a schema change)", () => {
  expect(readFileSync(join(ROOT, "src/db/postgres/migrations.gen.ts"), "utf8")).toBe(renderEmbeddedMigrations("drizzle-pg"));
});

test("the URLs: flag over environment, only their own schemes, never echoed with the password", () => {
  const env = { SURFCAST_DATABASE_URL: "postgres://env@db/env", SURFCAST_REDIS_URL: "redis://cache:6379" };
  expect(loadConfig({}, env)).toMatchObject({ databaseUrl: "postgres://env@db/env", redisUrl: "redis://cache:6379" });
  expect(loadConfig({ databaseUrl: "postgresql://flag@db/flag", redisUrl: "rediss://cache:6380" }, env)).toMatchObject({ databaseUrl: "postgresql://flag@db/flag", redisUrl: "rediss://cache:6380" });
  expect(loadConfig({}, {})).toMatchObject({ databaseUrl: undefined, redisUrl: undefined });
  for (const [settings, name] of [
    [{ SURFCAST_DATABASE_URL: `mysql://u:${PASSWORD}@db/x` }, "SURFCAST_DATABASE_URL"],
    [{ SURFCAST_DATABASE_URL: `postgres://u:${PASSWORD}@db:99999/x` }, "SURFCAST_DATABASE_URL"],
    [{ SURFCAST_REDIS_URL: `http://:${PASSWORD}@cache` }, "SURFCAST_REDIS_URL"],
  ] as const) {
    let error: unknown;
    try {
      loadConfig({}, settings);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toContain(name);
    expect((error as Error).message).toContain("***");
    expect((error as Error).message).not.toContain(PASSWORD);
  }
});

describeWithPostgres("PostgreSQL", () => {
  test("the schema mirrors SQLite's: tables, columns, nullability, primary keys, indexes and foreign keys", async () => {
    const dir = installDir("pg-schema");
    const sqlite = new Database(join(dir, "surfcast.db"), { readonly: true });
    const sqliteTables = (sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations'").all() as { name: string }[]).map((t) => t.name);
    const fromSqlite = { columns: [] as string[], indexes: [] as string[], foreignKeys: [] as string[] };
    for (const table of sqliteTables) {
      for (const c of sqlite.query(`PRAGMA table_info("${table}")`).all() as { name: string; notnull: number; pk: number }[]) fromSqlite.columns.push(`${table}.${c.name} ${c.notnull || c.pk ? "not null" : "null"} pk${c.pk}`);
      for (const i of sqlite.query(`PRAGMA index_list("${table}")`).all() as { name: string; unique: number; origin: string }[]) {
        if (i.origin === "pk") continue;
        const columns = (sqlite.query(`PRAGMA index_info("${i.name}")`).all() as { name: string }[]).map((c) => c.name);
        fromSqlite.indexes.push(`${table}.${i.name} ${i.unique ? "unique " : ""}(${columns.join(",")})`);
      }
      for (const f of sqlite.query(`PRAGMA foreign_key_list("${table}")`).all() as { table: string; from: string; to: string; on_delete: string }[]) fromSqlite.foreignKeys.push(`${table}.${f.from} -> ${f.table}.${f.to} on delete ${f.on_delete.toLowerCase()}`);
    }
    sqlite.close();

    const db = await database();
    await closePostgres(await openPostgres(db.url()));
    const columns = (await db.sql`
      SELECT c.table_name AS t, c.column_name AS c, c.is_nullable AS nullable, COALESCE(k.ordinal_position, 0) AS pk
      FROM information_schema.columns c
      LEFT JOIN information_schema.table_constraints tc ON tc.table_schema = c.table_schema AND tc.table_name = c.table_name AND tc.constraint_type = 'PRIMARY KEY'
      LEFT JOIN information_schema.key_column_usage k ON k.constraint_name = tc.constraint_name AND k.table_schema = c.table_schema AND k.column_name = c.column_name
      WHERE c.table_schema = 'public'`) as { t: string; c: string; nullable: string; pk: number }[];
    const indexes = (await db.sql`
      SELECT t.relname AS t, i.relname AS name, x.indisunique AS "unique", array_agg(a.attname::text ORDER BY k.ord) AS columns
      FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord) JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE n.nspname = 'public' AND NOT x.indisprimary GROUP BY t.relname, i.relname, x.indisunique`) as { t: string; name: string; unique: boolean; columns: string[] }[];
    const foreignKeys = (await db.sql`
      SELECT c.conrelid::regclass::text AS t, a.attname AS c, c.confrelid::regclass::text AS ref, r.attname AS refc, c.confdeltype AS del
      FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] JOIN pg_attribute r ON r.attrelid = c.confrelid AND r.attnum = c.confkey[1]
      WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace`) as { t: string; c: string; ref: string; refc: string; del: string }[];

    expect(new Set(columns.map((c) => c.t))).toEqual(new Set(sqliteTables));
    expect(TABLES.map((t) => t.name).sort()).toEqual([...sqliteTables].sort());
    expect(columns.map((c) => `${c.t}.${c.c} ${c.nullable === "NO" ? "not null" : "null"} pk${c.pk}`).sort()).toEqual(fromSqlite.columns.sort());
    expect(indexes.map((i) => `${i.t}.${i.name} ${i.unique ? "unique " : ""}(${i.columns.join(",")})`).sort()).toEqual(fromSqlite.indexes.sort());
    expect(foreignKeys.map((f) => `${f.t}.${f.c} -> ${f.ref}.${f.refc} on delete ${f.del === "c" ? "cascade" : "no action"}`).sort()).toEqual(fromSqlite.foreignKeys.sort());
  });

  test("three openPostgres at once on one empty database (each its own connections, as three servers starting together) all succeed: one set of tables, one record per migration", async () => {
    const db = await database();
    const opened = await Promise.all([1, 2, 3].map(() => openPostgres(db.url(PASSWORD))));
    await Promise.all(opened.map(closePostgres));
    const tables = (await db.sql`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`) as { n: number }[];
    expect(tables[0]!.n).toBe(TABLES.length);
    const recorded = async () => ((await db.sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`) as { n: number }[])[0]!.n;
    expect(await recorded()).toBe(postgresMigrations.length);
    await closePostgres(await openPostgres(db.url()));
    expect(await recorded()).toBe(postgresMigrations.length);
  });

  test("openPostgres: each operator mistake is one UserError line without the password", async () => {
    const db = await database();
    const cases: [string, RegExp][] = [
      [`postgres://postgres:${PASSWORD}@[bad/x`, /not a valid URL/],
      [`mysql://postgres:${PASSWORD}@127.0.0.1/x`, /must be a postgres:\/\/ or postgresql:\/\/ URL/],
      [db.url(PASSWORD).replace(":5432/", ":1/"), /cannot connect to PostgreSQL at 127\.0\.0\.1:1/],
      [db.url(PASSWORD).replace(db.name, `${db.name}_missing`), new RegExp(`database "${db.name}_missing" does not exist.*createdb -h 127\\.0\\.0\\.1 -p 5432 -U postgres ${db.name}_missing`)],
      [db.url(PASSWORD).replace("postgres://postgres:", "postgres://no_such_role:"), /refused user "no_such_role"/],
    ];
    for (const [url, expected] of cases) {
      let error: unknown;
      try {
        await closePostgres(await openPostgres(url));
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(UserError);
      const message = (error as Error).message;
      expect(message).toMatch(expected);
      expect(message).not.toContain(PASSWORD);
      expect(message).not.toContain("\n");
    }
  });

  test("migrate through the binary: a bad URL, a wrong port, a missing database are one line, exit 2, no password", async () => {
    const dir = installDir("pg-mistakes");
    const db = await database();
    const missing = db.url(PASSWORD).replace(db.name, `${db.name}_missing`);
    for (const [args, env, expected] of [
      [["--database-url", `postgres://postgres:${PASSWORD}@[bad/x`], {}, /--database-url is not a valid URL/],
      [[], { SURFCAST_DATABASE_URL: db.url(PASSWORD).replace(":5432/", ":1/") }, /cannot connect to PostgreSQL at 127\.0\.0\.1:1/],
      [["--database-url", missing], {}, /does not exist on PostgreSQL at 127\.0\.0\.1:5432: create it \(createdb /],
      [[], {}, /migrate needs the PostgreSQL database/],
    ] as [string[], Record<string, string>, RegExp][]) {
      const r = cli(dir, [...args, "migrate"], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(expected);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    }
  });

  test("every command runs on the database URL, never quietly on SQLite; Redis without a database is refused; one line each, no password", async () => {
    const dir = installDir("pg-commands");
    const cases: [Record<string, string>, string][] = [
      [{ SURFCAST_DATABASE_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:5432/x_missing` }, 'database "x_missing" does not exist on PostgreSQL'],
      [{ SURFCAST_REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:6379` }, "--redis-url (SURFCAST_REDIS_URL) is for several servers sharing a PostgreSQL database"],
    ];
    for (const [env, expected] of cases) {
      const r = cli(dir, ["status"], env);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(expected);
      expect(r.stderr).not.toContain(PASSWORD);
    }
    const db = await database();
    const status = cli(dir, ["--database-url", db.url(PASSWORD), "status"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("Forecasts:");
    // The catalog was seeded into PostgreSQL, not into the data directory.
    expect(await count(db, "spots")).toBeGreaterThan(0);
    expect(status.stdout + status.stderr).not.toContain(PASSWORD);
  });

  test("a password with a bad percent-escape, or one without the //, is one line, exit 2, never the password", () => {
    const dir = installDir("pg-escapes");
    for (const [url, expected] of [
      [`postgres://postgres:${PASSWORD}%zz@127.0.0.1:5432/x`, 'SURFCAST_DATABASE_URL has a "%" that does not start a percent-escape'],
      [`mysql:postgres:${PASSWORD}@127.0.0.1/x`, 'must be a postgres:// or postgresql:// URL, got "mysql:postgres:***@127.0.0.1/x"'],
    ] as const) {
      const r = cli(dir, ["status"], { SURFCAST_DATABASE_URL: url });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(expected);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    }
  });

  test("serve with a Redis that refuses the URL's password says authentication failed, in one line, exit 2", async () => {
    const db = await database();
    // A Redis that requires a password and refuses this one, in each version's words.
    for (const refusal of ["-WRONGPASS invalid username-password pair or user is disabled.", "-ERR invalid password", "-NOAUTH Authentication required."]) {
      const redis = createServer((client) => {
        client.on("data", () => client.end(`${refusal}\r\n`));
        client.on("error", () => client.destroy());
      });
      await new Promise<void>((listening) => redis.listen(0, "127.0.0.1", listening));
      const port = (redis.address() as AddressInfo).port;
      try {
        const r = await cliAsync(installDir("pg-redis-auth"), ["serve", "--port", "0"], { SURFCAST_DATABASE_URL: db.url(PASSWORD), SURFCAST_REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${port}` });
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`Redis at redis://:***@127.0.0.1:${port} refused authentication (${refusal.slice(1)}): check the user and password in SURFCAST_REDIS_URL`);
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(r.stdout + r.stderr).not.toContain(PASSWORD);
      } finally {
        redis.close();
      }
    }
  }, 60_000);

  test("migrate refuses a value PostgreSQL cannot hold, by table, column and row, and commits nothing", async () => {
    const dir = installDir("pg-unfit");
    const sqlite = new Database(join(dir, "surfcast.db"));
    sqlite.run("INSERT INTO meta (key, value) VALUES ('unfit', 'a' || char(0) || 'b')");
    sqlite.close();
    const db = await database();
    const r = cli(dir, ["--database-url", db.url(PASSWORD), "migrate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("meta.value of the row key=unfit holds a NUL character");
    expect(await count(db, "plans")).toBe(0);
  });

  describe("migrate a populated data directory", () => {
    let dir: string;
    let db: TestDatabase;
    let first: ReturnType<typeof cli>;
    let before: string;
    const spots: string[] = [];
    const legacyBody = { spot: "", json: "" };
    let keyHash = "";

    beforeAll(async () => {
      dir = tempDir("pg-migrate");
      expect(cli(dir, ["accounts", "create", "shop@example.com", "--plan", "starter"]).code).toBe(0);
      const key = JSON.parse(cli(dir, ["keys", "create", "shop@example.com", "--name", "till", "--json"]).stdout) as { id: string; key: string };
      const spare = JSON.parse(cli(dir, ["keys", "create", "shop@example.com", "--name", "spare", "--json"]).stdout) as { id: string };
      expect(cli(dir, ["keys", "revoke", spare.id]).code).toBe(0);
      const catalog = new Database(join(dir, "surfcast.db"), { readonly: true });
      spots.push(...(catalog.query("SELECT id FROM spots ORDER BY id LIMIT 40").all() as { id: string }[]).map((s) => s.id));
      catalog.close();

      const server = await startServer({ dataDir: dir, args: ["--no-scheduler", "--demo"] });
      try {
        const env = { SURFCAST_PUBLIC_URL: server.url };
        expect((await cliAsync(dir, ["refresh", "--spots", spots.join(",")])).code).toBe(0);
        for (const spot of spots.slice(0, 3)) {
          for (const path of ["forecast", "tides", "now"]) expect((await fetch(`${server.url}/v1/spots/${spot}/${path}`, { headers: { "X-API-Key": key.key } })).status).toBe(200);
        }
        expect((await cliAsync(dir, ["embeds", "create", key.id, "--spots", spots.slice(0, 2).join(",")], env)).code).toBe(0);
        const invited = JSON.parse((await cliAsync(dir, ["accounts", "invite", "owner@example.com", "--plan", "pro", "--json"], env)).stdout) as { url: string };
        const owner = new ConsoleClient(server.url);
        await owner.get(invited.url);
        expect((await owner.post(invited.url, { password: "a long enough password", confirm: "a long enough password" })).status).toBe(303);
        expect((await cliAsync(dir, ["accounts", "invite", "later@example.com", "--plan", "starter"], env)).code).toBe(0);
      } finally {
        expect(await server.stop()).toBe(0);
      }

      // What only an older Surfcast or an odd operator leaves, and the copy must keep all the same: a forecast body
      // written before bodies were compressed, and an integer past 2^53. And a row in the tables the commands
      // above leave empty (an import's alias, a demand the requested scope notes, an alert with its ledger and its
      // delivery log, a buoy's stored files and a forecast issued at it), so that every table is copied.
      const sqlite = new Database(join(dir, "surfcast.db"), { safeIntegers: true });
      sqlite.query("INSERT INTO spot_aliases (spot_id, alias) VALUES (?, 'the usual')").run(spots[0]!);
      sqlite.query("INSERT INTO spot_demand (spot_id, requested_at) VALUES (?, ?)").run(spots[0]!, Date.now());
      sqlite
        .query("INSERT INTO alerts (id, key_id, spot_id, name, condition, delivery, target, webhook_secret, calendar_token_hash, created_at) VALUES ('alert_00000000000000a1', ?, ?, 'dawn', '{\"minWave\":1,\"daylight\":true}', 'webhook', 'https://hooks.example.com/a', 'whsec_x', 'c0ffee', ?)")
        .run(key.id, spots[0]!, Date.now());
      sqlite.query("INSERT INTO alert_windows (alert_id, start, \"end\") VALUES ('alert_00000000000000a1', ?, ?)").run(Date.now(), Date.now() + 3_600_000);
      sqlite
        .query("INSERT INTO alert_deliveries (id, alert_id, event_id, attempt, scheduled_at, outcome, payload) VALUES ('dlv_00000000000000a1', 'alert_00000000000000a1', 'msg_1', 1, ?, 'pending', '{}')")
        .run(Date.now());
      sqlite.query("INSERT INTO observation_sources (key, body, checked_at) VALUES ('buoy:51201', '{\"id\":\"51201\"}', ?)").run(Date.now());
      sqlite.query("INSERT INTO buoy_lead_forecasts (buoy_id, model, issued_at, hour, wave_height) VALUES ('51201', 'gfs_wave025', ?, ?, 1.25)").run(Date.now(), Date.now() + 86_400_000);
      sqlite.query("INSERT INTO climate_cells (cell_key, years_from, years_to, computed_at, summary, hours) VALUES ('39.5,-9.5', 2016, 2025, ?, '{\"cell\":{\"lat\":39.5,\"lng\":-9.5},\"months\":[]}', ?)").run(Date.now(), new Uint8Array([11, 22, 33]));
      const row = sqlite.query("SELECT spot_id, body FROM forecast_documents ORDER BY spot_id LIMIT 1").get() as { spot_id: string; body: Uint8Array };
      legacyBody.spot = row.spot_id;
      legacyBody.json = brotliDecompressSync(row.body).toString("utf8");
      sqlite.query("UPDATE forecast_documents SET body = ? WHERE spot_id = ?").run(legacyBody.json, legacyBody.spot);
      sqlite.query("UPDATE accounts SET daily_limit = ? WHERE email = 'shop@example.com'").run(2n ** 53n + 1n);
      keyHash = (sqlite.query("SELECT hash FROM api_keys WHERE id = ?").get(key.id) as { hash: string }).hash;
      sqlite.close();

      db = await database();
      before = sha256(join(dir, "surfcast.db"));
      first = cli(dir, ["migrate"], { SURFCAST_DATABASE_URL: db.url(PASSWORD) });
    });

    test("every table is copied with progress and verified; the summary names them all", () => {
      expect(first.stderr).toBe("");
      expect(first.code).toBe(0);
      expect(first.stdout).not.toContain(PASSWORD);
      expect(first.stdout).toContain(`into ${db.url("***")}`);
      expect(first.stdout).toMatch(/spots: 500 of \d+ rows…/);
      for (const table of TABLES) expect(first.stdout).toMatch(new RegExp(`^  ${table.name} +\\d+ rows? +sha256 [0-9a-f]{16}  ok$`, "m"));
      expect(first.stdout).toMatch(new RegExp(`migrated ${TABLES.length} tables, \\d+ rows, verified, in [\\d.]+ s; the SQLite database was not changed`));
    });

    test("the SQLite file is unchanged", () => {
      expect(sha256(join(dir, "surfcast.db"))).toBe(before);
    });

    test("PostgreSQL holds what SQLite holds: every count, the key hashes, usage, sessions, embeds, forecasts, tide windows", async () => {
      const sqlite = new Database(join(dir, "surfcast.db"), { readonly: true, safeIntegers: true });
      for (const table of TABLES) expect(`${table.name} ${await count(db, table.name)}`).toBe(`${table.name} ${(sqlite.query(`SELECT count(*) AS n FROM "${table.name}"`).get() as { n: bigint }).n}`);
      for (const table of TABLES) expect(`${table.name} ${(await count(db, table.name)) > 0}`).toBe(`${table.name} true`);
      expect((await db.sql`SELECT hash FROM api_keys ORDER BY id`).map((r: { hash: string }) => r.hash)).toEqual((sqlite.query("SELECT hash FROM api_keys ORDER BY id").all() as { hash: string }[]).map((r) => r.hash));
      expect((await db.sql`SELECT hash FROM api_keys`).map((r: { hash: string }) => r.hash)).toContain(keyHash);
      expect((await db.sql`SELECT daily_limit FROM accounts WHERE email = 'shop@example.com'`)[0].daily_limit).toBe(String(2n ** 53n + 1n));
      const accounts = (await db.sql`SELECT id, email, disabled, admin, password_hash FROM accounts ORDER BY id`) as { id: string; email: string; disabled: boolean; password_hash: string | null }[];
      expect(accounts.map((a) => `${a.id} ${a.email} ${a.disabled}`)).toEqual((sqlite.query("SELECT id, email, disabled FROM accounts ORDER BY id").all() as { id: bigint; email: string; disabled: bigint }[]).map((a) => `${a.id} ${a.email} ${a.disabled === 1n}`));
      expect(accounts.find((a) => a.email === "owner@example.com")!.password_hash).toStartWith("$argon2id$");
      // The legacy text body is stored compressed, and reads back as the same document.
      const legacy = (await db.sql`SELECT body FROM forecast_documents WHERE spot_id = ${legacyBody.spot}`)[0].body as Uint8Array;
      expect(brotliDecompressSync(legacy).toString("utf8")).toBe(legacyBody.json);
      const other = (await db.sql`SELECT spot_id, body FROM forecast_documents WHERE spot_id <> ${legacyBody.spot} LIMIT 1`)[0] as { spot_id: string; body: Uint8Array };
      expect(Buffer.from(other.body).equals(Buffer.from((sqlite.query("SELECT body FROM forecast_documents WHERE spot_id = ?").get(other.spot_id) as { body: Uint8Array }).body))).toBe(true);
      sqlite.close();
    });

    test("new account ids continue after the copied ones", async () => {
      const [{ max }] = await db.sql`SELECT max(id) AS max FROM accounts`;
      const [{ id }] = await db.sql`INSERT INTO accounts (email, plan, created_at) VALUES ('next@example.com', 'starter', 0) RETURNING id`;
      expect(Number(id)).toBe(Number(max) + 1);
      await db.sql`DELETE FROM accounts WHERE id = ${id}`;
    });

    test("the verification finds a row that differs, and names it", async () => {
      const source = openSqliteSource(dir);
      const accounts = TABLES.find((t) => t.name === "accounts")!;
      source.exec("BEGIN");
      try {
        await db.sql.begin(async (tx) => {
          expect((await verifyTable(source, tx, accounts)).rows).toBeGreaterThan(0);
          await tx`UPDATE accounts SET email = 'changed@example.com' WHERE email = 'later@example.com'`;
          const changed = await verifyTable(source, tx, accounts).catch((err: unknown) => err);
          expect(changed).toBeInstanceOf(CopyMismatch);
          expect((changed as Error).message).toMatch(/^accounts: SQLite has (\d+) rows \(digest [0-9a-f]{12}\), PostgreSQL \1 \(digest [0-9a-f]{12}\); first difference at id=\d+$/);
          await tx`DELETE FROM console_sessions`;
          const missing = await verifyTable(source, tx, TABLES.find((t) => t.name === "console_sessions")!).catch((err: unknown) => err);
          expect((missing as Error).message).toMatch(/PostgreSQL 0 .*\(missing in PostgreSQL\)$/);
          throw new Error("roll back");
        });
      } catch (err) {
        if ((err as Error).message !== "roll back") throw err;
      } finally {
        source.exec("ROLLBACK");
        source.close();
      }
    });

    test("a second migrate refuses the database with one line and changes nothing; --replace copies again", async () => {
      const keysBefore = await count(db, "api_keys");
      const again = cli(dir, ["--database-url", db.url(PASSWORD), "migrate"]);
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/^surfcast: the PostgreSQL database already holds \d+ accounts, \d+ API keys, \d+ forecast documents: .*--replace.*\(nothing was changed\)\n$/);
      expect(again.stdout + again.stderr).not.toContain(PASSWORD);
      expect(await count(db, "api_keys")).toBe(keysBefore);

      const replaced = cli(dir, ["--database-url", db.url(PASSWORD), "migrate", "--replace"]);
      expect(replaced.code).toBe(0);
      const digests = (out: string) => out.split("\n").filter((line) => line.endsWith("  ok"));
      expect(digests(replaced.stdout)).toEqual(digests(first.stdout));
      expect(sha256(join(dir, "surfcast.db"))).toBe(before);
    });
  });
});
