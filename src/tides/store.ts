/**
 * Tide rows in SQLite: the station chosen per spot (spot_tide_station), the stored extremes (tide_extremes) and
 * the window bounds (meta). Every statement is prepared once; serving a spot is one indexed range read.
 * `stamp()` changes whenever those rows (or a spot's import override) may have changed — a write through this store,
 * or a commit by another process, noticed within about a second — so the service can keep responses between writes.
 */
import { writeTransaction, type Db } from "../db";
import { externalWrites, type ExternalWrites } from "../db/changes";
import type { StationChoice } from "./stations";
import type { StationRecord } from "./record";
import type { ModelReading } from "./source";
import type { TideWindow } from "./window";
import { roundHeight, type PredictedExtreme } from "./prediction";

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

interface ChoiceRow {
  tideless: number;
  station_id: string | null;
  station_name: string | null;
  station_source: string | null;
  distance_km: number | null;
  datum: string | null;
  reason: string;
}

/** A spot_tide_model row as the service uses it. */
export interface StoredModel extends ModelReading {
  since: number;
  fetchedAt: number;
}

interface ModelRow {
  has_data: number;
  range_m: number;
  window_range_m: number;
  station_range_m: number | null;
  since: number;
  fetched_at: number;
}

const WINDOW_START = "tides.window.start";
const WINDOW_END = "tides.window.end";
const RULE = "tides.rule";

const toOverride = (v: number | null | undefined): boolean | null => (v === null || v === undefined ? null : v === 1);

const toChoice = (r: ChoiceRow): StoredChoice => ({
  tideless: r.tideless === 1,
  stationId: r.station_id,
  stationName: r.station_name,
  stationSource: r.station_source,
  distanceKm: r.distance_km,
  datum: r.datum,
  reason: r.reason,
});

export class TideStore {
  private readonly q;
  /** Writes through this store (this connection's commits do not move data_version). */
  private writes = 0;
  private readonly changes: ExternalWrites;

  constructor(private readonly db: Db) {
    this.changes = externalWrites(db);
    const c = db.$client;
    const choiceColumns = "tideless, station_id, station_name, station_source, distance_km, datum, reason";
    this.q = {
      extremes: c.query<{ time: number; type: "high" | "low"; height: number }, [string, number, number]>(
        "SELECT time, type, height FROM tide_extremes WHERE spot_id = ? AND time >= ? AND time < ? ORDER BY time",
      ),
      choice: c.query<ChoiceRow, [string]>(`SELECT ${choiceColumns} FROM spot_tide_station WHERE spot_id = ?`),
      allChoices: c.query<ChoiceRow & { spot_id: string }, []>(`SELECT spot_id, ${choiceColumns} FROM spot_tide_station`),
      override: c.query<{ tideless_override: number | null }, [string]>("SELECT tideless_override FROM spots WHERE id = ?"),
      nextExtreme: c.query<{ time: number }, [string, number]>("SELECT time FROM tide_extremes WHERE spot_id = ? AND time >= ? ORDER BY time LIMIT 1"),
      overrides: c.query<{ id: string; tideless_override: number }, []>("SELECT id, tideless_override FROM spots WHERE tideless_override IS NOT NULL"),
      putChoice: c.query(
        `INSERT OR REPLACE INTO spot_tide_station (spot_id, ${choiceColumns}, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      clearRange: c.query("DELETE FROM tide_extremes WHERE spot_id = ? AND time >= ? AND time < ?"),
      clearSpot: c.query("DELETE FROM tide_extremes WHERE spot_id = ?"),
      putExtreme: c.query("INSERT OR REPLACE INTO tide_extremes (spot_id, time, type, height) VALUES (?, ?, ?, ?)"),
      prune: c.query("DELETE FROM tide_extremes WHERE time < ?"),
      forgetChoices: c.query("DELETE FROM spot_tide_station"),
      forgetRecords: c.query("DELETE FROM tide_stations"),
      record: c.query<{ record: string }, [string]>("SELECT record FROM tide_stations WHERE id = ?"),
      putRecord: c.query("INSERT OR REPLACE INTO tide_stations (id, record) VALUES (?, ?)"),
      model: c.query<ModelRow, [string]>("SELECT has_data, range_m, window_range_m, station_range_m, since, fetched_at FROM spot_tide_model WHERE spot_id = ?"),
      putModel: c.query(
        "INSERT OR REPLACE INTO spot_tide_model (spot_id, has_data, range_m, window_range_m, station_range_m, since, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ),
      modelExtremes: c.query<{ time: number; type: "high" | "low"; height: number }, [string, number, number]>(
        "SELECT time, type, height FROM tide_model_extremes WHERE spot_id = ? AND time >= ? AND time < ? ORDER BY time",
      ),
      nextModelExtreme: c.query<{ time: number }, [string, number]>("SELECT time FROM tide_model_extremes WHERE spot_id = ? AND time >= ? ORDER BY time LIMIT 1"),
      clearModelFrom: c.query("DELETE FROM tide_model_extremes WHERE spot_id = ? AND time >= ?"),
      putModelExtreme: c.query("INSERT OR REPLACE INTO tide_model_extremes (spot_id, time, type, height) VALUES (?, ?, ?, ?)"),
      pruneModel: c.query("DELETE FROM tide_model_extremes WHERE time < ?"),
      getMeta: c.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?"),
      putMeta: c.query("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"),
    };
  }

  extremes(spotId: string, from: number, to: number) {
    return this.q.extremes.all(spotId, from, to);
  }

  /** Time of the first stored extreme at or after `from`, if any. */
  nextExtremeTime(spotId: string, from: number): number | null {
    return this.q.nextExtreme.get(spotId, from)?.time ?? null;
  }

  /** Grows with every write through this store and every commit noticed from another connection (both only grow). */
  stamp(): number {
    return this.writes + this.changes.generation();
  }

  choice(spotId: string): StoredChoice | null {
    const row = this.q.choice.get(spotId);
    return row ? toChoice(row) : null;
  }

  allChoices(): Map<string, StoredChoice> {
    return new Map(this.q.allChoices.all().map((r) => [r.spot_id, toChoice(r)]));
  }

  /** The import's tideless flag for a spot (null = follow the station rule). */
  override(spotId: string): boolean | null {
    return toOverride(this.q.override.get(spotId)?.tideless_override);
  }

  overrides(): Map<string, boolean> {
    return new Map(this.q.overrides.all().map((r) => [r.id, r.tideless_override === 1]));
  }

  /** Stores a spot's station choice (see storedChoiceOf); a tideless spot loses its extremes. */
  putChoice(spotId: string, row: StoredChoice, now: number): void {
    this.writes++;
    writeTransaction(this.db, () => {
      this.q.putChoice.run(spotId, row.tideless ? 1 : 0, row.stationId, row.stationName, row.stationSource, row.distanceKm, row.datum, row.reason, now);
      if (row.tideless) this.q.clearSpot.run(spotId);
    });
  }

  /** Replaces a spot's extremes in [from, to) with `extremes` (heights rounded to the millimetre). */
  putExtremes(spotId: string, from: number, to: number, extremes: PredictedExtreme[]): void {
    this.writes++;
    this.q.clearRange.run(spotId, from, to);
    for (const e of extremes) this.q.putExtreme.run(spotId, e.time, e.type, roundHeight(e.height));
  }

  /** What the model said at a spot at the last refresh that fetched it; null if never. */
  model(spotId: string): StoredModel | null {
    const r = this.q.model.get(spotId);
    if (!r) return null;
    return { hasData: r.has_data === 1, rangeM: r.range_m, windowRangeM: r.window_range_m, stationRangeM: r.station_range_m, since: r.since, fetchedAt: r.fetched_at };
  }

  /** Stores a model reading and replaces the spot's model extremes from `from` on (the fetched window's start). */
  putModel(spotId: string, reading: StoredModel, from: number, extremes: PredictedExtreme[]): void {
    this.writes++;
    this.q.putModel.run(spotId, reading.hasData ? 1 : 0, reading.rangeM, reading.windowRangeM, reading.stationRangeM, reading.since, reading.fetchedAt);
    this.q.clearModelFrom.run(spotId, from);
    for (const e of extremes) this.q.putModelExtreme.run(spotId, e.time, e.type, roundHeight(e.height));
  }

  modelExtremes(spotId: string, from: number, to: number) {
    return this.q.modelExtremes.all(spotId, from, to);
  }

  nextModelExtremeTime(spotId: string, from: number): number | null {
    return this.q.nextModelExtreme.get(spotId, from)?.time ?? null;
  }

  /** Runs `work` in one transaction (a batch of spots is written at once). */
  batch(work: () => void): void {
    writeTransaction(this.db, work);
  }

  prune(before: number): void {
    this.writes++;
    this.q.prune.run(before);
    this.q.pruneModel.run(before);
  }

  /** Drops every stored choice and station record (the station rule or the database changed); extremes are rewritten by the next full pass. */
  forgetChoices(): void {
    this.writes++;
    this.q.forgetChoices.run();
    this.q.forgetRecords.run();
  }

  /** A chosen station's record (what predicting it needs), or null if not stored. */
  stationRecord(stationId: string): StationRecord | null {
    const row = this.q.record.get(stationId);
    return row ? (JSON.parse(row.record) as StationRecord) : null;
  }

  putStationRecord(record: StationRecord): void {
    this.q.putRecord.run(record.id, JSON.stringify(record));
  }

  window(): TideWindow | null {
    const start = this.q.getMeta.get(WINDOW_START)?.value;
    const end = this.q.getMeta.get(WINDOW_END)?.value;
    return start && end ? { start: Date.parse(start), end: Date.parse(end) } : null;
  }

  setWindow(w: TideWindow): void {
    this.q.putMeta.run(WINDOW_START, new Date(w.start).toISOString());
    this.q.putMeta.run(WINDOW_END, new Date(w.end).toISOString());
  }

  rule(): string | null {
    return this.q.getMeta.get(RULE)?.value ?? null;
  }

  setRule(rule: string): void {
    this.q.putMeta.run(RULE, rule);
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
