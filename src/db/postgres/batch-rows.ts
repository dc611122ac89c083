/** The rows of a PostgreSQL batch write: how they are ordered and split into statements. */
import { getTableColumns, type Table } from "drizzle-orm";

/** PostgreSQL binds at most this many parameters in one statement. */
const MAX_PARAMETERS = 65_535;

/** `rows` split into statements of at most MAX_PARAMETERS parameters, each row binding `parametersPerRow`. */
export function chunks<T>(rows: readonly T[], parametersPerRow: number): T[][] {
  const size = Math.floor(MAX_PARAMETERS / parametersPerRow);
  const result: T[][] = [];
  for (let i = 0; i < rows.length; i += size) result.push(rows.slice(i, i + size));
  return result;
}

/** `rows` split into inserts into `table`: a row binds at most one parameter per column. */
export function insertChunks<T>(table: Table, rows: readonly T[]): T[][] {
  return chunks(rows, Object.keys(getTableColumns(table)).length);
}

/**
 * The rows of a multi-row upsert: the last row of each key, as SQLite's row-by-row upserts keep (PostgreSQL refuses
 * to update one row twice in a statement), in key order, so that concurrent batches lock shared rows in the same
 * order and wait for each other instead of deadlocking.
 */
export function upsertRows<T>(rows: readonly T[], key: (row: T) => string): T[] {
  const last = new Map<string, T>();
  for (const row of rows) last.set(key(row), row);
  return [...last.keys()].sort().map((k) => last.get(k)!);
}
