/**
 * The observation store (./store.ts) on the shared PostgreSQL database, for several servers at once. A source is one
 * row, replaced whole by one upsert (two servers saving it at once: the later waits, then wins); a refresh's issued
 * forecasts and the drop of the old ones are one transaction, its rows upserted in key order so that two servers
 * writing the same buoy wait for each other instead of deadlocking.
 */
import { and, asc, eq, gte, like, lt, sql } from "drizzle-orm";
import { insertChunks, upsertRows } from "../db/postgres/batch-rows";
import { buoyLeadForecasts, observationSources } from "../db/postgres/schema";
import { inTransaction, type PgQueryable } from "../db/postgres/transaction";
import { columnsOf, excludedAll } from "../db/statements";
import { LEAD_FORECAST_COLUMNS, sourcesOver, type ObservationStore } from "./store";

const leadColumns = columnsOf(buoyLeadForecasts, LEAD_FORECAST_COLUMNS);
const leadKey = [buoyLeadForecasts.buoyId, buoyLeadForecasts.model, buoyLeadForecasts.issuedAt, buoyLeadForecasts.hour];

export function postgresObservationStore(db: PgQueryable): ObservationStore {
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
      inTransaction(db, async (tx) => {
        // One writer per buoy at a time (the lock ends with the transaction): two servers deleting and inserting the
        // same buoy's rows at once would otherwise deadlock, where they must wait.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`buoy_lead_forecasts ${buoyId}`}))`);
        await tx.delete(buoyLeadForecasts).where(and(eq(buoyLeadForecasts.buoyId, buoyId), lt(buoyLeadForecasts.hour, keepFrom)));
        const kept = forecasts.filter((f) => f.time >= keepFrom);
        const rows = upsertRows(kept, (f) => `${f.model}/${f.issuedAt}/${f.time}`).map((f) => ({ buoyId, model: f.model, issuedAt: f.issuedAt, hour: f.time, waveHeight: f.waveHeight }));
        for (const chunk of insertChunks(buoyLeadForecasts, rows)) {
          await tx.insert(buoyLeadForecasts).values(chunk).onConflictDoUpdate({ target: leadKey, set: excludedAll({ waveHeight: buoyLeadForecasts.waveHeight }) });
        }
      }),
    leadForecasts: (buoyId, from, to) =>
      db
        .select(leadColumns)
        .from(buoyLeadForecasts)
        .where(and(eq(buoyLeadForecasts.buoyId, buoyId), gte(buoyLeadForecasts.hour, from), lt(buoyLeadForecasts.hour, to)))
        // Models in code-point order on a tie, as SQLite's binary collation sorts them.
        .orderBy(asc(buoyLeadForecasts.hour), asc(buoyLeadForecasts.issuedAt), asc(sql`${buoyLeadForecasts.model} collate "C"`)),
  };
}
