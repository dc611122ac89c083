/**
 * The tide store (./store.ts) on the shared PostgreSQL database, for several servers at once. Writes that belong together (a choice and the extremes it clears, a spot's extremes
 * and the range they replace, a batch) are one transaction, so a reader sees them all or none.
 */
import { and, asc, eq, gte, isNotNull, lt } from "drizzle-orm";
import { insertChunks, upsertRows } from "../db/postgres/batch-rows";
import { readMeta, writeMeta } from "../db/postgres/meta";
import { spots, spotTideModel, spotTideStation, tideExtremes, tideModelExtremes, tideStations } from "../db/postgres/schema";
import { inTransaction, readSnapshot, type PgQueryable, type PgTx } from "../db/postgres/transaction";
import { columnsOf, excluded, excludedAll } from "../db/statements";
import { notifyChange } from "../db/postgres/changes";
import { roundHeight, type PredictedExtreme } from "./prediction";
import type { StationRecord } from "./record";
import { CHOICE_COLUMNS, MODEL_COLUMNS, TIDE_META, windowBounds, windowOf, type StoredChoice, type StoredModel, type TideStore, type TideWrites } from "./store";
import type { TideWindow } from "./window";

/** How many times other servers' commits have been noticed (the shared database's change notices). */
export interface OtherWrites {
  generation(): number;
}

const choiceColumns = columnsOf(spotTideStation, CHOICE_COLUMNS);
const modelColumns = columnsOf(spotTideModel, MODEL_COLUMNS);

type ExtremesTable = typeof tideExtremes;

export class PostgresTideStore implements TideStore {
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

  async override(spotId: string): Promise<boolean | null> {
    const [row] = await this.db.select({ tideless: spots.tidelessOverride }).from(spots).where(eq(spots.id, spotId));
    return row?.tideless ?? null;
  }

  async overrides(): Promise<Map<string, boolean>> {
    const rows = await this.db.select({ id: spots.id, tideless: spots.tidelessOverride }).from(spots).where(isNotNull(spots.tidelessOverride));
    return new Map(rows.map((r) => [r.id, r.tideless!]));
  }

  async putChoice(spotId: string, row: StoredChoice, now: number): Promise<void> {
    const columns = { ...choiceColumns, computedAt: spotTideStation.computedAt };
    await this.write(async (tx) => {
      await tx.insert(spotTideStation).values({ spotId, ...row, computedAt: now }).onConflictDoUpdate({ target: spotTideStation.spotId, set: excludedAll(columns) });
      if (row.tideless) await tx.delete(tideExtremes).where(eq(tideExtremes.spotId, spotId));
    });
  }

  async putExtremes(spotId: string, from: number, to: number, extremes: readonly PredictedExtreme[]): Promise<void> {
    await this.write(async (tx) => {
      await tx.delete(tideExtremes).where(and(eq(tideExtremes.spotId, spotId), gte(tideExtremes.time, from), lt(tideExtremes.time, to)));
      await putExtremeRows(tx, tideExtremes, spotId, extremes);
    });
  }

  async model(spotId: string): Promise<StoredModel | null> {
    const [row] = await this.db.select(modelColumns).from(spotTideModel).where(eq(spotTideModel.spotId, spotId));
    return row ?? null;
  }

  async putModel(spotId: string, reading: StoredModel, from: number, extremes: readonly PredictedExtreme[]): Promise<void> {
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

  async batch(work: (writes: TideWrites) => Promise<void>): Promise<void> {
    await this.write((tx) => work(this.within(tx)));
  }

  async prune(before: number): Promise<void> {
    await this.write(async (tx) => {
      await tx.delete(tideExtremes).where(lt(tideExtremes.time, before));
      await tx.delete(tideModelExtremes).where(lt(tideModelExtremes.time, before));
    });
  }

  async forgetChoices(): Promise<void> {
    await this.write(async (tx) => {
      await tx.delete(spotTideStation);
      await tx.delete(tideStations);
    });
  }

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
