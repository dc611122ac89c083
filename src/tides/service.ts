/**
 * Tides: stored extremes per spot (served by one indexed read), the hourly tide of forecast documents, and the
 * maintenance of the rolling window. Predictions come from the chosen stations' stored records (./record.ts); the
 * whole tide database is only loaded, in a worker thread, to choose stations (./station-database.ts). The store
 * (./store.ts) answers with promises; a kept response is served at once.
 */
import { DAY_MS, isoUtc, type Clock } from "../core/clock";
import { log } from "../core/log";
import { plainPacer, type Pacer } from "../core/pacing";
import type { SpotService } from "../spots/service";
import type { Spot } from "../spots/types";
import { SEA_LEVEL_MODEL, type DocumentTide, type HourTide, type SeaLevelSeries, type TideReference, type TidesResponse } from "./types";
import { stationFor, type RuleInput, type StationChoice, type StationSource, type TideSpot } from "./stations";
import { storedChoiceOf, type StoredChoice, type StoredModel, type TideStore, type TideWrites } from "./store";
import { decideSource, type SourceDecision } from "./source";
import { findExtremes, largestRange } from "./extremes";
import { windowAt, windowWork } from "./window";
import { CURVE_STEP_MS, curveSpan, levelAt, tideAt, type PredictedCurve, type PredictedExtreme } from "./prediction";
import { cosineLevel, tideState, withTurnBefore, type TideState } from "./now";
import { predictCurve, predictExtremes, type StationRecord } from "./record";
import { StationDatabase } from "./station-database";
import { BuiltChoices, CHOICE_RULE, type ChoiceWithRecord } from "./built-choices";
import { builtChoicesFile } from "./built-choices-file";
import { BoundedMap } from "../core/bounded-map";
import type { MaybePromise } from "../core/maybe-promise";

/** A stored extreme older than this before the end of a request's span means the spot's window is stale. */
const COVERAGE_SLACK_MS = 26 * 3_600_000;
/** Spots per write transaction in the window pass; the event loop serves requests between batches. */
const BATCH = 10;
/** Window-pass batches between two young-generation collections. */
const COLLECT_EVERY_BATCHES = 4;
/** Curves kept for the forecast refresh: it assembles spots tile by tile, so neighbours sharing a station share one curve; a few hundred stations kept would be ~20 MB for nothing. */
const CURVE_CACHE = 64;
/** Station records kept in memory (~4 KB each). The caches below are BoundedMaps: cleared when full. */
const RECORD_CACHE = 256;
/** Predicted windows shared by spots of one station within a pass (spots come region by region). */
const PASS_STATION_CACHE = 256;
/** Tide responses kept per (spot, days), ~1–4 KB each. */
const RESPONSE_CACHE = 1024;
/** Turning points are predicted this far past the last hour, so every hour has a next one (diurnal tides: ~25 h). */
const NEXT_TURN_MS = 30 * 3_600_000;

/** Extremes read around a minute for `now()`: the one before it and, in diurnal tides too, the next high and low. */
const NOW_BEFORE_MS = 26 * 3_600_000;
const NOW_AFTER_MS = 2 * DAY_MS;
/** Day curves kept for `now()`, one per station and UTC day (~1 KB each). */
const DAY_CURVE_CACHE = 512;
/** Largest ranges of stations over a window, for the source rule (a few numbers each). */
const STATION_RANGE_CACHE = 4096;

const NO_REFERENCE: TideReference = { datum: null, station: null };
/** The sea-level model's heights are above mean sea level; no station. */
const MODEL_REFERENCE: TideReference = { datum: "MSL", station: null };

/** The stored station choice as the responses show it. */
function referenceOf(choice: StoredChoice): TideReference {
  if (choice.tideless || !choice.stationId) return NO_REFERENCE;
  return {
    datum: choice.datum,
    station: { id: choice.stationId, name: choice.stationName ?? "", distanceKm: choice.distanceKm ?? 0, source: choice.stationSource ?? "" },
  };
}

/** A computed response and what it was computed from; served while `from` ≤ now ≤ `through` and nothing changed. */
interface KeptTides {
  response: TidesResponse;
  spot: Spot;
  stamp: number;
  from: number;
  through: number;
}

/** Freezes a response and everything in it: it is shared by every request it is served to. */
function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (inner && typeof inner === "object") deepFreeze(inner as object);
  return Object.freeze(value);
}

interface Series {
  curve: PredictedCurve;
  turns: PredictedExtreme[];
}


/** Whether a stored choice still follows the spot's import override. */
function agrees(choice: StoredChoice, override: boolean | null): boolean {
  const byOverride = choice.reason.startsWith("override");
  return override === null ? !byOverride : byOverride && choice.tideless === override;
}

/** A model reading continues the previous one (its range keeps growing toward the spring range) if fetched within this. */
const MODEL_CONTINUITY_MS = 3 * DAY_MS;

/** Extremes and range of one fetched series; spots sharing a model cell share the series object. */
interface ModelSeriesReading {
  hasData: boolean;
  extremes: PredictedExtreme[];
  rangeM: number;
  curve: PredictedCurve;
}

function readSeries(series: SeaLevelSeries): ModelSeriesReading {
  const hasData = series.values.some((v) => v !== null);
  const extremes = hasData ? findExtremes(series.time, series.values) : [];
  const levels = Float64Array.from(series.values, (v) => (v === null ? Number.NaN : v));
  const stepMs = series.time.length > 1 ? series.time[1]! - series.time[0]! : 3_600_000;
  return { hasData, extremes, rangeM: largestRange(extremes), curve: { startMs: series.time[0] ?? 0, stepMs, levels } };
}

/** Override "tideless" needs no station database. */
const NO_STATIONS: StationSource = { stationsNear: () => [], springRange: () => 0 };

/** What the station rule reads of a spot: a plain copy, posted to the worker. */
const ruleInputOf = (s: RuleInput): RuleInput => ({ lat: s.lat, lng: s.lng });

export interface WindowPassOptions {
  /** Asked before each batch: true stops the pass (server shutdown). */
  shouldStop?: () => boolean;
  /** Where the pass pauses between batches and drops its garbage (default: pauses only). */
  pacer?: Pacer;
}

export interface WindowReport {
  spots: number;
  chosen: number;
  tideless: number;
  extended: number;
  ms: number;
}

export class TideService {
  private running: Promise<WindowReport | null> | null = null;
  private readonly series = new BoundedMap<string, Series>(CURVE_CACHE);
  private readonly responses = new BoundedMap<string, KeptTides>(RESPONSE_CACHE);
  private readonly modelSeries = new WeakMap<SeaLevelSeries, ModelSeriesReading>();
  private readonly stationRanges = new BoundedMap<string, number>(STATION_RANGE_CACHE);
  private readonly dayCurves = new BoundedMap<string, PredictedCurve>(DAY_CURVE_CACHE);
  private readonly records = new BoundedMap<string, StationRecord>(RECORD_CACHE);
  private readonly stations: StationDatabase;

  constructor(
    private readonly rows: TideStore,
    private readonly clock: Clock,
    private readonly spots: SpotService,
    stationWorkerUrl = new URL("./station-worker.ts", import.meta.url),
    private readonly built = new BuiltChoices(builtChoicesFile),
  ) {
    this.stations = new StationDatabase(stationWorkerUrl);
  }

  /** End of the stored tide window (epoch ms), or null before the first window pass. */
  async windowEnd(): Promise<number | null> {
    return (await this.rows.window())?.end ?? null;
  }

  /** Loads the tide station database (in its worker) without blocking; resolves when stations can be chosen at once. */
  async ready(): Promise<void> {
    await this.stations.load();
  }

  /** Ends the station database's worker, if running. */
  close(): void {
    this.stations.close();
  }

  /**
   * Stored extremes from now forward within `days`. Throws `not_found` for an unknown spot. A spot whose station is
   * not chosen yet, or whose stored extremes do not reach the end of the span, is computed on the spot (a few ms;
   * choosing a station also loads the tide database in its worker if it is not running, ~0.5 s).
   *
   * Responses are kept (frozen: callers must not change them) and served again, at once, while they are exactly what
   * this would compute: same catalog entry, no tide row or import override written since (here at once; by another
   * process, from when it is noticed, within about a second: db/changes.ts), and the clock between when it was
   * computed and the instant it would change (see `computeTides`).
   */
  get(spotId: string, days: number): MaybePromise<TidesResponse> {
    const spot = this.spots.get(spotId);
    const now = this.clock.now();
    const key = `${spot.id}\u0000${days}`;
    const kept = this.responses.get(key);
    if (kept && kept.from <= now && now <= kept.through && kept.spot === spot && kept.stamp === this.rows.stamp()) return kept.response;
    // The response holds the stamp from before it read, so a write landing meanwhile makes it stale.
    const stamp = this.rows.stamp();
    return this.computeTides(spot, now, days).then((computed) => {
      if (computed.through >= now) this.responses.set(key, { ...computed, spot, from: now, stamp });
      return computed.response;
    });
  }

  /**
   * The response at `now`, and the last instant it stays the same if no row is written: until its first extreme
   * passes, the next stored extreme enters the span, or the stored extremes stop covering the span (which makes
   * `get` predict the window again).
   */
  private async computeTides(spot: Spot, now: number, days: number): Promise<{ response: TidesResponse; through: number }> {
    const head = { spot: { id: spot.id, name: spot.name }, units: "metric" as const };
    const span = days * DAY_MS;
    const to = now + span;
    const none = { extremes: [], datum: null, station: null, source: null, tidelessReason: null, unavailable: null };
    const { choice, model, decision } = await this.sourceFor(spot);
    if (decision.source === "none") {
      return { response: deepFreeze({ ...head, ...none, tideless: true, tidelessReason: decision.reason }), through: Infinity };
    }
    if (decision.source === "pending") {
      return { response: deepFreeze({ ...head, ...none, tideless: false, unavailable: "awaiting_model" as const }), through: Infinity };
    }
    if (decision.source === "model") {
      const rows = await this.rows.modelExtremes(spot.id, now, to);
      const nextTime = await this.rows.nextModelExtremeTime(spot.id, to);
      const response: TidesResponse = {
        ...head,
        ...none,
        extremes: rows.map((r) => ({ type: r.type, time: isoUtc(r.time), height: r.height })),
        tideless: false,
        datum: "MSL",
        source: { type: "model", ...SEA_LEVEL_MODEL, fetchedAt: isoUtc(model!.fetchedAt) },
        unavailable: rows.length ? null : "model_expired",
      };
      return { response: deepFreeze(response), through: Math.min(rows[0]?.time ?? Infinity, (nextTime ?? Infinity) - span) };
    }
    const stationId = choice.stationId!;
    let rows = await this.rows.extremes(spot.id, now, to);
    if ((rows.at(-1)?.time ?? -Infinity) < to - COVERAGE_SLACK_MS) {
      await this.predictWindow(spot.id, stationId);
      rows = await this.rows.extremes(spot.id, now, to);
    }
    const next = (await this.rows.nextExtremeTime(spot.id, to)) ?? Infinity;
    const through = Math.min(rows[0]?.time ?? Infinity, next - span, (rows.at(-1)?.time ?? -Infinity) + COVERAGE_SLACK_MS - span);
    const station = { id: stationId, name: choice.stationName ?? "", distanceKm: choice.distanceKm ?? 0, source: choice.stationSource ?? "" };
    const response: TidesResponse = {
      ...head,
      ...none,
      extremes: rows.map((r) => ({ type: r.type, time: isoUtc(r.time), height: r.height })),
      tideless: false,
      datum: choice.datum,
      station,
      source: { type: "station", id: station.id, name: station.name, distanceKm: station.distanceKm, provider: station.source },
    };
    return { response: deepFreeze(response), through };
  }

  /** A spot's stored station choice and model reading and, by the source rule (./source.ts), the source that serves it now. */
  private async sourceFor(spot: TideSpot): Promise<{ choice: StoredChoice; model: StoredModel | null; decision: SourceDecision }> {
    const override = await this.rows.override(spot.id);
    const choice = await this.choiceFor(spot, override);
    const model = await this.rows.model(spot.id);
    return { choice, model, decision: decideSource(choice, model, override) };
  }

  /** Which source serves a spot now, and why (chooses its station first if it has none). */
  async sourceOf(spotId: string): Promise<SourceDecision> {
    return (await this.sourceFor(this.spots.get(spotId))).decision;
  }

  /**
   * Stores what the sea-level model said at each spot (one refresh batch, one transaction): the model's extremes over
   * the fetched window, its range, and the chosen station's range over the same window (the agreement test). A spot
   * whose model data vanished keeps its previous reading: an upstream fault never turns a tidal coast tideless.
   */
  async acceptSeaLevel(entries: readonly { spotId: string; series: SeaLevelSeries }[]): Promise<void> {
    if (!entries.length) return;
    const now = this.clock.now();
    // The predictions (station choices, model extremes, station ranges) are computed first, outside the write
    // transaction: holding the database's write lock through them made other writers (console commands) time out.
    const writes: { spotId: string; model: StoredModel; start: number; extremes: PredictedExtreme[] }[] = [];
    for (const { spotId, series } of entries) {
      const spot = this.spots.find(spotId);
      if (!spot) continue; // removed by an import since the refresh planned its batches
      const choice = await this.choiceFor(spot, await this.rows.override(spot.id));
      const previous = await this.rows.model(spot.id);
      const reading = this.readingOf(series);
      if (!reading.hasData && previous?.hasData) continue;
      const start = series.time[0]!;
      const end = series.time.at(-1)! + 1;
      const continued = previous !== null && previous.hasData === reading.hasData && now - previous.fetchedAt <= MODEL_CONTINUITY_MS;
      const stationRangeM = !choice.tideless && choice.stationId ? await this.stationRange(choice.stationId, start, end) : null;
      const model = {
        hasData: reading.hasData,
        rangeM: Math.max(reading.rangeM, continued ? previous.rangeM : 0),
        windowRangeM: reading.rangeM,
        stationRangeM,
        since: continued ? previous.since : now,
        fetchedAt: now,
      };
      writes.push({ spotId: spot.id, model, start, extremes: reading.extremes });
    }
    await this.rows.batch(async (store) => {
      for (const w of writes) await store.putModel(w.spotId, w.model, w.start, w.extremes);
    });
  }

  private readingOf(series: SeaLevelSeries): ModelSeriesReading {
    let reading = this.modelSeries.get(series);
    if (!reading) this.modelSeries.set(series, (reading = readSeries(series)));
    return reading;
  }

  /** A station's largest rise or fall over [start, end) (the agreement test), cached per station and window. */
  private async stationRange(stationId: string, start: number, end: number): Promise<number> {
    const key = `${stationId}@${start}-${end}`;
    const range = this.stationRanges.get(key);
    if (range !== undefined) return range;
    const computed = largestRange(predictExtremes(await this.recordFor(stationId), start, end));
    this.stationRanges.set(key, computed);
    return computed;
  }

  /** Grows whenever stored tide rows or import overrides may have changed (what `now()` reads). */
  stamp(): number {
    return this.rows.stamp();
  }

  /**
   * The tide at the minute `at` (epoch ms) from the stored extremes and the station's predicted curve — the same
   * prediction as `get` and the forecast hours; for a model-served spot, from the model's stored extremes; null for a
   * tideless spot, or a model-served one whose stored extremes have run out. Extremes the stored window lacks (a server
   * that ran without its daily pass) are predicted and stored first, as `get` does.
   */
  async now(spotId: string, at: number): Promise<(TideState & TideReference) | null> {
    const spot = this.spots.get(spotId);
    const { choice, decision } = await this.sourceFor(spot);
    const source = decision.source;
    if (source === "model") {
      // Only the model's extremes are kept between refreshes: the water follows half a cosine between them.
      // Early in a window no stored extreme precedes the minute: the turn before it is mirrored.
      const rows = withTurnBefore(await this.rows.modelExtremes(spot.id, at - NOW_BEFORE_MS, at + NOW_AFTER_MS), at);
      const state = tideState(rows, at, (t) => cosineLevel(rows, t));
      return state && { ...state, ...MODEL_REFERENCE };
    }
    const stationId = source === "station" ? choice.stationId : null;
    if (!stationId) return null;
    const curve = await this.dayCurve(stationId, at);
    const level = (t: number) => levelAt(curve, t);
    const read = async () => tideState(await this.rows.extremes(spot.id, at - NOW_BEFORE_MS, at + NOW_AFTER_MS), at, level);
    let state = await read();
    if (!state) {
      await this.predictWindow(spot.id, stationId);
      state = await read();
    }
    if (!state) throw new Error(`no tide extremes around ${isoUtc(at)} for ${spot.id} after predicting its window`);
    return { ...state, ...referenceOf(choice) };
  }

  /** The station's water level over the UTC day holding `t`, sampled like the forecast hours' curve (same samples at each hour). */
  private async dayCurve(stationId: string, t: number): Promise<PredictedCurve> {
    const day = Math.floor(t / DAY_MS) * DAY_MS;
    const key = `${stationId}@${day}`;
    const curve = this.dayCurves.get(key);
    if (curve) return curve;
    const predicted = predictCurve(await this.recordFor(stationId), day - CURVE_STEP_MS, day + DAY_MS + CURVE_STEP_MS, CURVE_STEP_MS);
    this.dayCurves.set(key, predicted);
    return predicted;
  }

  /**
   * A spot's tide as its forecast document records it: what the heights are measured from (MSL for the model), and
   * `hourly(times)`, the predicted tide at each of `times` (epoch ms) with rising/falling from the predicted curve —
   * null for every hour of a tideless spot. Spots sharing a station and the same hours share one predicted curve. A
   * model-served spot reads `seaLevel` (the refresh's series for its cell, after `acceptSeaLevel`): its height that
   * hour, rising or falling toward the next extreme found in the same series — null for an hour the model left empty.
   * The station's record is had first, so `hourly` answers at once.
   */
  async forDocument(spotId: string, seaLevel?: SeaLevelSeries): Promise<DocumentTide> {
    const { choice, decision } = await this.sourceFor(this.spots.get(spotId));
    const stationId = decision.source === "station" ? choice.stationId : null;
    if (stationId) {
      const record = await this.recordFor(stationId);
      return { reference: referenceOf(choice), hourly: (times) => (times.length ? this.stationHours(stationId, record, times) : []) };
    }
    if (decision.source !== "model") return { reference: NO_REFERENCE, hourly: (times) => times.map(() => null) };
    return { reference: MODEL_REFERENCE, hourly: (times) => (seaLevel ? this.modelHours(seaLevel, times) : times.map(() => null)) };
  }

  /** `forDocument(spotId, seaLevel).hourly(times)`. */
  async hourly(spotId: string, times: number[], seaLevel?: SeaLevelSeries): Promise<(HourTide | null)[]> {
    return (await this.forDocument(spotId, seaLevel)).hourly(times);
  }

  private modelHours(seaLevel: SeaLevelSeries, times: number[]): (HourTide | null)[] {
    const { curve, extremes } = this.readingOf(seaLevel);
    const index = new Map(seaLevel.time.map((t, i) => [t, i]));
    return times.map((t) => {
      const i = index.get(t);
      return i === undefined || seaLevel.values[i] == null ? null : tideAt(curve, extremes, t);
    });
  }

  private stationHours(stationId: string, record: StationRecord, times: number[]): (HourTide | null)[] {
    const span = curveSpan(times);
    const key = `${stationId}@${span.start}-${span.end}`;
    let series = this.series.get(key);
    if (!series) {
      series = {
        curve: predictCurve(record, span.start, span.end, CURVE_STEP_MS),
        turns: predictExtremes(record, span.start, span.end + NEXT_TURN_MS),
      };
      this.series.set(key, series);
    }
    const { curve, turns } = series;
    return times.map((t) => tideAt(curve, turns, t));
  }

  /** The stored station choice for a spot, (re)computed when missing or overruled by an import. */
  private async choiceFor(spot: TideSpot, override: boolean | null): Promise<StoredChoice> {
    const current = await this.rows.choice(spot.id);
    if (current && agrees(current, override)) return current;
    const [chosen] = await this.choose([spot], new Map(override === null ? [] : [[spot.id, override]]));
    const choice = storedChoiceOf(chosen!.choice);
    await this.rows.putChoice(spot.id, choice, this.clock.now());
    if (!choice.tideless && choice.stationId) await this.predictWindow(spot.id, choice.stationId);
    return choice;
  }

  /**
   * The station rule for these spots — the build's choice where it made one (./built-choices.ts), else the database's
   * worker, only asked when some spot follows the rule — the chosen stations' records stored and kept for the
   * predictions that follow.
   */
  private async choose(spots: readonly TideSpot[], overrides: ReadonlyMap<string, boolean>): Promise<{ choice: StationChoice }[]> {
    const byId = new Map<string, ChoiceWithRecord>();
    const asked: TideSpot[] = [];
    for (const s of spots) {
      const override = overrides.get(s.id) ?? null;
      if (override === true) continue;
      const built = this.built.find(s, override);
      if (built) byId.set(s.id, built);
      else asked.push(s);
    }
    const answers = asked.length ? this.stations.choose(asked.map((s) => ({ spot: ruleInputOf(s), override: overrides.get(s.id) ?? null }))) : [];
    asked.forEach((s, i) => byId.set(s.id, answers[i]!));
    // Spots sharing a station share its record: stored once.
    const records = new Map<string, StationRecord>();
    for (const { record } of byId.values()) if (record) records.set(record.id, record);
    if (records.size) {
      await this.rows.batch(async (store) => {
        for (const record of records.values()) await store.putStationRecord(record);
      });
      for (const record of records.values()) this.keepRecord(record);
    }
    return spots.map((s) => byId.get(s.id) ?? { choice: stationFor(s, true, NO_STATIONS) });
  }

  /** A chosen station's record: kept, stored, or (for a choice stored before records were) read from the database once. */
  private async recordFor(stationId: string): Promise<StationRecord> {
    const kept = this.records.get(stationId);
    if (kept) return kept;
    const stored = await this.rows.stationRecord(stationId);
    if (stored) return this.keepRecord(stored);
    const record = this.stations.records([stationId])[0]!;
    await this.rows.putStationRecord(record);
    return this.keepRecord(record);
  }

  private keepRecord(record: StationRecord): StationRecord {
    this.records.set(record.id, record);
    return record;
  }

  /** One spot's extremes over the whole current window. */
  private async predictWindow(spotId: string, stationId: string): Promise<void> {
    const window = windowAt(this.clock.now());
    const extremes = predictExtremes(await this.recordFor(stationId), window.start, window.end);
    await this.rows.putExtremes(spotId, window.start, window.end, extremes);
  }

  /**
   * Brings every spot's station choice and stored extremes up to the current window: chooses stations for spots that
   * have none (or whose import override changed), predicts the missing days (all of them when the stored window is
   * stale), drops days before the window. Runs in batches, pausing between them (`pacer`); concurrent calls share one
   * run, the first call's. Returns null when stopped early.
   */
  maintainWindow({ shouldStop = () => false, pacer = plainPacer }: WindowPassOptions = {}): Promise<WindowReport | null> {
    return (this.running ??= this.runWindowPass(shouldStop, pacer).finally(() => {
      this.running = null;
      // What follows (a start-up refresh) should not hold the build's choices too.
      this.built.release();
    }));
  }

  private async runWindowPass(shouldStop: () => boolean, pacer: Pacer): Promise<WindowReport | null> {
    const startedAt = performance.now();
    const rows = this.rows;
    if ((await rows.rule()) !== CHOICE_RULE) {
      await rows.forgetChoices();
      this.records.clear();
      await rows.setRule(CHOICE_RULE);
    }
    const now = this.clock.now();
    const target = windowAt(now);
    const work = windowWork(await rows.window(), target);
    const choices = await rows.allChoices();
    const overrides = await rows.overrides();
    const spots = this.spots.all();
    const byStation = new BoundedMap<string, PredictedExtreme[]>(PASS_STATION_CACHE);
    const report: WindowReport = { spots: spots.length, chosen: 0, tideless: 0, extended: 0, ms: 0 };
    const unchosen = (spot: Spot) => {
      const choice = choices.get(spot.id);
      return !choice || !agrees(choice, overrides.get(spot.id) ?? null);
    };
    // Load the station database without blocking the event loop when some spot needs a station the build did not choose.
    const needsDatabase = (spot: Spot) => {
      const override = overrides.get(spot.id) ?? null;
      return unchosen(spot) && override !== true && !this.built.find(spot, override);
    };
    if (spots.some(needsDatabase)) await this.stations.load();
    if (shouldStop()) return null;

    for (let i = 0; i < spots.length; i += BATCH) {
      if (shouldStop()) return null;
      // The batch's choices and predictions are computed first and written in one short transaction: predicting
      // inside it held the write lock almost without a break, and console commands waiting for it timed out.
      const writes: { spotId: string; choice?: StoredChoice; predicted?: { from: number; extremes: PredictedExtreme[] } }[] = [];
      const batch = spots.slice(i, i + BATCH);
      const toChoose = batch.filter(unchosen);
      const chosen = new Map((await this.choose(toChoose, overrides)).map((c, j) => [toChoose[j]!.id, storedChoiceOf(c.choice)]));
      for (const spot of batch) {
        let choice = choices.get(spot.id);
        let from = work.kind === "full" ? target.start : work.kind === "extend" ? work.from : null;
        const write: (typeof writes)[number] = { spotId: spot.id };
        const fresh = chosen.get(spot.id);
        if (fresh) {
          choice = write.choice = fresh;
          from = target.start;
          report.chosen++;
        }
        if (!choice || choice.tideless || !choice.stationId) report.tideless++;
        else if (from !== null) {
          const key = `${choice.stationId}@${from}`;
          let extremes = byStation.get(key);
          if (!extremes) {
            byStation.set(key, (extremes = predictExtremes(await this.recordFor(choice.stationId), from, target.end)));
          }
          write.predicted = { from, extremes };
          report.extended++;
        }
        if (write.choice || write.predicted) writes.push(write);
      }
      await rows.batch(async (store) => {
        for (const w of writes) {
          if (w.choice) await store.putChoice(w.spotId, w.choice, now);
          if (w.predicted) await store.putExtremes(w.spotId, w.predicted.from, target.end, w.predicted.extremes);
        }
      });
      // Predicting leaves short-lived objects (the predictor's dates and arrays) faster than the engine's own collections
      // clear them on a first start; a young-generation collection every few batches keeps them from piling up, cheaply.
      if ((i / BATCH) % COLLECT_EVERY_BATCHES === COLLECT_EVERY_BATCHES - 1) pacer.dropYoung();
      await pacer.pause();
    }
    await rows.batch(async (store) => {
      await store.prune(target.start);
      await store.setWindow(target);
    });
    report.ms = Math.round(performance.now() - startedAt);
    log.info("tide window ready", { ...report, work: work.kind, from: isoUtc(target.start), to: isoUtc(target.end) });
    return report;
  }
}
