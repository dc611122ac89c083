/**
 * The observation store (./store.ts) on SQLite. A source is one row, replaced whole by one upsert; a refresh's issued
 * forecasts and the drop of the old ones are one write transaction.
 */
import { and, eq, gte, like, lt, sql } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { buoyLeadForecasts, observationSources } from "../db/schema";
import { columnsOf, excludedAll, placeholders } from "../db/statements";
import { LEAD_FORECAST_COLUMNS, sourcesOver, type ObservationStore } from "./store";

const leadColumns = columnsOf(buoyLeadForecasts, LEAD_FORECAST_COLUMNS);
const sourceColumns = { body: observationSources.body, checkedAt: observationSources.checkedAt };

export function sqliteObservationStore(db: Db): ObservationStore {
  const buoyId = sql.placeholder("buoyId");
  const q = {
    source: db.select({ body: observationSources.body }).from(observationSources).where(eq(observationSources.key, sql.placeholder("key"))).prepare(),
    putSource: db
      .insert(observationSources)
      .values({ key: sql.placeholder("key"), ...placeholders(sourceColumns) })
      .onConflictDoUpdate({ target: observationSources.key, set: excludedAll(sourceColumns) })
      .prepare(),
    keysCheckedSince: db
      .select({ key: observationSources.key })
      .from(observationSources)
      .where(and(like(observationSources.key, sql.placeholder("pattern")), gte(observationSources.checkedAt, sql.placeholder("since"))))
      .prepare(),
    leadForecasts: db
      .select(leadColumns)
      .from(buoyLeadForecasts)
      .where(and(eq(buoyLeadForecasts.buoyId, buoyId), gte(buoyLeadForecasts.hour, sql.placeholder("from")), lt(buoyLeadForecasts.hour, sql.placeholder("to"))))
      .orderBy(buoyLeadForecasts.hour, buoyLeadForecasts.issuedAt, buoyLeadForecasts.model)
      .prepare(),
    putLeadForecast: db
      .insert(buoyLeadForecasts)
      .values({ buoyId, model: sql.placeholder("model"), issuedAt: sql.placeholder("issuedAt"), hour: sql.placeholder("time"), waveHeight: sql.placeholder("waveHeight") })
      .onConflictDoUpdate({ target: [buoyLeadForecasts.buoyId, buoyLeadForecasts.model, buoyLeadForecasts.issuedAt, buoyLeadForecasts.hour], set: excludedAll({ waveHeight: buoyLeadForecasts.waveHeight }) })
      .prepare(),
    dropLeadForecasts: db.delete(buoyLeadForecasts).where(and(eq(buoyLeadForecasts.buoyId, buoyId), lt(buoyLeadForecasts.hour, sql.placeholder("keepFrom")))).prepare(),
  };
  return {
    ...sourcesOver({
      read: async (key) => q.source.get({ key })?.body ?? null,
      write: async (key, body, checkedAt) => void q.putSource.run({ key, body, checkedAt }),
      // The prefixes are fixed words (store.ts SOURCE_KEYS): no LIKE wildcard in them.
      keysCheckedSince: async (prefix, since) => q.keysCheckedSince.all({ pattern: `${prefix}%`, since }).map((row) => row.key),
    }),
    addLeadForecasts: async (buoyId, forecasts, keepFrom) =>
      writeTransaction(db, () => {
        q.dropLeadForecasts.run({ buoyId, keepFrom });
        for (const f of forecasts) if (f.time >= keepFrom) q.putLeadForecast.run({ buoyId, ...f });
      }),
    leadForecasts: async (buoyId, from, to) => q.leadForecasts.all({ buoyId, from, to }),
  };
}
