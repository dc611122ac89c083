/**
 * The tide room's store: the station chosen per spot (spot_tide_station), the stored extremes (tide_extremes, and the
 * sea-level model's in tide_model_extremes), the model readings (spot_tide_model), the chosen stations' records
 * (tide_stations) and the window bounds and station rule (meta); drizzle-store.ts implements it for both databases.
 */
import type { StationChoice } from "./stations";
import type { StationRecord } from "./record";
import type { ModelReading } from "./source";
import type { TideWindow } from "./window";
import type { PredictedExtreme } from "./prediction";

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

/** The writes a batch groups into one transaction. */
export interface TideWrites {
  /** Stores a spot's station choice (see storedChoiceOf); a tideless spot loses its extremes. */
  putChoice(spotId: string, row: StoredChoice, now: number): Promise<void>;
  /** Replaces a spot's extremes in [from, to) with `extremes` (heights rounded to the millimetre). */
  putExtremes(spotId: string, from: number, to: number, extremes: readonly PredictedExtreme[]): Promise<void>;
  /** Stores a model reading and replaces the spot's model extremes from `from` on (the fetched window's start). */
  putModel(spotId: string, reading: StoredModel, from: number, extremes: readonly PredictedExtreme[]): Promise<void>;
  putStationRecord(record: StationRecord): Promise<void>;
  /** Drops the extremes (the stations' and the model's) before `before`. */
  prune(before: number): Promise<void>;
  setWindow(window: TideWindow): Promise<void>;
}

export interface TideStore extends TideWrites {
  /**
   * Grows with every write through this store and every commit noticed from another connection or server (both only
   * grow), so the service can keep responses between writes. Synchronous: it is read per request, from memory.
   */
  stamp(): number;
  extremes(spotId: string, from: number, to: number): Promise<PredictedExtreme[]>;
  /** Time of the first stored extreme at or after `from`, if any. */
  nextExtremeTime(spotId: string, from: number): Promise<number | null>;
  modelExtremes(spotId: string, from: number, to: number): Promise<PredictedExtreme[]>;
  nextModelExtremeTime(spotId: string, from: number): Promise<number | null>;
  choice(spotId: string): Promise<StoredChoice | null>;
  allChoices(): Promise<Map<string, StoredChoice>>;
  /** The import's tideless flag for a spot (null = follow the station rule). */
  override(spotId: string): Promise<boolean | null>;
  overrides(): Promise<Map<string, boolean>>;
  /** What the model said at a spot at the last refresh that fetched it; null if never. */
  model(spotId: string): Promise<StoredModel | null>;
  /** A chosen station's record (what predicting it needs), or null if not stored. */
  stationRecord(stationId: string): Promise<StationRecord | null>;
  /** Runs `work` in one transaction: what it writes through the writes it is given commits together. */
  batch(work: (writes: TideWrites) => Promise<void>): Promise<void>;
  /** Drops every stored choice and station record (the station rule or the database changed); extremes are rewritten by the next full pass. */
  forgetChoices(): Promise<void>;
  window(): Promise<TideWindow | null>;
  rule(): Promise<string | null>;
  setRule(rule: string): Promise<void>;
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

/** What the implementations keep in `meta`: the stored window's bounds and the station rule. */
export const TIDE_META = {
  windowStart: "tides.window.start",
  windowEnd: "tides.window.end",
  rule: "tides.rule",
} as const;

/** The window from its stored bounds (ISO times), or null while either is missing. */
export function windowOf(start: string | null, end: string | null): TideWindow | null {
  return start && end ? { start: Date.parse(start), end: Date.parse(end) } : null;
}

/** A window's bounds as stored. */
export function windowBounds(w: TideWindow): { start: string; end: string } {
  return { start: new Date(w.start).toISOString(), end: new Date(w.end).toISOString() };
}

/** A spot's stored station choice: its fields and the spot_tide_station columns they are kept in (columnsOf). */
export const CHOICE_COLUMNS = {
  tideless: "tideless",
  stationId: "stationId",
  stationName: "stationName",
  stationSource: "stationSource",
  distanceKm: "distanceKm",
  datum: "datum",
  reason: "reason",
} as const;

/** A spot's stored model reading: its fields and the spot_tide_model columns they are kept in (columnsOf). */
export const MODEL_COLUMNS = {
  hasData: "hasData",
  rangeM: "rangeM",
  windowRangeM: "windowRangeM",
  stationRangeM: "stationRangeM",
  since: "since",
  fetchedAt: "fetchedAt",
} as const;
