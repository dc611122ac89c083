/**
 * The database: one SQLite file (`surfcast.db`) in the data dir, WAL mode, migrated at open from the
 * migrations embedded in the binary.
 */
import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as schema from "./schema";
import { migrations } from "./migrations.gen";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };
export { schema };

export function databasePath(dataDir: string): string {
  return join(dataDir, "surfcast.db");
}

export function openDatabase(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true });
  const sqlite = new Database(databasePath(dataDir), { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  // NORMAL is durable across process crashes in WAL mode (only an OS crash can lose the last commits).
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  const db = drizzle(sqlite, { schema }) as Db;
  // The internals `migrate()` uses, fed from the embedded array instead of a folder.
  const internals = db as unknown as { dialect: { migrate(m: typeof migrations, s: unknown, c: object): void }; session: unknown };
  internals.dialect.migrate(migrations, internals.session, {});
  return db;
}

/**
 * Runs `work` in a write transaction that takes the write lock at BEGIN (`BEGIN IMMEDIATE`). A deferred
 * transaction that reads and then writes cannot wait for another process's lock (SQLite answers "database is
 * locked" at once, whatever the busy timeout); an immediate one waits up to the busy timeout instead. Every
 * transaction that writes goes through here. Nested calls become savepoints of the outer transaction.
 */
export function writeTransaction<T>(db: Db, work: () => T): T {
  return db.$client.transaction(work).immediate();
}

export function closeDatabase(db: Db): void {
  db.$client.close();
}
