/**
 * The data directory's SQLite database as `surfcast migrate` reads it: opened read-only (nothing in it changes),
 * with every INTEGER as a bigint (no 64-bit value is rounded), and only when its schema is the one this binary's
 * PostgreSQL schema mirrors.
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { UserError } from "../../core/errors";
import { BUSY_TIMEOUT_MS, databaseFailure, databasePath } from "../index";
import { migrations } from "../migrations.gen";
import type { SqliteValue } from "./copy-values";
import type { TableShape } from "./tables";

export function openSqliteSource(dataDir: string): Database {
  const path = databasePath(dataDir);
  if (!existsSync(path)) {
    const what = existsSync(dataDir) ? `there is no Surfcast database in ${dataDir}` : `data directory ${dataDir} does not exist`;
    throw new UserError(`${what}: check --data-dir (or SURFCAST_DATA_DIR), the directory to copy from`);
  }
  let source: Database | undefined;
  try {
    source = new Database(path, { readonly: true, safeIntegers: true });
    source.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS.command}`);
    assertCurrentSchema(source, path);
    return source;
  } catch (err) {
    source?.close();
    throw databaseFailure(err, path);
  }
}

/** The same migrations as this binary's: a database of another version has other columns. */
function assertCurrentSchema(source: Database, path: string): void {
  const recorded = source.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (recorded === null) throw new UserError(`${path} is not a Surfcast database (it records no migrations): check --data-dir`);
  const applied = Number((source.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: bigint }).n);
  if (applied < migrations.length) {
    throw new UserError(`${path} was last opened by an older Surfcast (${applied} of ${migrations.length} migrations): upgrade it first by running any command of this binary on it (surfcast --data-dir … status), then migrate`);
  }
  if (applied > migrations.length) throw new UserError(`${path} was written by a newer Surfcast (${applied} migrations, this binary knows ${migrations.length}): migrate with that version`);
}

const quote = (name: string) => `"${name}"`;

export function countRows(source: Database, shape: TableShape): number {
  return Number((source.query(`SELECT count(*) AS n FROM ${quote(shape.name)}`).get() as { n: bigint }).n);
}

/** The table's rows, in primary-key order when `ordered` (SQLite's BINARY order: the bytes of the UTF-8 text). */
export function readRows(source: Database, shape: TableShape, ordered: boolean): IterableIterator<Record<string, SqliteValue>> {
  const order = ordered ? ` ORDER BY ${shape.primaryKey.map(quote).join(", ")}` : "";
  return source.query(`SELECT ${shape.columns.map((c) => quote(c.name)).join(", ")} FROM ${quote(shape.name)}${order}`).iterate() as IterableIterator<Record<string, SqliteValue>>;
}
