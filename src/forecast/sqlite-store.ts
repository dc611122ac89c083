/**
 * The forecast store (store.ts) on SQLite: drizzle-store.ts over bun:sqlite, with the document statements a request
 * or a refresh batch runs prepared once per connection. A server notices documents written by another process
 * (`surfcast refresh`) through db/changes.ts.
 */
import { eq, sql } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { documentText, packDocument } from "../db/document-codec";
import { forecastDocuments } from "../db/schema";
import { excludedAll, placeholders, preparedPerConnection } from "../db/statements";
import { sqliteDialect } from "../db/store-dialect";
import { drizzleForecastStore } from "./drizzle-store";
import type { ForecastStore, StoredRow } from "./store";

const documentColumns = { updatedAt: forecastDocuments.updatedAt, body: forecastDocuments.body };

const documentStatements = preparedPerConnection((db) => ({
  upsert: db
    .insert(forecastDocuments)
    .values({ spotId: sql.placeholder("spotId"), ...placeholders(documentColumns) })
    .onConflictDoUpdate({ target: forecastDocuments.spotId, set: excludedAll(documentColumns) })
    .prepare(),
  // The body as stored, bytes or text (the column's buffer mapping would copy the bytes and turn text into bytes).
  read: db
    .select({ updatedAt: forecastDocuments.updatedAt, body: sql<string | Uint8Array>`${forecastDocuments.body}` })
    .from(forecastDocuments)
    .where(eq(forecastDocuments.spotId, sql.placeholder("spotId")))
    .prepare(),
}));

export function writeDocuments(db: Db, updatedAt: number, documents: readonly { spotId: string; body: string | Uint8Array }[]): void {
  const { upsert } = documentStatements(db);
  const packed = documents.map((d) => ({ spotId: d.spotId, body: typeof d.body === "string" ? packDocument(d.body) : d.body }));
  writeTransaction(db, () => {
    for (const d of packed) upsert.run({ spotId: d.spotId, updatedAt, body: d.body });
  });
}

export function readDocument(db: Db, spotId: string): StoredRow | null {
  const row = documentStatements(db).read.get({ spotId });
  return row ? { updatedAt: row.updatedAt, body: documentText(row.body) } : null;
}

export const sqliteForecastStore = (db: Db): ForecastStore => ({
  ...drizzleForecastStore(sqliteDialect(db)),
  writeDocuments: async (updatedAt, documents) => writeDocuments(db, updatedAt, documents),
  readDocument: async (spotId) => readDocument(db, spotId),
});
