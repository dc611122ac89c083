/**
 * The forecast store (./store.ts) on SQLite: each statement a function of the connection, bound to one by
 * `sqliteForecastStore`. A server notices documents written by another process (`surfcast refresh`) through
 * db/changes.ts.
 */
import { count, eq, gte, max, min, sql } from "drizzle-orm";
import { documentText, packDocument } from "../db/document-codec";
import { writeTransaction, type Db } from "../db";
import { readMeta, writeMeta } from "../db/meta";
import { forecastDocuments, spotDemand, spotFacing, spots } from "../db/schema";
import { excluded, excludedAll, placeholders, preparedPerConnection } from "../db/statements";
import { connect } from "../db/async-store";
import { dataModeOf, FORECAST_META, refreshRecordOf, type ForecastStore, type RefreshRecord, type StoredRow } from "./store";

const documentColumns = { updatedAt: forecastDocuments.updatedAt, body: forecastDocuments.body };

/** The document statements run per request and per refresh batch, prepared once per connection. */
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

export function documentAges(db: Db): Map<string, number> {
  const rows = db.select({ spotId: forecastDocuments.spotId, updatedAt: forecastDocuments.updatedAt }).from(forecastDocuments).all();
  return new Map(rows.map((r) => [r.spotId, r.updatedAt]));
}

export function spotsWithFacing(db: Db, method: string): Set<string> {
  return new Set(db.select({ spotId: spotFacing.spotId }).from(spotFacing).where(eq(spotFacing.method, method)).all().map((r) => r.spotId));
}

export function writeFacings(db: Db, rows: readonly { spotId: string; facing: number | null; method: string; computedAt: number }[]): void {
  const columns = { facing: spotFacing.facing, method: spotFacing.method, computedAt: spotFacing.computedAt };
  const upsert = db
    .insert(spotFacing)
    .values({ spotId: sql.placeholder("spotId"), ...placeholders(columns) })
    .onConflictDoUpdate({ target: spotFacing.spotId, set: excludedAll(columns) })
    .prepare();
  writeTransaction(db, () => {
    for (const row of rows) upsert.run(row);
  });
}

export function storedFacings(db: Db): { id: string; override: number | null; facing: number | null }[] {
  return db.select({ id: spots.id, override: spots.facingOverride, facing: spotFacing.facing }).from(spots).leftJoin(spotFacing, eq(spotFacing.spotId, spots.id)).all();
}

export function writeDemand(db: Db, rows: readonly { spotId: string; requestedAt: number }[]): void {
  writeTransaction(db, () => {
    for (const row of rows) db.insert(spotDemand).values(row).onConflictDoUpdate({ target: spotDemand.spotId, set: { requestedAt: excluded(spotDemand.requestedAt) } }).run();
  });
}

export function demandedSince(db: Db, since: number): Set<string> {
  return new Set(db.select({ spotId: spotDemand.spotId }).from(spotDemand).where(gte(spotDemand.requestedAt, since)).all().map((r) => r.spotId));
}

export function recordRefresh(db: Db, record: RefreshRecord): void {
  writeMeta(db, FORECAST_META.lastRefresh, JSON.stringify(record));
}

export function lastRefresh(db: Db): RefreshRecord | null {
  return refreshRecordOf(readMeta(db, FORECAST_META.lastRefresh));
}

export function recordRetryAt(db: Db, at: Date | null): void {
  writeMeta(db, FORECAST_META.retryAt, at?.toISOString() ?? null);
}

export function retryAt(db: Db): string | null {
  return readMeta(db, FORECAST_META.retryAt);
}

export function documentSpan(db: Db): { count: number; oldest: number | null; newest: number | null } {
  const { updatedAt } = forecastDocuments;
  return db.select({ count: count(), oldest: min(updatedAt), newest: max(updatedAt) }).from(forecastDocuments).get()!;
}

export function dataMode(db: Db): "demo" | "real" | null {
  return dataModeOf(readMeta(db, FORECAST_META.dataMode), documentSpan(db).count);
}

export function recordDataMode(db: Db, mode: "demo" | "real"): void {
  writeMeta(db, FORECAST_META.dataMode, mode);
}

export const sqliteForecastStore = (db: Db): ForecastStore =>
  connect(db, { writeDocuments, readDocument, documentAges, spotsWithFacing, writeFacings, storedFacings, writeDemand, demandedSince, recordRefresh, lastRefresh, recordRetryAt, retryAt, documentSpan, dataMode, recordDataMode });
