/**
 * The tide store (./store.ts) through drizzle, on either database (db/store-dialect.ts). Writes that belong together
 * (a choice and the extremes it clears, a spot's extremes and the range they replace, a batch) are one transaction,
 * so a reader sees them all or none; each announces itself on the "tides" topic. The stamp moves with every write
 * through this store, once it has committed, and with every commit noticed from another connection or server.
 */
import { and, eq, gte, isNotNull, lt } from "drizzle-orm";
import type { PgQueryable } from "../db/postgres/transaction";
import { columnsOf, excluded, excludedAll } from "../db/statements";
import { readMeta, run, upsertRows, writeMeta, type StoreDialect, type Tables, type Work } from "../db/store-dialect";
import { roundHeight, type PredictedExtreme } from "./prediction";
import type { StationRecord } from "./record";
import { CHOICE_COLUMNS, MODEL_COLUMNS, TIDE_META, windowBounds, windowOf, type TideStore, type TideWrites } from "./store";

/** How many times commits by other connections or servers have been noticed. */
export interface OtherWrites {
  generation(): number;
}

type ExtremesTable = Tables["tideExtremes"];
type Write = (tx: PgQueryable) => Work<void>;

/** One stored extreme: a spot's high or low water at a time. */
type ExtremeRow = Tables["tideExtremes"]["$inferInsert"];

/** The station's extremes (`tide_extremes`) or the model's (`tide_model_extremes`). */
export type ExtremesKind = "station" | "model";

/**
 * Upserts extreme rows (one per spot and time) within the transaction `tx`. The tide pass writes a few hundred
 * thousand at a time: a database may bring a faster way than the multi-row statements built here.
 */
export type ExtremeRowsWriter = (tx: PgQueryable, kind: ExtremesKind, rows: readonly ExtremeRow[]) => Work<void>;

export function drizzleTideStore(dialect: StoreDialect, others: OtherWrites, writeExtremeRows: ExtremeRowsWriter = upsertInChunks(dialect)): TideStore {
  const { db, tables, direct, write, read, notify } = dialect;
  const { spots, spotTideModel, spotTideStation, tideExtremes, tideModelExtremes, tideStations } = tables;
  const choiceColumns = columnsOf(spotTideStation, CHOICE_COLUMNS);
  const modelColumns = columnsOf(spotTideModel, MODEL_COLUMNS);
  const range = (table: ExtremesTable, spotId: string, from: number, to: number) =>
    db
      .select({ time: table.time, type: table.type, height: table.height })
      .from(table)
      .where(and(eq(table.spotId, spotId), gte(table.time, from), lt(table.time, to)))
      .orderBy(table.time);
  const nextTime = async (table: ExtremesTable, spotId: string, from: number) => {
    const [row] = await db
      .select({ time: table.time })
      .from(table)
      .where(and(eq(table.spotId, spotId), gte(table.time, from)))
      .orderBy(table.time)
      .limit(1);
    return row?.time ?? null;
  };
  /** Upserts a spot's extremes (the last of each time, as a row-by-row upsert keeps). */
  function* putExtremeRows(tx: PgQueryable, kind: ExtremesKind, spotId: string, extremes: readonly PredictedExtreme[]) {
    yield* writeExtremeRows(tx, kind, upsertRows(extremes, (e) => String(e.time)).map((e) => ({ spotId, time: e.time, type: e.type, height: roundHeight(e.height) })));
  }
  /** Each write as a transaction's work, run alone or with the rest of a batch. */
  const works = {
    *putChoice(tx: PgQueryable, spotId: string, row: Parameters<TideWrites["putChoice"]>[1], now: number) {
      const columns = { ...choiceColumns, computedAt: spotTideStation.computedAt };
      yield* run(tx.insert(spotTideStation).values({ spotId, ...row, computedAt: now }).onConflictDoUpdate({ target: spotTideStation.spotId, set: excludedAll(columns) }));
      if (row.tideless) yield* run(tx.delete(tideExtremes).where(eq(tideExtremes.spotId, spotId)));
    },
    *putExtremes(tx: PgQueryable, spotId: string, from: number, to: number, extremes: readonly PredictedExtreme[]) {
      yield* run(tx.delete(tideExtremes).where(and(eq(tideExtremes.spotId, spotId), gte(tideExtremes.time, from), lt(tideExtremes.time, to))));
      yield* putExtremeRows(tx, "station", spotId, extremes);
    },
    *putModel(tx: PgQueryable, spotId: string, reading: Parameters<TideWrites["putModel"]>[1], from: number, extremes: readonly PredictedExtreme[]) {
      yield* run(tx.insert(spotTideModel).values({ spotId, ...reading }).onConflictDoUpdate({ target: spotTideModel.spotId, set: excludedAll(modelColumns) }));
      yield* run(tx.delete(tideModelExtremes).where(and(eq(tideModelExtremes.spotId, spotId), gte(tideModelExtremes.time, from))));
      yield* putExtremeRows(tx, "model", spotId, extremes);
    },
    *putStationRecord(tx: PgQueryable, record: StationRecord) {
      yield* run(tx.insert(tideStations).values({ id: record.id, record: JSON.stringify(record) }).onConflictDoUpdate({ target: tideStations.id, set: { record: excluded(tideStations.record) } }));
    },
    *prune(tx: PgQueryable, before: number) {
      yield* run(tx.delete(tideExtremes).where(lt(tideExtremes.time, before)));
      yield* run(tx.delete(tideModelExtremes).where(lt(tideModelExtremes.time, before)));
    },
    *setWindow(tx: PgQueryable, window: Parameters<TideWrites["setWindow"]>[0]) {
      const { start, end } = windowBounds(window);
      yield* writeMeta(tables, tx, TIDE_META.windowStart, start);
      yield* writeMeta(tables, tx, TIDE_META.windowEnd, end);
    },
    *forgetChoices(tx: PgQueryable) {
      yield* run(tx.delete(spotTideStation));
      yield* run(tx.delete(tideStations));
    },
  };
  let writes = 0;
  /** Runs the writes in one transaction that announces them, then counts it: a reader that read before the commit holds an older stamp. */
  const commit = async (queued: readonly Write[]) => {
    await write(function* (tx) {
      for (const work of queued) yield* work(tx);
      yield* notify(tx, "tides");
    });
    writes++;
  };
  /** The writes, each handing its work to `take`. */
  const writesThrough = (take: (work: Write) => Promise<void>): TideWrites => ({
    putChoice: (...args) => take((tx) => works.putChoice(tx, ...args)),
    putExtremes: (...args) => take((tx) => works.putExtremes(tx, ...args)),
    putModel: (...args) => take((tx) => works.putModel(tx, ...args)),
    putStationRecord: (...args) => take((tx) => works.putStationRecord(tx, ...args)),
    prune: (...args) => take((tx) => works.prune(tx, ...args)),
    setWindow: (...args) => take((tx) => works.setWindow(tx, ...args)),
  });

  return {
    stamp: () => writes + others.generation(),
    extremes: (spotId, from, to) => range(tideExtremes, spotId, from, to),
    nextExtremeTime: (spotId, from) => nextTime(tideExtremes, spotId, from),
    modelExtremes: (spotId, from, to) => range(tideModelExtremes, spotId, from, to),
    nextModelExtremeTime: (spotId, from) => nextTime(tideModelExtremes, spotId, from),
    async choice(spotId) {
      const [row] = await db.select(choiceColumns).from(spotTideStation).where(eq(spotTideStation.spotId, spotId));
      return row ?? null;
    },
    async allChoices() {
      const rows = await db.select({ spotId: spotTideStation.spotId, ...choiceColumns }).from(spotTideStation);
      return new Map(rows.map(({ spotId, ...choice }) => [spotId, choice]));
    },
    async override(spotId) {
      const [row] = await db.select({ tideless: spots.tidelessOverride }).from(spots).where(eq(spots.id, spotId));
      return row?.tideless ?? null;
    },
    async overrides() {
      const rows = await db.select({ id: spots.id, tideless: spots.tidelessOverride }).from(spots).where(isNotNull(spots.tidelessOverride));
      return new Map(rows.map((r) => [r.id, r.tideless!]));
    },
    async model(spotId) {
      const [row] = await db.select(modelColumns).from(spotTideModel).where(eq(spotTideModel.spotId, spotId));
      return row ?? null;
    },
    async stationRecord(stationId) {
      const [row] = await db.select({ record: tideStations.record }).from(tideStations).where(eq(tideStations.id, stationId));
      return row ? (JSON.parse(row.record) as StationRecord) : null;
    },
    ...writesThrough((work) => commit([work])),
    // The batch's writes are queued while `work` runs, then run in one transaction: on SQLite a transaction held
    // open across awaits would take in whatever else ran on its connection meanwhile.
    batch: async (work) => {
      const queued: Write[] = [];
      await work(writesThrough(async (write) => void queued.push(write)));
      if (queued.length > 0) await commit(queued);
    },
    forgetChoices: () => commit([works.forgetChoices]),
    window: () =>
      read(function* (tx) {
        return windowOf(yield* readMeta(tables, tx, TIDE_META.windowStart), yield* readMeta(tables, tx, TIDE_META.windowEnd));
      }),
    rule: () => direct((tx) => readMeta(tables, tx, TIDE_META.rule)),
    setRule: (rule) => direct((tx) => writeMeta(tables, tx, TIDE_META.rule, rule)),
  };
}

/** Multi-row upserts, as many rows to a statement as the database binds. */
function upsertInChunks({ tables, chunks }: StoreDialect): ExtremeRowsWriter {
  const byKind: Record<ExtremesKind, ExtremesTable> = { station: tables.tideExtremes, model: tables.tideModelExtremes };
  return function* (tx, kind, rows) {
    const table = byKind[kind];
    for (const chunk of chunks(rows, table)) {
      yield* run(tx.insert(table).values(chunk).onConflictDoUpdate({ target: [table.spotId, table.time], set: excludedAll({ type: table.type, height: table.height }) }));
    }
  };
}
