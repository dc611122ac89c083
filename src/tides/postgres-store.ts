/**
 * The tide tables on the shared PostgreSQL database: the counterpart of store.ts's TideStore, method for method,
 * for several servers at once. Writes that belong together (a choice and the extremes it clears, a spot's extremes
 * and the range they replace, a batch) are one transaction, so a reader sees them all or none.
 */
import { and, asc, eq, gte, isNotNull, lt } from "drizzle-orm";
import type { Promised } from "../db/async-store";
import { insertChunks, upsertRows } from "../db/postgres/batch-rows";
import { readMeta, writeMeta } from "../db/postgres/meta";
import { spots, spotTideModel, spotTideStation, tideExtremes, tideModelExtremes, tideStations } from "../db/postgres/schema";
import { inTransaction, readSnapshot, type PgQueryable, type PgTx } from "../db/postgres/transaction";
import { columnsOf, excluded, excludedAll } from "../db/statements";
import { notifyChange } from "../db/postgres/changes";
import { roundHeight, type PredictedExtreme } from "./prediction";
import type { StationRecord } from "./record";
import type { StoredChoice, StoredModel, TideStore } from "./store";
import { CHOICE_COLUMNS, MODEL_COLUMNS, TIDE_META, windowBounds, windowOf } from "./store-meta";
import type { TideWindow } from "./window";

/**
 * The tide store answering promises. Two members differ: the stamp stays synchronous (it is read per request, from
 * memory), and a batch hands its work the store to write through, since awaited writes cannot join a transaction by
 * running on the same connection, as SQLite's do.
 */
export type AsyncTideStore = { [K in Exclude<keyof TideStore, "stamp" | "batch">]: Promised<TideStore[K]> } & {
  stamp(): number;
  batch(work: (store: AsyncTideStore) => Promise<void>): Promise<void>;
};

/** How many times other servers' commits have been noticed (the shared database's change notices). */
export interface OtherWrites {
  generation(): number;
}

const choiceColumns = columnsOf(spotTideStation, CHOICE_COLUMNS);
const modelColumns = columnsOf(spotTideModel, MODEL_COLUMNS);

type ExtremesTable = typeof tideExtremes;

export class PostgresTideStore implements AsyncTideStore {
  /** Writes through this store and the stores of its batches, shared with them. */
  private writes = { count: 0 };
  /** A batch's store: its writes join the batch's transaction, which announces them. */
  private inBatch = false;

  constructor(
    private readonly db: PgQueryable,
    private readonly others: OtherWrites,
  ) {}

  async extremes(spotId: string, from: number, to: number) {
    return this.extremeRange(tideExtremes, spotId, from, to);
  }

  /** Time of the first stored extreme at or after `from`, if any. */
  nextExtremeTime(spotId: string, from: number): Promise<number | null> {
    return this.nextTime(tideExtremes, spotId, from);
  }

  /**
   * Grows with every write through this store, counted once it has committed (a reader that read before it then
   * holds an older stamp), and with every commit noticed from another server.
   */
  stamp(): number {
    return this.writes.count + this.others.generation();
  }

  async choice(spotId: string): Promise<StoredChoice | null> {
    const [row] = await this.db.select(choiceColumns).from(spotTideStation).where(eq(spotTideStation.spotId, spotId));
    return row ?? null;
  }

  async allChoices(): Promise<Map<string, StoredChoice>> {
    const rows = await this.db.select({ spotId: spotTideStation.spotId, ...choiceColumns }).from(spotTideStation);
    return new Map(rows.map(({ spotId, ...choice }) => [spotId, choice]));
  }

  /** The import's tideless flag for a spot (null = follow the station rule). */
  async override(spotId: string): Promise<boolean | null> {
    const [row] = await this.db.select({ tideless: spots.tidelessOverride }).from(spots).where(eq(spots.id, spotId));
    return row?.tideless ?? null;
  }

  async overrides(): Promise<Map<string, boolean>> {
    const rows = await this.db.select({ id: spots.id, tideless: spots.tidelessOverride }).from(spots).where(isNotNull(spots.tidelessOverride));
    return new Map(rows.map((r) => [r.id, r.tideless!]));
  }

  /** Stores a spot's station choice (see storedChoiceOf); a tideless spot loses its extremes. */
  async putChoice(spotId: string, row: StoredChoice, now: number): Promise<void> {
    const columns = { ...choiceColumns, computedAt: spotTideStation.computedAt };
    await this.write(async (tx) => {
      await tx.insert(spotTideStation).values({ spotId, ...row, computedAt: now }).onConflictDoUpdate({ target: spotTideStation.spotId, set: excludedAll(columns) });
      if (row.tideless) await tx.delete(tideExtremes).where(eq(tideExtremes.spotId, spotId));
    });
  }

  /** Replaces a spot's extremes in [from, to) with `extremes` (heights rounded to the millimetre). */
  async putExtremes(spotId: string, from: number, to: number, extremes: PredictedExtreme[]): Promise<void> {
    await this.write(async (tx) => {
      await tx.delete(tideExtremes).where(and(eq(tideExtremes.spotId, spotId), gte(tideExtremes.time, from), lt(tideExtremes.time, to)));
      await putExtremeRows(tx, tideExtremes, spotId, extremes);
    });
  }

  /** What the model said at a spot at the last refresh that fetched it; null if never. */
  async model(spotId: string): Promise<StoredModel | null> {
    const [row] = await this.db.select(modelColumns).from(spotTideModel).where(eq(spotTideModel.spotId, spotId));
    return row ?? null;
  }

  /** Stores a model reading and replaces the spot's model extremes from `from` on (the fetched window's start). */
  async putModel(spotId: string, reading: StoredModel, from: number, extremes: PredictedExtreme[]): Promise<void> {
    await this.write(async (tx) => {
      await tx.insert(spotTideModel).values({ spotId, ...reading }).onConflictDoUpdate({ target: spotTideModel.spotId, set: excludedAll(modelColumns) });
      await tx.delete(tideModelExtremes).where(and(eq(tideModelExtremes.spotId, spotId), gte(tideModelExtremes.time, from)));
      await putExtremeRows(tx, tideModelExtremes, spotId, extremes);
    });
  }

  async modelExtremes(spotId: string, from: number, to: number) {
    return this.extremeRange(tideModelExtremes, spotId, from, to);
  }

  nextModelExtremeTime(spotId: string, from: number): Promise<number | null> {
    return this.nextTime(tideModelExtremes, spotId, from);
  }

  /** Runs `work` in one transaction: what it writes through the store it is given commits together. */
  async batch(work: (store: AsyncTideStore) => Promise<void>): Promise<void> {
    await this.write((tx) => work(this.within(tx)));
  }

  async prune(before: number): Promise<void> {
    await this.write(async (tx) => {
      await tx.delete(tideExtremes).where(lt(tideExtremes.time, before));
      await tx.delete(tideModelExtremes).where(lt(tideModelExtremes.time, before));
    });
  }

  /** Drops every stored choice and station record (the station rule or the database changed); extremes are rewritten by the next full pass. */
  async forgetChoices(): Promise<void> {
    await this.write(async (tx) => {
      await tx.delete(spotTideStation);
      await tx.delete(tideStations);
    });
  }

  /** A chosen station's record (what predicting it needs), or null if not stored. */
  async stationRecord(stationId: string): Promise<StationRecord | null> {
    const [row] = await this.db.select({ record: tideStations.record }).from(tideStations).where(eq(tideStations.id, stationId));
    return row ? (JSON.parse(row.record) as StationRecord) : null;
  }

  async putStationRecord(record: StationRecord): Promise<void> {
    await this.db
      .insert(tideStations)
      .values({ id: record.id, record: JSON.stringify(record) })
      .onConflictDoUpdate({ target: tideStations.id, set: { record: excluded(tideStations.record) } });
  }

  window(): Promise<TideWindow | null> {
    return readSnapshot(this.db, async (tx) => windowOf(await readMeta(tx, TIDE_META.windowStart), await readMeta(tx, TIDE_META.windowEnd)));
  }

  async setWindow(w: TideWindow): Promise<void> {
    const { start, end } = windowBounds(w);
    await this.write(async (tx) => {
      await writeMeta(tx, TIDE_META.windowStart, start);
      await writeMeta(tx, TIDE_META.windowEnd, end);
    });
  }

  rule(): Promise<string | null> {
    return readMeta(this.db, TIDE_META.rule);
  }

  async setRule(rule: string): Promise<void> {
    await writeMeta(this.db, TIDE_META.rule, rule);
  }

  /**
   * Runs a write in one transaction (joining the batch's, inside one) and counts it once it is done. The outermost
   * transaction announces the change, once, so other servers' stamps move too.
   */
  private async write(work: (tx: PgTx) => Promise<void>): Promise<void> {
    await inTransaction(this.db, async (tx) => {
      await work(tx);
      if (!this.inBatch) await notifyChange(tx, "tides");
    });
    this.writes.count++;
  }

  /** This store on a batch's transaction, counting its writes with this one's. */
  private within(tx: PgTx): PostgresTideStore {
    const store = new PostgresTideStore(tx, this.others);
    store.writes = this.writes;
    store.inBatch = true;
    return store;
  }

  private async extremeRange(table: ExtremesTable, spotId: string, from: number, to: number) {
    return await this.db
      .select({ time: table.time, type: table.type, height: table.height })
      .from(table)
      .where(and(eq(table.spotId, spotId), gte(table.time, from), lt(table.time, to)))
      .orderBy(asc(table.time));
  }

  private async nextTime(table: ExtremesTable, spotId: string, from: number): Promise<number | null> {
    const [row] = await this.db
      .select({ time: table.time })
      .from(table)
      .where(and(eq(table.spotId, spotId), gte(table.time, from)))
      .orderBy(asc(table.time))
      .limit(1);
    return row?.time ?? null;
  }
}

/** Upserts a spot's extremes into one of the extremes tables (the last of each time, as SQLite's row-by-row upserts keep). */
async function putExtremeRows(tx: PgTx, table: ExtremesTable, spotId: string, extremes: readonly PredictedExtreme[]): Promise<void> {
  const rows = upsertRows(extremes, (e) => String(e.time)).map((e) => ({ spotId, time: e.time, type: e.type, height: roundHeight(e.height) }));
  for (const chunk of insertChunks(table, rows)) {
    await tx.insert(table).values(chunk).onConflictDoUpdate({ target: [table.spotId, table.time], set: excludedAll({ type: table.type, height: table.height }) });
  }
}
