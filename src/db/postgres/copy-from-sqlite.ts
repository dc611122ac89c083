/**
 * `surfcast migrate`: every row of a SQLite data directory into the PostgreSQL database, in one PostgreSQL
 * transaction that commits only after every table has been read back and found equal (verify-copy.ts). SQLite is
 * read in one snapshot, so the copy is consistent even while a server still writes to it.
 */
import type { Database } from "bun:sqlite";
import type { SQL } from "bun";
import { UserError } from "../../core/errors";
import { convertRow, type PostgresValue } from "./copy-values";
import type { PgDb } from "./index";
import { countRows, readRows } from "./sqlite-source";
import { TABLES, type TableShape } from "./tables";
import { CopyMismatch, verifyTable, type TableCheck } from "./verify-copy";

export interface CopyOptions {
  /** Empty a target that already holds accounts, keys or forecasts instead of refusing it. */
  replace: boolean;
  /** After each batch of a table's rows. */
  onCopied(table: string, copied: number, total: number): void;
  /** After each table's rows are read back and found equal. */
  onVerified(check: TableCheck): void;
}

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table, a few MB of forecast bodies. */
const BATCH_ROWS = 500;

/** Data a migration must not silently overwrite: what customers and the last refreshes made. */
const GUARDED = [
  { table: "accounts", what: "account" },
  { table: "api_keys", what: "API key" },
  { table: "forecast_documents", what: "forecast document" },
];

const tableList = TABLES.map((t) => `"${t.name}"`).join(", ");

export async function copySqliteToPostgres(source: Database, target: PgDb, options: CopyOptions): Promise<TableCheck[]> {
  source.exec("BEGIN");
  try {
    return await target.$client.begin(async (tx) => {
      // Nothing reads or writes these tables until the copy commits or rolls back; a second migrate waits here.
      await tx.unsafe(`LOCK TABLE ${tableList} IN ACCESS EXCLUSIVE MODE`);
      if (!options.replace) await refuseExistingData(tx);
      // Emptied either way: a database without accounts, keys or forecasts may still hold what a server seeds on its
      // own (plans, the catalog, meta), which the data directory's rows replace.
      await tx.unsafe(`TRUNCATE ${tableList} RESTART IDENTITY`);
      for (const shape of TABLES) await copyTable(source, tx, shape, options.onCopied);
      for (const shape of TABLES) for (const column of shape.identity) await moveSequencePast(tx, shape.name, column);
      const checks: TableCheck[] = [];
      for (const shape of TABLES) {
        checks.push(await verifyTable(source, tx, shape));
        options.onVerified(checks.at(-1)!);
      }
      return checks;
    });
  } catch (err) {
    if (err instanceof CopyMismatch) throw new UserError(`the copy does not match the data directory, so nothing was committed: ${err.message}`);
    throw err;
  } finally {
    source.exec("ROLLBACK");
  }
}

async function refuseExistingData(tx: SQL): Promise<void> {
  const held: string[] = [];
  for (const { table, what } of GUARDED) {
    const [row] = (await tx.unsafe(`SELECT count(*)::int AS n FROM "${table}"`)) as { n: number }[];
    if (row!.n > 0) held.push(`${row!.n} ${what}${row!.n === 1 ? "" : "s"}`);
  }
  if (held.length > 0) {
    throw new UserError(`the PostgreSQL database already holds ${held.join(", ")}: migrate copies into a database without them; run it with --replace to empty the database and copy again (nothing was changed)`);
  }
}

async function copyTable(source: Database, tx: SQL, shape: TableShape, onCopied: CopyOptions["onCopied"]): Promise<void> {
  const total = countRows(source, shape);
  const columns = shape.columns.map((c) => c.name);
  let batch: Record<string, PostgresValue>[] = [];
  let copied = 0;
  const flush = async () => {
    await tx`INSERT INTO ${tx(shape.name)} ${tx(batch, ...columns)}`;
    copied += batch.length;
    batch = [];
    onCopied(shape.name, copied, total);
  };
  for (const row of readRows(source, shape, false)) {
    batch.push(convertRow(shape, row));
    if (batch.length === BATCH_ROWS) await flush();
  }
  if (batch.length > 0) await flush();
  if (total === 0) onCopied(shape.name, 0, 0);
}

/** The next generated id comes after the largest copied one. */
async function moveSequencePast(tx: SQL, table: string, column: string): Promise<void> {
  await tx.unsafe(`SELECT setval(pg_get_serial_sequence('"${table}"', '${column}'), COALESCE(MAX("${column}"), 0) + 1, false) FROM "${table}"`);
}
