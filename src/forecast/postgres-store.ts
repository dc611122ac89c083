/**
 * The forecast store (./store.ts) on the shared PostgreSQL database, for several servers at once. A batch of documents, facings or demand is one transaction (readers see old or new,
 * never a mix), its rows upserted in key order so that two servers writing the same spots wait for each other.
 */
import { count, eq, gte, max, min } from "drizzle-orm";
import { connect } from "../db/async-store";
import { documentText, packDocument } from "../db/document-codec";
import { insertChunks, upsertRows } from "../db/postgres/batch-rows";
import { readMeta, writeMeta } from "../db/postgres/meta";
import { notifyChange } from "../db/postgres/changes";
import { forecastDocuments, spotDemand, spotFacing, spots } from "../db/postgres/schema";
import { inTransaction, type PgQueryable } from "../db/postgres/transaction";
import { excluded, excludedAll } from "../db/statements";
import { dataModeOf, FORECAST_META, refreshRecordOf, type ForecastStore, type RefreshRecord, type StoredRow } from "./store";

async function writeDocuments(db: PgQueryable, updatedAt: number, documents: readonly { spotId: string; body: string | Uint8Array }[]): Promise<void> {
  const rows = upsertRows(documents, (d) => d.spotId).map((d) => ({ spotId: d.spotId, updatedAt, body: typeof d.body === "string" ? packDocument(d.body) : d.body }));
  const replaced = excludedAll({ updatedAt: forecastDocuments.updatedAt, body: forecastDocuments.body });
  await inTransaction(db, async (tx) => {
    for (const chunk of insertChunks(forecastDocuments, rows)) {
      await tx.insert(forecastDocuments).values(chunk).onConflictDoUpdate({ target: forecastDocuments.spotId, set: replaced });
    }
    await notifyChange(tx, "forecasts");
  });
}

async function readDocument(db: PgQueryable, spotId: string): Promise<StoredRow | null> {
  const [row] = await db.select({ updatedAt: forecastDocuments.updatedAt, body: forecastDocuments.body }).from(forecastDocuments).where(eq(forecastDocuments.spotId, spotId));
  return row ? { updatedAt: row.updatedAt, body: documentText(row.body) } : null;
}

async function documentAges(db: PgQueryable): Promise<Map<string, number>> {
  const rows = await db.select({ spotId: forecastDocuments.spotId, updatedAt: forecastDocuments.updatedAt }).from(forecastDocuments);
  return new Map(rows.map((r) => [r.spotId, r.updatedAt]));
}

async function spotsWithFacing(db: PgQueryable, method: string): Promise<Set<string>> {
  const rows = await db.select({ spotId: spotFacing.spotId }).from(spotFacing).where(eq(spotFacing.method, method));
  return new Set(rows.map((r) => r.spotId));
}

async function writeFacings(db: PgQueryable, rows: readonly { spotId: string; facing: number | null; method: string; computedAt: number }[]): Promise<void> {
  const replaced = excludedAll({ facing: spotFacing.facing, method: spotFacing.method, computedAt: spotFacing.computedAt });
  await inTransaction(db, async (tx) => {
    for (const chunk of insertChunks(spotFacing, upsertRows(rows, (r) => r.spotId))) {
      await tx.insert(spotFacing).values(chunk).onConflictDoUpdate({ target: spotFacing.spotId, set: replaced });
    }
  });
}

async function storedFacings(db: PgQueryable): Promise<{ id: string; override: number | null; facing: number | null }[]> {
  return db.select({ id: spots.id, override: spots.facingOverride, facing: spotFacing.facing }).from(spots).leftJoin(spotFacing, eq(spotFacing.spotId, spots.id));
}

async function writeDemand(db: PgQueryable, rows: readonly { spotId: string; requestedAt: number }[]): Promise<void> {
  await inTransaction(db, async (tx) => {
    for (const chunk of insertChunks(spotDemand, upsertRows(rows, (r) => r.spotId))) {
      await tx.insert(spotDemand).values(chunk).onConflictDoUpdate({ target: spotDemand.spotId, set: { requestedAt: excluded(spotDemand.requestedAt) } });
    }
  });
}

async function demandedSince(db: PgQueryable, since: number): Promise<Set<string>> {
  const rows = await db.select({ spotId: spotDemand.spotId }).from(spotDemand).where(gte(spotDemand.requestedAt, since));
  return new Set(rows.map((r) => r.spotId));
}

async function recordRefresh(db: PgQueryable, record: RefreshRecord): Promise<void> {
  await writeMeta(db, FORECAST_META.lastRefresh, JSON.stringify(record));
}

async function lastRefresh(db: PgQueryable): Promise<RefreshRecord | null> {
  return refreshRecordOf(await readMeta(db, FORECAST_META.lastRefresh));
}

async function recordRetryAt(db: PgQueryable, at: Date | null): Promise<void> {
  await writeMeta(db, FORECAST_META.retryAt, at?.toISOString() ?? null);
}

async function retryAt(db: PgQueryable): Promise<string | null> {
  return readMeta(db, FORECAST_META.retryAt);
}

async function documentSpan(db: PgQueryable): Promise<{ count: number; oldest: number | null; newest: number | null }> {
  const { updatedAt } = forecastDocuments;
  const [span] = await db.select({ count: count(), oldest: min(updatedAt), newest: max(updatedAt) }).from(forecastDocuments);
  return span!;
}

async function dataMode(db: PgQueryable): Promise<"demo" | "real" | null> {
  return dataModeOf(await readMeta(db, FORECAST_META.dataMode), (await documentSpan(db)).count);
}

async function recordDataMode(db: PgQueryable, mode: "demo" | "real"): Promise<void> {
  await writeMeta(db, FORECAST_META.dataMode, mode);
}

export const postgresForecastStore = (db: PgQueryable): ForecastStore =>
  connect(db, { writeDocuments, readDocument, documentAges, spotsWithFacing, writeFacings, storedFacings, writeDemand, demandedSince, recordRefresh, lastRefresh, recordRetryAt, retryAt, documentSpan, dataMode, recordDataMode });
