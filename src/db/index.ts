/**
 * The database: one SQLite file (`surfcast.db`) in the data dir, WAL mode, migrated at open from the
 * migrations embedded in the binary.
 */
import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { accessSync, constants, existsSync, mkdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { registerCache } from "../core/caches";
import { UserError } from "../core/errors";
import * as schema from "./schema";
import { migrations } from "./migrations.gen";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };
export { schema };

export function databasePath(dataDir: string): string {
  return join(dataDir, "surfcast.db");
}

/** Below this much free space the data dir is treated as full: a start would fail half-way through a write. */
const MIN_FREE_BYTES = 1024 * 1024;

/**
 * Checks the data directory before anything is written, so that an operator mistake ends with one clear line
 * and no file changed. A missing data dir is created (mode 0700, with a notice on stderr) when its parent exists —
 * the first start needs no mkdir — but a missing parent is most likely a typo in --data-dir and is refused. Commands
 * that only work on an existing install refuse a missing database (`create` false).
 */
function prepareDataDir(dataDir: string, create: boolean): void {
  if (!create && !existsSync(databasePath(dataDir))) {
    const what = existsSync(dataDir) ? `there is no Surfcast database in ${dataDir}` : `data directory ${dataDir} does not exist`;
    throw new UserError(`${what}: check --data-dir (or SURFCAST_DATA_DIR); \`surfcast serve\` or \`surfcast accounts create\` makes a new one`);
  }
  if (!existsSync(dataDir)) {
    if (!existsSync(dirname(dataDir))) {
      throw new UserError(`data directory ${dataDir} does not exist, nor does its parent: check --data-dir (or SURFCAST_DATA_DIR), or create it with: mkdir -p ${dataDir}`);
    }
    mkdirSync(dataDir, { mode: 0o700 });
    process.stderr.write(`surfcast: created the data directory ${dataDir} (mode 0700)\n`);
  }
  try {
    accessSync(dataDir, constants.W_OK);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === "EROFS" ? "is on a read-only file system" : "is not writable by this user";
    throw new UserError(`data directory ${dataDir} ${why}: surfcast needs to write its database there (give the service user write access, or choose another --data-dir)`);
  }
  const fs = statfsSync(dataDir);
  if (fs.bavail * fs.bsize < MIN_FREE_BYTES) {
    throw new UserError(`the disk holding ${dataDir} is full (${Math.round((fs.bavail * fs.bsize) / 1024)} KiB free): free some space, then start again`);
  }
}

/** One operator-facing line for a database that cannot be opened or written; other errors pass through. */
export function databaseFailure(err: unknown, path: string): unknown {
  const code = String((err as { code?: unknown }).code ?? "");
  const message = err instanceof Error ? err.message : String(err);
  if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) {
    return new UserError(`${path} is not a readable Surfcast database (${message}); it was left untouched: restore it from a backup (see the README, "Back up and restore") or move it aside to start empty`);
  }
  if (code.startsWith("SQLITE_BUSY")) {
    return new UserError(`${path} stayed locked by another process's write for too long (${message}): try again; if it persists, look for a long-running surfcast command on this data directory`);
  }
  if (code === "SQLITE_FULL") return new UserError(`the disk holding ${path} is full: free some space, then start again`);
  if (code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_IOERR")) {
    return new UserError(`cannot write ${path} (${message}): check the data directory's permissions, file system and free space`);
  }
  return err;
}

/**
 * How long a write waits for another process's write lock before giving up (SQLite's busy timeout). The server
 * answers requests on the thread that waits, so it gives up sooner; a console command can afford to wait out a
 * server's refresh batch or a long import.
 */
export const BUSY_TIMEOUT_MS = { server: 5_000, command: 30_000 } as const;

/**
 * Opens (and migrates) the data directory's database. With `create` false a missing directory or database is a
 * UserError: only the commands that start an install make one, so a mistyped --data-dir fails instead of working on
 * an empty database.
 */
export function openDatabase(dataDir: string, busyTimeoutMs: number = BUSY_TIMEOUT_MS.server, create = true): Db {
  prepareDataDir(dataDir, create);
  const path = databasePath(dataDir);
  const fresh = !existsSync(path);
  // Created 0600 before SQLite opens it: SQLite gives its -wal and -shm files the database file's mode.
  if (fresh) writeFileSync(path, "", { mode: 0o600, flag: "wx" });
  try {
    return openAndMigrate(path, busyTimeoutMs, fresh);
  } catch (err) {
    // A database this call created and could not finish (disk full) is removed rather than left half-made.
    if (fresh) for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
    throw databaseFailure(err, path);
  }
}

/** Frees a connection's page cache (up to 2 MB, SQLite's default) at the idle release; the next queries read it back. */
function shrinkPageCache(sqlite: Database): void {
  try {
    sqlite.exec("PRAGMA shrink_memory");
  } catch {
    /* closed: nothing held */
  }
}

function openAndMigrate(path: string, busyTimeoutMs: number, fresh: boolean): Db {
  const sqlite = new Database(path, { create: true, strict: true });
  try {
    // First: switching to WAL and the migrations need locks, and without a busy timeout a lock another connection
    // holds at that moment (another command, the tide worker's connection) fails at once instead of being waited for.
    sqlite.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    // Only takes effect before the first table exists: a new database can give freed pages back (reclaimSpace).
    if (fresh) sqlite.exec("PRAGMA auto_vacuum = INCREMENTAL");
    sqlite.exec("PRAGMA journal_mode = WAL");
    // NORMAL is durable across process crashes in WAL mode (only an OS crash can lose the last commits).
    sqlite.exec("PRAGMA synchronous = NORMAL");
    sqlite.exec("PRAGMA foreign_keys = ON");
    // A refresh's batches grow the WAL; after a checkpoint it is cut back to this instead of keeping its peak size.
    sqlite.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
    const db = drizzle(sqlite, { schema }) as Db;
    // The internals `migrate()` uses, fed from the embedded array instead of a folder.
    const internals = db as unknown as { dialect: { migrate(m: typeof migrations, s: unknown, c: object): void }; session: unknown };
    internals.dialect.migrate(migrations, internals.session, {});
    registerCache(sqlite, shrinkPageCache);
    return db;
  } catch (err) {
    sqlite.close();
    throw err;
  }
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

/** Runs `work`'s reads in one transaction, so that they all see the same commit of every other connection. */
export function readTransaction<T>(db: Db, work: () => T): T {
  return db.$client.transaction(work).deferred();
}

const WAL_SIZE_LIMIT = 16 * 1024 * 1024;
/** Free pages worth giving back to the file system. */
const RECLAIM_ABOVE_BYTES = 16 * 1024 * 1024;

/**
 * Gives the pages a refresh freed back to the file system and truncates the WAL, so the files on disk are what the
 * data needs (documents shrink when rewritten compressed). A database created before incremental auto-vacuum was
 * switched on is vacuumed once to switch it on (a few seconds, once, after the upgrade's first refresh). Returns the bytes given back.
 */
export function reclaimSpace(db: Db): number {
  const sqlite = db.$client;
  const pragma = (name: string) => Object.values(sqlite.query(`PRAGMA ${name}`).get() as Record<string, number>)[0]!;
  const freeBytes = pragma("freelist_count") * pragma("page_size");
  if (freeBytes > RECLAIM_ABOVE_BYTES) {
    if (pragma("auto_vacuum") === 2) sqlite.exec("PRAGMA incremental_vacuum");
    else sqlite.exec("PRAGMA auto_vacuum = INCREMENTAL; VACUUM");
  }
  sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return freeBytes > RECLAIM_ABOVE_BYTES ? freeBytes : 0;
}

export function closeDatabase(db: Db): void {
  db.$client.close();
}
