/**
 * The tide store on SQLite. Every statement is prepared once; serving a spot is one indexed range read. Each answer is
 * had at once and handed over as a settled promise. The stamp moves with every write through this store and with
 * every commit by another process, noticed within about a second (db/changes.ts).
 */
import { and, eq, gte, isNotNull, lt, sql } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { externalWrites } from "../db/changes";
import { readMeta, writeMeta } from "../db/meta";
import { spots, spotTideModel, spotTideStation, tideExtremes, tideModelExtremes, tideStations } from "../db/schema";
import { columnsOf, excluded, excludedAll, placeholders, preparedRows } from "../db/statements";
import type { StationRecord } from "./record";
import { roundHeight } from "./prediction";
import { CHOICE_COLUMNS, MODEL_COLUMNS, TIDE_META, windowBounds, windowOf, type TideStore, type TideWrites } from "./store";

const choiceColumns = columnsOf(spotTideStation, CHOICE_COLUMNS);
const modelColumns = columnsOf(spotTideModel, MODEL_COLUMNS);

/**
 * The statements of one extremes table (the stations' or the sea-level model's). Here and below, the reads a tide
 * or "now" answer makes are `preparedRows`: their rows are built without drizzle's general row mapping.
 */
function extremesStatements(db: Db, table: typeof tideExtremes) {
  const ofSpot = eq(table.spotId, sql.placeholder("spotId"));
  const from = gte(table.time, sql.placeholder("from"));
  const before = lt(table.time, sql.placeholder("to"));
  return {
    range: preparedRows({ time: table.time, type: table.type, height: table.height }, (fields) =>
      db.select(fields).from(table).where(and(ofSpot, from, before)).orderBy(table.time).prepare(),
    ),
    next: preparedRows({ time: table.time }, (fields) => db.select(fields).from(table).where(and(ofSpot, from)).orderBy(table.time).limit(1).prepare()),
    put: db
      .insert(table)
      .values({ spotId: sql.placeholder("spotId"), ...placeholders({ time: table.time, type: table.type, height: table.height }) })
      .onConflictDoUpdate({ target: [table.spotId, table.time], set: excludedAll({ type: table.type, height: table.height }) })
      .prepare(),
    clearRange: db.delete(table).where(and(ofSpot, from, before)).prepare(),
    clearFrom: db.delete(table).where(and(ofSpot, from)).prepare(),
    clearSpot: db.delete(table).where(ofSpot).prepare(),
    prune: db.delete(table).where(lt(table.time, sql.placeholder("before"))).prepare(),
  };
}

/** The writes done at once: the store's own run each as it is asked, a batch's all together in one transaction. */
type WritesNow = { [K in keyof TideWrites]: (...args: Parameters<TideWrites[K]>) => void };

/** `writes` answering promises, each run through `run` (which may run it at once, or queue it). */
function promised(writes: WritesNow, run: (write: () => void) => Promise<void>): TideWrites {
  const each = Object.entries(writes).map(([name, write]) => [name, (...args: never[]) => run(() => (write as (...args: never[]) => void)(...args))]);
  return Object.fromEntries(each) as TideWrites;
}

/** The tide store on SQLite's connection `db`. */
export function sqliteTideStore(db: Db): TideStore {
  const changes = externalWrites(db);
  const station = extremesStatements(db, tideExtremes);
  const model = extremesStatements(db, tideModelExtremes);
  const spotId = sql.placeholder("spotId");
  const q = {
    choice: preparedRows(choiceColumns, (fields) => db.select(fields).from(spotTideStation).where(eq(spotTideStation.spotId, spotId)).prepare()),
    allChoices: db.select({ spotId: spotTideStation.spotId, ...choiceColumns }).from(spotTideStation).prepare(),
    putChoice: db
      .insert(spotTideStation)
      .values({ spotId, ...placeholders({ ...choiceColumns, computedAt: spotTideStation.computedAt }) })
      .onConflictDoUpdate({ target: spotTideStation.spotId, set: excludedAll({ ...choiceColumns, computedAt: spotTideStation.computedAt }) })
      .prepare(),
    forgetChoices: db.delete(spotTideStation).prepare(),
    override: preparedRows({ tideless: spots.tidelessOverride }, (fields) => db.select(fields).from(spots).where(eq(spots.id, spotId)).prepare()),
    overrides: db.select({ id: spots.id, tideless: spots.tidelessOverride }).from(spots).where(isNotNull(spots.tidelessOverride)).prepare(),
    model: preparedRows(modelColumns, (fields) => db.select(fields).from(spotTideModel).where(eq(spotTideModel.spotId, spotId)).prepare()),
    putModel: db
      .insert(spotTideModel)
      .values({ spotId, ...placeholders(modelColumns) })
      .onConflictDoUpdate({ target: spotTideModel.spotId, set: excludedAll(modelColumns) })
      .prepare(),
    record: db.select({ record: tideStations.record }).from(tideStations).where(eq(tideStations.id, sql.placeholder("id"))).prepare(),
    putRecord: db
      .insert(tideStations)
      .values({ id: sql.placeholder("id"), record: sql.placeholder("record") })
      .onConflictDoUpdate({ target: tideStations.id, set: { record: excluded(tideStations.record) } })
      .prepare(),
    forgetRecords: db.delete(tideStations).prepare(),
  };
  const now: WritesNow = {
    putChoice: (spotId, row, now) =>
      writeTransaction(db, () => {
        q.putChoice.run({ spotId, ...row, computedAt: now });
        if (row.tideless) station.clearSpot.run({ spotId });
      }),
    putExtremes: (spotId, from, to, extremes) => {
      station.clearRange.run({ spotId, from, to });
      for (const e of extremes) station.put.run({ spotId, time: e.time, type: e.type, height: roundHeight(e.height) });
    },
    putModel: (spotId, reading, from, extremes) => {
      q.putModel.run({ spotId, ...reading });
      model.clearFrom.run({ spotId, from });
      for (const e of extremes) model.put.run({ spotId, time: e.time, type: e.type, height: roundHeight(e.height) });
    },
    putStationRecord: (record) => q.putRecord.run({ id: record.id, record: JSON.stringify(record) }),
    prune: (before) => {
      station.prune.run({ before });
      model.prune.run({ before });
    },
    setWindow: (w) => {
      const { start, end } = windowBounds(w);
      writeMeta(db, TIDE_META.windowStart, start);
      writeMeta(db, TIDE_META.windowEnd, end);
    },
  };
  /** Writes through this store (this connection's commits do not move data_version). */
  let writes = 0;
  const counted = async (write: () => void) => {
    writes++;
    write();
  };
  return {
    stamp: () => writes + changes.generation(),
    extremes: async (spotId, from, to) => station.range.all({ spotId, from, to }),
    nextExtremeTime: async (spotId, from) => station.next.get({ spotId, from })?.time ?? null,
    modelExtremes: async (spotId, from, to) => model.range.all({ spotId, from, to }),
    nextModelExtremeTime: async (spotId, from) => model.next.get({ spotId, from })?.time ?? null,
    choice: async (spotId) => q.choice.get({ spotId }) ?? null,
    allChoices: async () => new Map(q.allChoices.all().map(({ spotId, ...choice }) => [spotId, choice])),
    override: async (spotId) => q.override.get({ spotId })?.tideless ?? null,
    overrides: async () => new Map(q.overrides.all().map((r) => [r.id, r.tideless!])),
    model: async (spotId) => q.model.get({ spotId }) ?? null,
    stationRecord: async (stationId) => {
      const row = q.record.get({ id: stationId });
      return row ? (JSON.parse(row.record) as StationRecord) : null;
    },
    ...promised(now, counted),
    // The batch's writes are queued while `work` runs, then run in one synchronous transaction: a transaction held
    // open across awaits would take in whatever else ran on this connection meanwhile.
    batch: async (work) => {
      const queued: (() => void)[] = [];
      await work(promised(now, async (write) => void queued.push(write)));
      if (queued.length) await counted(() => writeTransaction(db, () => queued.forEach((write) => write())));
    },
    forgetChoices: () =>
      counted(() => {
        q.forgetChoices.run();
        q.forgetRecords.run();
      }),
    window: async () => windowOf(readMeta(db, TIDE_META.windowStart), readMeta(db, TIDE_META.windowEnd)),
    rule: async () => readMeta(db, TIDE_META.rule),
    setRule: async (rule) => writeMeta(db, TIDE_META.rule, rule),
  };
}
