/**
 * One tide station's predictions from its record: what `@neaps/tide-predictor`'s `useStation` reads, copied out of
 * the tide database when the station is chosen (./station-worker.ts) and kept in SQLite (`tide_stations`). The
 * predictor alone is small; the database of every station is ~100 MB of heap, so it lives in a worker thread that
 * is only started to choose stations (./station-database.ts).
 *
 * Subordinate stations carry no constituents of their own: their record holds the reference station's constituents
 * and datums (as the database's getters give them) with the subordinate's time/height offsets, so `useStation`
 * predicts them exactly as it does from the database.
 */
import { useStation, type Station } from "@neaps/tide-predictor";
import { alternating, type PredictedCurve, type PredictedExtreme } from "./prediction";
import { HOUR_MS, MINUTE_MS } from "../core/clock";

export interface StationRecord {
  id: string;
  type: "reference" | "subordinate";
  chart_datum?: string;
  datums: Record<string, number>;
  harmonic_constituents: { name: string; amplitude: number; phase: number }[];
  offsets?: Station["offsets"];
}

/** The record of a database station (the database's Station and the predictor's are the same record, declared apart). */
export function recordOf(station: Station): StationRecord {
  const record: StationRecord = {
    id: station.id,
    type: station.type,
    datums: { ...station.datums },
    harmonic_constituents: station.harmonic_constituents.map((c) => ({ name: c.name, amplitude: c.amplitude, phase: c.phase })),
  };
  if (station.chart_datum !== undefined) record.chart_datum = station.chart_datum;
  if (station.offsets) record.offsets = station.offsets;
  return record;
}

/** Extra time predicted on both sides of a span so extremes at its edges are found whole, then cut off. */
const EDGE_MS = 6 * HOUR_MS;
/** A fixed reference fortnight (plus a day: one full spring–neap cycle is 14.77 days) for judging a station's range. */
const RANGE_SPAN = { start: Date.UTC(2025, 0, 1), end: Date.UTC(2025, 0, 16) };

const predictor = (record: StationRecord) => useStation(record as unknown as Station);

/** The chart datum predictions are given in: the station's own (MLLW, LAT, …), else mean sea level. */
export function datumOf(record: StationRecord): string {
  return record.chart_datum && record.chart_datum in record.datums ? record.chart_datum : "MSL";
}

/**
 * Alternating high and low waters with `start <= time < end`, sorted by time. Times are rounded to the minute (a tide table's
 * precision) before the cut, so adjacent spans never share or lose an extreme.
 */
export function predictExtremes(record: StationRecord, startMs: number, endMs: number): PredictedExtreme[] {
  const { extremes } = predictor(record).getExtremesPrediction({ start: new Date(startMs - EDGE_MS), end: new Date(endMs + EDGE_MS) });
  const all: PredictedExtreme[] = extremes
    .map((e) => ({ time: Math.round(e.time.getTime() / MINUTE_MS) * MINUTE_MS, type: e.high ? ("high" as const) : ("low" as const), height: e.level }))
    .sort((a, b) => a.time - b.time);
  return alternating(all).filter((e) => e.time >= startMs && e.time < endMs);
}

/** The largest rise or fall between consecutive extremes over a reference fortnight (≈ the spring range). */
export function springRange(record: StationRecord): number {
  const extremes = predictExtremes(record, RANGE_SPAN.start, RANGE_SPAN.end);
  let range = 0;
  for (let i = 1; i < extremes.length; i++) range = Math.max(range, Math.abs(extremes[i]!.height - extremes[i - 1]!.height));
  return range;
}

/** The water level every `stepMs` over [startMs, endMs] in one pass; `stepMs` must divide an hour. */
export function predictCurve(record: StationRecord, startMs: number, endMs: number, stepMs: number): PredictedCurve {
  const { timeline } = predictor(record).getTimelinePrediction({ start: new Date(startMs), end: new Date(endMs), timeFidelity: stepMs / 1000 });
  const first = timeline[0];
  if (!first) throw new Error(`empty tide timeline for ${record.id}`);
  const levels = new Float64Array(timeline.length);
  for (let i = 0; i < timeline.length; i++) levels[i] = timeline[i]!.level;
  return { startMs: first.time.getTime(), stepMs, levels };
}
