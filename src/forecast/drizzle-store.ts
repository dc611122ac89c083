/**
 * The forecast store (./store.ts) through drizzle, on either database (db/store-dialect.ts). A batch of documents,
 * facings or demand is one transaction (readers see old or new, never a mix), its rows upserted in key order so that
 * two servers writing the same spots wait for each other; documents written announce themselves on the "forecasts"
 * topic.
 */
import { count, eq, gte, max, min } from "drizzle-orm";
import { documentText, packDocument } from "../db/document-codec";
import { excluded, excludedAll } from "../db/statements";
import { readMeta, run, upsertRows, writeMeta, type StoreDialect } from "../db/store-dialect";
import { dataModeOf, FORECAST_META, refreshRecordOf, type ForecastStore } from "./store";

export function drizzleForecastStore({ db, tables, direct, write, notify, chunks }: StoreDialect): ForecastStore {
  const { forecastDocuments, spotDemand, spotFacing, spots } = tables;
  const meta = (key: string) => direct((tx) => readMeta(tables, tx, key));
  const setMeta = (key: string, value: string | null) => direct((tx) => writeMeta(tables, tx, key, value));
  const documentSpan = async () => {
    const { updatedAt } = forecastDocuments;
    const [span] = await db.select({ count: count(), oldest: min(updatedAt), newest: max(updatedAt) }).from(forecastDocuments);
    return span!;
  };
  return {
    writeDocuments: (updatedAt, documents) =>
      write(function* (tx) {
        const rows = upsertRows(documents, (d) => d.spotId).map((d) => ({ spotId: d.spotId, updatedAt, body: typeof d.body === "string" ? packDocument(d.body) : d.body }));
        for (const chunk of chunks(rows, forecastDocuments)) {
          yield* run(tx.insert(forecastDocuments).values(chunk).onConflictDoUpdate({ target: forecastDocuments.spotId, set: excludedAll({ updatedAt: forecastDocuments.updatedAt, body: forecastDocuments.body }) }));
        }
        yield* notify(tx, "forecasts");
      }),
    async readDocument(spotId) {
      const [row] = await db.select({ updatedAt: forecastDocuments.updatedAt, body: forecastDocuments.body }).from(forecastDocuments).where(eq(forecastDocuments.spotId, spotId));
      return row ? { updatedAt: row.updatedAt, body: documentText(row.body) } : null;
    },
    async documentAges() {
      const rows = await db.select({ spotId: forecastDocuments.spotId, updatedAt: forecastDocuments.updatedAt }).from(forecastDocuments);
      return new Map(rows.map((r) => [r.spotId, r.updatedAt]));
    },
    async spotsWithFacing(method) {
      return new Set((await db.select({ spotId: spotFacing.spotId }).from(spotFacing).where(eq(spotFacing.method, method))).map((r) => r.spotId));
    },
    writeFacings: (rows) =>
      write(function* (tx) {
        const replaced = excludedAll({ facing: spotFacing.facing, method: spotFacing.method, computedAt: spotFacing.computedAt });
        for (const chunk of chunks(upsertRows(rows, (r) => r.spotId), spotFacing)) yield* run(tx.insert(spotFacing).values(chunk).onConflictDoUpdate({ target: spotFacing.spotId, set: replaced }));
      }),
    storedFacings: () => db.select({ id: spots.id, override: spots.facingOverride, facing: spotFacing.facing }).from(spots).leftJoin(spotFacing, eq(spotFacing.spotId, spots.id)),
    writeDemand: (rows) =>
      write(function* (tx) {
        for (const chunk of chunks(upsertRows(rows, (r) => r.spotId), spotDemand)) {
          yield* run(tx.insert(spotDemand).values(chunk).onConflictDoUpdate({ target: spotDemand.spotId, set: { requestedAt: excluded(spotDemand.requestedAt) } }));
        }
      }),
    async demandedSince(since) {
      return new Set((await db.select({ spotId: spotDemand.spotId }).from(spotDemand).where(gte(spotDemand.requestedAt, since))).map((r) => r.spotId));
    },
    recordRefresh: (record) => setMeta(FORECAST_META.lastRefresh, JSON.stringify(record)),
    lastRefresh: async () => refreshRecordOf(await meta(FORECAST_META.lastRefresh)),
    recordRetryAt: (at) => setMeta(FORECAST_META.retryAt, at?.toISOString() ?? null),
    retryAt: () => meta(FORECAST_META.retryAt),
    documentSpan,
    dataMode: async () => dataModeOf(await meta(FORECAST_META.dataMode), (await documentSpan()).count),
    recordDataMode: (mode) => setMeta(FORECAST_META.dataMode, mode),
  };
}
