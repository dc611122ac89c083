/**
 * Checks a copied table: both sides read in primary-key order, each row turned into the same canonical text
 * (copy-values.ts), counted and hashed per side. The copy stands only when counts and digests are equal.
 */
import type { Database } from "bun:sqlite";
import type { SQL } from "bun";
import { createHash } from "node:crypto";
import { canonicalRow, convertRow, rowKey } from "./copy-values";
import { readRows } from "./sqlite-source";
import type { TableShape } from "./tables";

export interface TableCheck {
  table: string;
  rows: number;
  /** SHA-256 of the table's canonical rows in primary-key order, the same from both sides. */
  digest: string;
}

export class CopyMismatch extends Error {}

const FETCH_ROWS = 1000;

/** One side's count and running SHA-256 of its canonical rows. */
class Digest {
  rows = 0;
  private readonly hash = createHash("sha256");
  add(line: string): void {
    this.rows++;
    this.hash.update(line);
  }
  hex(): string {
    return this.hash.digest("hex");
  }
}

/** SQLite's rows in primary-key order as PostgreSQL should hold them, as canonical lines. */
function* sqliteLines(source: Database, shape: TableShape): Generator<{ line: string; key: string }> {
  for (const row of readRows(source, shape, true)) {
    const converted = convertRow(shape, row);
    yield { line: canonicalRow(shape, converted), key: rowKey(shape, converted) };
  }
}

/** PostgreSQL's rows in the same order: text keys in byte order ("C"), the order of SQLite's BINARY collation. */
async function* postgresRows(tx: SQL, shape: TableShape): AsyncGenerator<Record<string, unknown>> {
  const order = shape.primaryKey.map((name) => `"${name}"${shape.columns.find((c) => c.name === name)!.kind === "text" ? ' COLLATE "C"' : ""}`);
  await tx.unsafe(`DECLARE verify_copy NO SCROLL CURSOR FOR SELECT ${shape.columns.map((c) => `"${c.name}"`).join(", ")} FROM "${shape.name}" ORDER BY ${order.join(", ")}`);
  for (;;) {
    const batch = (await tx.unsafe(`FETCH ${FETCH_ROWS} FROM verify_copy`)) as Record<string, unknown>[];
    yield* batch;
    if (batch.length < FETCH_ROWS) break;
  }
  await tx.unsafe("CLOSE verify_copy");
}

/** Reads `shape`'s rows back from PostgreSQL (`tx`, the copy's transaction) and from SQLite, and compares them. */
export async function verifyTable(source: Database, tx: SQL, shape: TableShape): Promise<TableCheck> {
  const sqlite = new Digest();
  const postgres = new Digest();
  const expected = sqliteLines(source, shape);
  let firstDifference: string | undefined;
  for await (const row of postgresRows(tx, shape)) {
    const line = canonicalRow(shape, row);
    postgres.add(line);
    const next = expected.next();
    if (!next.done) sqlite.add(next.value.line);
    if (firstDifference === undefined && (next.done || next.value.line !== line)) firstDifference = next.done ? `${rowKey(shape, row)} (only in PostgreSQL)` : next.value.key;
  }
  for (const rest of expected) {
    sqlite.add(rest.line);
    firstDifference ??= `${rest.key} (missing in PostgreSQL)`;
  }
  const digests = { sqlite: sqlite.hex(), postgres: postgres.hex() };
  if (sqlite.rows !== postgres.rows || digests.sqlite !== digests.postgres) {
    throw new CopyMismatch(`${shape.name}: SQLite has ${sqlite.rows} rows (digest ${digests.sqlite.slice(0, 12)}), PostgreSQL ${postgres.rows} (digest ${digests.postgres.slice(0, 12)}); first difference at ${firstDifference}`);
  }
  return { table: shape.name, rows: postgres.rows, digest: digests.postgres };
}
