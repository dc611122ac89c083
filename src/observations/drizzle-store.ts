/**
 * The observation store (./store.ts) through drizzle, on either database (db/store-dialect.ts). A source is one row,
 * replaced whole by one upsert (two servers saving it at once: the later waits, then wins); a refresh's issued
 * forecasts and the drop of the old ones are one transaction, its rows upserted in key order so that two servers
 * writing the same buoy wait for each other instead of deadlocking.
 */
import { and, eq, gte, like, lt } from "drizzle-orm";
import { columnsOf, excludedAll } from "../db/statements";
import { run, upsertRows, type StoreDialect } from "../db/store-dialect";
import { LEAD_FORECAST_COLUMNS, SOURCE_KEYS, type ObservationStore } from "./store";

const HINDCAST_PREFIX = SOURCE_KEYS.hindcast("");

export function drizzleObservationStore({ db, tables: { buoyLeadForecasts, observationSources }, write, exclusive, binary, chunks }: StoreDialect): ObservationStore {
  const leadColumns = columnsOf(buoyLeadForecasts, LEAD_FORECAST_COLUMNS);
  const leadKey = [buoyLeadForecasts.buoyId, buoyLeadForecasts.model, buoyLeadForecasts.issuedAt, buoyLeadForecasts.hour];
  const source = async <T>(key: string): Promise<T | null> => {
    const [row] = await db.select({ body: observationSources.body }).from(observationSources).where(eq(observationSources.key, key));
    return row ? (JSON.parse(row.body) as T) : null;
  };
  /** Replaces the source's JSON; its last attempt is kept beside it for the operator. */
  const save = async (key: string, value: { checkedAt: number }) => {
    const replaced = excludedAll({ body: observationSources.body, checkedAt: observationSources.checkedAt });
    await db.insert(observationSources).values({ key, body: JSON.stringify(value), checkedAt: value.checkedAt }).onConflictDoUpdate({ target: observationSources.key, set: replaced });
  };
  return {
    stationTable: () => source(SOURCE_KEYS.stations),
    saveStationTable: (table) => save(SOURCE_KEYS.stations, table),
    buoy: (id) => source(SOURCE_KEYS.buoy(id)),
    saveBuoy: (buoy) => save(SOURCE_KEYS.buoy(buoy.id), buoy),
    hindcast: (buoyId) => source(SOURCE_KEYS.hindcast(buoyId)),
    saveHindcast: (buoyId, hindcast) => save(SOURCE_KEYS.hindcast(buoyId), hindcast),
    async hindcastBuoys(since) {
      // The prefix is a fixed word: no LIKE wildcard in it.
      const rows = await db.select({ key: observationSources.key }).from(observationSources).where(and(like(observationSources.key, `${HINDCAST_PREFIX}%`), gte(observationSources.checkedAt, since)));
      return rows.map((row) => row.key.slice(HINDCAST_PREFIX.length)).sort();
    },
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
