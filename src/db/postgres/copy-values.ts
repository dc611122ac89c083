/**
 * One value on its way from SQLite to PostgreSQL, and the text both sides are compared by. SQLite keeps whatever a
 * row was given whatever its column's type; PostgreSQL does not, so a value that its column cannot hold exactly
 * is refused by name rather than rounded, cut or cast.
 */
import { createHash } from "node:crypto";
import { UserError } from "../../core/errors";
import { packDocument } from "../document-codec";
import type { ColumnKind, TableShape } from "./tables";

/** What bun:sqlite returns with `safeIntegers` (every INTEGER as a bigint, so no 64-bit value is rounded). */
export type SqliteValue = bigint | number | string | Uint8Array | null;
export type PostgresValue = bigint | number | string | boolean | Uint8Array | null;

/** The row as PostgreSQL stores it; a value its column cannot hold exactly is one line naming table, row and column. */
export function convertRow(shape: TableShape, row: Record<string, SqliteValue>): Record<string, PostgresValue> {
  const converted: Record<string, PostgresValue> = {};
  for (const column of shape.columns) {
    const result = toPostgres(column.kind, row[column.name] ?? null);
    if ("problem" in result) {
      throw new UserError(`${shape.name}.${column.name} of the row ${rowKey(shape, row)} ${result.problem}: PostgreSQL cannot hold it as it is; correct the row in SQLite, then migrate again (nothing was copied)`);
    }
    converted[column.name] = result.value;
  }
  return converted;
}

/** The value PostgreSQL stores for `value`, or the reason it cannot (e.g. `holds 1.5, not an integer`). */
function toPostgres(kind: ColumnKind, value: SqliteValue): { value: PostgresValue } | { problem: string } {
  if (value === null) return { value };
  const shown = value instanceof Uint8Array ? `${value.length} bytes` : JSON.stringify(typeof value === "bigint" ? String(value) : value).slice(0, 40);
  switch (kind) {
    case "text":
      if (typeof value !== "string") return { problem: `holds ${shown}, not text` };
      // PostgreSQL's text cannot hold a NUL character.
      return value.includes("\0") ? { problem: "holds a NUL character, which PostgreSQL's text cannot" } : { value };
    case "integer":
      return typeof value === "bigint" ? { value } : { problem: `holds ${shown}, not an integer` };
    case "double":
      if (typeof value === "number") return { value };
      return typeof value === "bigint" && Number.isSafeInteger(Number(value)) ? { value: Number(value) } : { problem: `holds ${shown}, not a number` };
    case "boolean":
      return value === 0n || value === 1n ? { value: value === 1n } : { problem: `holds ${shown}, not 0 or 1` };
    case "bytes":
      if (value instanceof Uint8Array) return { value };
      // The one bytes column is forecast_documents.body, whose rows written before compression hold the JSON as
      // text: PostgreSQL keeps every body compressed, so its store reads one format.
      return typeof value === "string" ? { value: packDocument(value) } : { problem: `holds ${shown}, not bytes` };
  }
}

/** The text a value is compared by, the same for what SQLite gave (converted by toPostgres) and what PostgreSQL returns. */
function canonical(kind: ColumnKind, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (kind === "bytes") return "sha256:" + createHash("sha256").update(value as Uint8Array).digest("hex");
  // Integers as decimal text: PostgreSQL returns bigint as a string, SQLite gives a bigint.
  return String(value);
}

/** One row as one line of canonical text; the columns in the table's order. */
export function canonicalRow(shape: TableShape, row: Record<string, unknown>): string {
  return JSON.stringify(shape.columns.map((column) => canonical(column.kind, row[column.name]))) + "\n";
}

/** `id=3`, `spot_id=pipeline, time=1700000000000`: which row a message is about. */
export function rowKey(shape: TableShape, row: Record<string, unknown>): string {
  return shape.primaryKey.map((column) => `${column}=${String(row[column])}`).join(", ");
}
