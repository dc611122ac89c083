/**
 * The tide store (store.ts) on SQLite: drizzle-store.ts over bun:sqlite, with the reads a tide or "now" answer makes
 * prepared once and their rows built without drizzle's general row mapping (`preparedRows`), and the extremes written
 * through prepared upserts. Commits by another process are noticed within about a second (db/changes.ts).
 */
import { and, eq, gte, lt, sql } from "drizzle-orm";
import type { Db } from "../db";
import { externalWrites } from "../db/changes";
import { spots, spotTideModel, spotTideStation, tideExtremes, tideModelExtremes } from "../db/schema";
import { columnsOf, excludedAll, placeholders, preparedRows } from "../db/statements";
import { sqliteDialect } from "../db/store-dialect";
import { drizzleTideStore, type ExtremeRowsWriter, type ExtremesKind } from "./drizzle-store";
import { CHOICE_COLUMNS, MODEL_COLUMNS, type TideStore } from "./store";

const spotId = sql.placeholder("spotId");

function extremesReads(db: Db, table: typeof tideExtremes) {
  const ofSpot = and(eq(table.spotId, spotId), gte(table.time, sql.placeholder("from")));
  const range = preparedRows({ time: table.time, type: table.type, height: table.height }, (fields) => db.select(fields).from(table).where(and(ofSpot, lt(table.time, sql.placeholder("to")))).orderBy(table.time).prepare());
  const next = preparedRows({ time: table.time }, (fields) => db.select(fields).from(table).where(ofSpot).orderBy(table.time).limit(1).prepare());
  return {
    range: async (spotId: string, from: number, to: number) => range.all({ spotId, from, to }),
    next: async (spotId: string, from: number) => next.get({ spotId, from })?.time ?? null,
  };
}

/**
 * The extremes upserted row by row through one prepared statement per table: the tide pass writes a few hundred
 * thousand rows, and building and preparing a multi-row statement per spot cost more than the writes. It runs
 * inside the write transaction the dialect holds open; bun:sqlite answers at once, so there is nothing to yield.
 */
function preparedExtremeUpserts(db: Db): ExtremeRowsWriter {
  const upsert = (table: typeof tideExtremes) =>
    db
      .insert(table)
      .values(placeholders({ spotId: table.spotId, time: table.time, type: table.type, height: table.height }))
      .onConflictDoUpdate({ target: [table.spotId, table.time], set: excludedAll({ type: table.type, height: table.height }) })
      .prepare();
  const statements: Record<ExtremesKind, ReturnType<typeof upsert>> = { station: upsert(tideExtremes), model: upsert(tideModelExtremes) };
  return function* (_tx, kind, rows) {
    for (const row of rows) statements[kind].run(row);
  };
}

export function sqliteTideStore(db: Db): TideStore {
  const station = extremesReads(db, tideExtremes);
  const model = extremesReads(db, tideModelExtremes);
  const choice = preparedRows(columnsOf(spotTideStation, CHOICE_COLUMNS), (fields) => db.select(fields).from(spotTideStation).where(eq(spotTideStation.spotId, spotId)).prepare());
  const override = preparedRows({ tideless: spots.tidelessOverride }, (fields) => db.select(fields).from(spots).where(eq(spots.id, spotId)).prepare());
  const reading = preparedRows(columnsOf(spotTideModel, MODEL_COLUMNS), (fields) => db.select(fields).from(spotTideModel).where(eq(spotTideModel.spotId, spotId)).prepare());
  return {
    ...drizzleTideStore(sqliteDialect(db), externalWrites(db), preparedExtremeUpserts(db)),
    extremes: station.range,
    nextExtremeTime: station.next,
    modelExtremes: model.range,
    nextModelExtremeTime: model.next,
    choice: async (spotId) => choice.get({ spotId }) ?? null,
    override: async (spotId) => override.get({ spotId })?.tideless ?? null,
    model: async (spotId) => reading.get({ spotId }) ?? null,
  };
}
