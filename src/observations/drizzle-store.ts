/**
 * The observation store (./store.ts) through drizzle, on either database (db/store-dialect.ts). A source is one row,
 * replaced whole by one upsert (two servers saving it at once: the later waits, then wins); a refresh's issued
 * forecasts and the drop of the old ones are one transaction, its rows upserted in key order so that two servers
 * writing the same buoy wait for each other instead of deadlocking.
 */
import { and, eq, gte, like, lt } from "drizzle-orm";
import { columnsOf, excludedAll } from "../db/statements";
import { run, upsertRows, type StoreDialect } from "../db/store-dialect";
import { LEAD_FORECAST_COLUMNS, sourcesOver, type ObservationStore } from "./store";

export function drizzleObservationStore({ db, tables: { buoyLeadForecasts, observationSources }, write, exclusive, binary, chunks }: StoreDialect): ObservationStore {
  const leadColumns = columnsOf(buoyLeadForecasts, LEAD_FORECAST_COLUMNS);
  const leadKey = [buoyLeadForecasts.buoyId, buoyLeadForecasts.model, buoyLeadForecasts.issuedAt, buoyLeadForecasts.hour];
  return {
    ...sourcesOver({
      read: async (key) => {
        const [row] = await db.select({ body: observationSources.body }).from(observationSources).where(eq(observationSources.key, key));
        return row?.body ?? null;
      },
      write: async (key, body, checkedAt) => {
        await db
          .insert(observationSources)
          .values({ key, body, checkedAt })
          .onConflictDoUpdate({ target: observationSources.key, set: excludedAll({ body: observationSources.body, checkedAt: observationSources.checkedAt }) });
      },
      // The prefixes are fixed words (store.ts SOURCE_KEYS): no LIKE wildcard in them.
      keysCheckedSince: async (prefix, since) =>
        (await db.select({ key: observationSources.key }).from(observationSources).where(and(like(observationSources.key, `${prefix}%`), gte(observationSources.checkedAt, since)))).map((row) => row.key),
    }),
    addLeadForecasts: (buoyId, forecasts, keepFrom) =>
      write(function* (tx) {
        // One writer per buoy at a time: two servers deleting and inserting the same buoy's rows at once would otherwise deadlock, where they must wait.
        yield* exclusive(tx, `buoy_lead_forecasts ${buoyId}`);
        yield* run(tx.delete(buoyLeadForecasts).where(and(eq(buoyLeadForecasts.buoyId, buoyId), lt(buoyLeadForecasts.hour, keepFrom))));
        const kept = forecasts.filter((f) => f.time >= keepFrom);
        const rows = upsertRows(kept, (f) => `${f.model}/${f.issuedAt}/${f.time}`).map((f) => ({ buoyId, model: f.model, issuedAt: f.issuedAt, hour: f.time, waveHeight: f.waveHeight }));
        for (const chunk of chunks(rows, buoyLeadForecasts)) {
          yield* run(tx.insert(buoyLeadForecasts).values(chunk).onConflictDoUpdate({ target: leadKey, set: excludedAll({ waveHeight: buoyLeadForecasts.waveHeight }) }));
        }
      }),
    leadForecasts: (buoyId, from, to) =>
      db
        .select(leadColumns)
        .from(buoyLeadForecasts)
        .where(and(eq(buoyLeadForecasts.buoyId, buoyId), gte(buoyLeadForecasts.hour, from), lt(buoyLeadForecasts.hour, to)))
        .orderBy(buoyLeadForecasts.hour, buoyLeadForecasts.issuedAt, binary(buoyLeadForecasts.model)),
  };
}
