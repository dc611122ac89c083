/**
 * Tide rows: the station chosen per spot (spot_tide_station), the stored extremes (tide_extremes, and the sea-level
 * model's in tide_model_extremes), the model readings (spot_tide_model), the chosen stations' records (tide_stations)
 * and the window bounds (meta, db/meta.ts). Every statement is prepared once; serving a spot is one indexed range read.
 * `stamp()` changes whenever those rows (or a spot's import override) may have changed — a write through this store,
 * or a commit by another process, noticed within about a second — so the service can keep responses between writes.
 */
import { and, eq, gte, isNotNull, lt, sql } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { externalWrites, type ExternalWrites } from "../db/changes";
import { readMeta, writeMeta } from "../db/meta";
import { spots, spotTideModel, spotTideStation, tideExtremes, tideModelExtremes, tideStations } from "../db/schema";
import { columnsOf, excluded, excludedAll, placeholders, preparedRows } from "../db/statements";
import type { StationChoice } from "./stations";
import type { StationRecord } from "./record";
import type { ModelReading } from "./source";
import type { TideWindow } from "./window";
import { roundHeight, type PredictedExtreme } from "./prediction";
import { CHOICE_COLUMNS, MODEL_COLUMNS, TIDE_META, windowBounds, windowOf } from "./store-meta";

/** A spot_tide_station row as the service uses it. */
export interface StoredChoice {
  tideless: boolean;
  stationId: string | null;
  stationName: string | null;
  stationSource: string | null;
  distanceKm: number | null;
  datum: string | null;
  reason: string;
}

/** A spot_tide_model row as the service uses it. */
export interface StoredModel extends ModelReading {
  since: number;
  fetchedAt: number;
}

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

export class TideStore {
  private readonly q;
  private readonly stationExtremeRows;
  private readonly modelExtremeRows;
  /** Writes through this store (this connection's commits do not move data_version). */
  private writes = 0;
  private readonly changes: ExternalWrites;

  constructor(private readonly db: Db) {
    this.changes = externalWrites(db);
    this.stationExtremeRows = extremesStatements(db, tideExtremes);
    this.modelExtremeRows = extremesStatements(db, tideModelExtremes);
    const spotId = sql.placeholder("spotId");
    this.q = {
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
  }

  extremes(spotId: string, from: number, to: number) {
    return this.stationExtremeRows.range.all({ spotId, from, to });
  }

  /** Time of the first stored extreme at or after `from`, if any. */
  nextExtremeTime(spotId: string, from: number): number | null {
    return this.stationExtremeRows.next.get({ spotId, from })?.time ?? null;
  }

  /** Grows with every write through this store and every commit noticed from another connection (both only grow). */
  stamp(): number {
    return this.writes + this.changes.generation();
  }

  choice(spotId: string): StoredChoice | null {
    return this.q.choice.get({ spotId }) ?? null;
  }

  allChoices(): Map<string, StoredChoice> {
    return new Map(this.q.allChoices.all().map(({ spotId, ...choice }) => [spotId, choice]));
  }

  /** The import's tideless flag for a spot (null = follow the station rule). */
  override(spotId: string): boolean | null {
    return this.q.override.get({ spotId })?.tideless ?? null;
  }

  overrides(): Map<string, boolean> {
    return new Map(this.q.overrides.all().map((r) => [r.id, r.tideless!]));
  }

  /** Stores a spot's station choice (see storedChoiceOf); a tideless spot loses its extremes. */
  putChoice(spotId: string, row: StoredChoice, now: number): void {
    this.writes++;
    writeTransaction(this.db, () => {
      this.q.putChoice.run({ spotId, ...row, computedAt: now });
      if (row.tideless) this.stationExtremeRows.clearSpot.run({ spotId });
    });
  }

  /** Replaces a spot's extremes in [from, to) with `extremes` (heights rounded to the millimetre). */
  putExtremes(spotId: string, from: number, to: number, extremes: PredictedExtreme[]): void {
    this.writes++;
    this.stationExtremeRows.clearRange.run({ spotId, from, to });
    for (const e of extremes) this.stationExtremeRows.put.run({ spotId, time: e.time, type: e.type, height: roundHeight(e.height) });
  }

  /** What the model said at a spot at the last refresh that fetched it; null if never. */
  model(spotId: string): StoredModel | null {
    return this.q.model.get({ spotId }) ?? null;
  }

  /** Stores a model reading and replaces the spot's model extremes from `from` on (the fetched window's start). */
  putModel(spotId: string, reading: StoredModel, from: number, extremes: PredictedExtreme[]): void {
    this.writes++;
    this.q.putModel.run({ spotId, ...reading });
    this.modelExtremeRows.clearFrom.run({ spotId, from });
    for (const e of extremes) this.modelExtremeRows.put.run({ spotId, time: e.time, type: e.type, height: roundHeight(e.height) });
  }

  modelExtremes(spotId: string, from: number, to: number) {
    return this.modelExtremeRows.range.all({ spotId, from, to });
  }

  nextModelExtremeTime(spotId: string, from: number): number | null {
    return this.modelExtremeRows.next.get({ spotId, from })?.time ?? null;
  }

  /** Runs `work` in one transaction (a batch of spots is written at once). */
  batch(work: () => void): void {
    writeTransaction(this.db, work);
  }

  prune(before: number): void {
    this.writes++;
    this.stationExtremeRows.prune.run({ before });
    this.modelExtremeRows.prune.run({ before });
  }

  /** Drops every stored choice and station record (the station rule or the database changed); extremes are rewritten by the next full pass. */
  forgetChoices(): void {
    this.writes++;
    this.q.forgetChoices.run();
    this.q.forgetRecords.run();
  }

  /** A chosen station's record (what predicting it needs), or null if not stored. */
  stationRecord(stationId: string): StationRecord | null {
    const row = this.q.record.get({ id: stationId });
    return row ? (JSON.parse(row.record) as StationRecord) : null;
  }

  putStationRecord(record: StationRecord): void {
    this.q.putRecord.run({ id: record.id, record: JSON.stringify(record) });
  }

  window(): TideWindow | null {
    return windowOf(readMeta(this.db, TIDE_META.windowStart), readMeta(this.db, TIDE_META.windowEnd));
  }

  setWindow(w: TideWindow): void {
    const { start, end } = windowBounds(w);
    writeMeta(this.db, TIDE_META.windowStart, start);
    writeMeta(this.db, TIDE_META.windowEnd, end);
  }

  rule(): string | null {
    return readMeta(this.db, TIDE_META.rule);
  }

  setRule(rule: string): void {
    writeMeta(this.db, TIDE_META.rule, rule);
  }
}

/** A station choice as the store keeps it (distance rounded to 100 m). */
export function storedChoiceOf(choice: StationChoice): StoredChoice {
  const s = choice.station;
  return {
    tideless: choice.tideless,
    stationId: s?.id ?? null,
    stationName: s?.name ?? null,
    stationSource: s?.source ?? null,
    distanceKm: s ? Math.round(s.distanceKm * 10) / 10 : null,
    datum: s?.datum ?? null,
    reason: choice.reason,
  };
}
