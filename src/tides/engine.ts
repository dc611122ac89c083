/**
 * The harmonic tide engine: the station database (@neaps/tide-database) and the station predictor
 * (@neaps/tide-predictor's `useStation`, the same one `neaps` uses). Importing this module decodes the embedded
 * database (~300 ms, tens of MB), so it is only ever loaded lazily through `loadTideEngine()` in ./service.ts.
 *
 * Subordinate stations carry no constituents of their own: `useStation` predicts them through their reference
 * station and applies their time/height offsets, so every prediction here goes through it.
 */
import { near, stationsById, type Station } from "@neaps/tide-database";
import { useStation, type StationPredictor } from "@neaps/tide-predictor";
import type { StationCandidate } from "./stations";
import { alternating, type PredictedCurve, type PredictedExtreme } from "./prediction";

const HOUR_MS = 3_600_000;
/** Extra time predicted on both sides of a span so extremes at its edges are found whole, then cut off. */
const EDGE_MS = 6 * HOUR_MS;
/** A fixed reference fortnight (plus a day: one full spring–neap cycle is 14.77 days) for judging a station's range. */
const RANGE_SPAN = { start: Date.UTC(2025, 0, 1), end: Date.UTC(2025, 0, 16) };

/** Tide stations we may use: tide (not current) stations whose licence allows commercial use (the API is sold). */
function usable(station: Station): boolean {
  return station.kind === "tide" && station.license.commercial_use;
}

const predictors = new Map<string, StationPredictor>();
const ranges = new Map<string, number>();

function predictor(stationId: string): StationPredictor {
  let p = predictors.get(stationId);
  if (!p) {
    const station = stationsById.get(stationId);
    if (!station) throw new Error(`unknown tide station ${stationId}`);
    // The database's Station and the predictor's Station type are the same record, declared apart.
    p = useStation(station as unknown as Parameters<typeof useStation>[0]);
    predictors.set(stationId, p);
  }
  return p;
}

/** The chart datum predictions are given in: the station's own (MLLW, LAT, …), else mean sea level. */
function datumOf(p: StationPredictor): string {
  return p.defaultDatum ?? "MSL";
}

export function stationCount(): number {
  let n = 0;
  for (const station of stationsById.values()) if (usable(station)) n++;
  return n;
}

/** The `limit` usable tide stations closest to a position, closest first, at any distance. */
export function stationsNear(lat: number, lng: number, limit: number): StationCandidate[] {
  return near({ lat, lng, maxResults: limit, filter: usable }).map(([station, distanceKm]) => ({
    id: station.id,
    name: station.name,
    type: station.type,
    source: station.source.name,
    distanceKm,
    datum: datumOf(predictor(station.id)),
  }));
}

const MINUTE_MS = 60_000;

/**
 * Alternating high and low waters with `start <= time < end`, sorted by time. Times are rounded to the minute (a tide table's
 * precision) before the cut, so adjacent spans never share or lose an extreme.
 */
export function predictExtremes(stationId: string, startMs: number, endMs: number): PredictedExtreme[] {
  const { extremes } = predictor(stationId).getExtremesPrediction({ start: new Date(startMs - EDGE_MS), end: new Date(endMs + EDGE_MS) });
  const all: PredictedExtreme[] = extremes
    .map((e) => ({ time: Math.round(e.time.getTime() / MINUTE_MS) * MINUTE_MS, type: e.high ? ("high" as const) : ("low" as const), height: e.level }))
    .sort((a, b) => a.time - b.time);
  return alternating(all).filter((e) => e.time >= startMs && e.time < endMs);
}

/** The largest rise or fall between consecutive extremes over a reference fortnight (≈ the spring range), cached. */
export function springRange(stationId: string): number {
  let range = ranges.get(stationId);
  if (range === undefined) {
    const extremes = predictExtremes(stationId, RANGE_SPAN.start, RANGE_SPAN.end);
    range = 0;
    for (let i = 1; i < extremes.length; i++) range = Math.max(range, Math.abs(extremes[i]!.height - extremes[i - 1]!.height));
    ranges.set(stationId, range);
  }
  return range;
}

/** The water level every `stepMs` over [startMs, endMs] in one pass; `stepMs` must divide an hour. */
export function predictCurve(stationId: string, startMs: number, endMs: number, stepMs: number): PredictedCurve {
  const { timeline } = predictor(stationId).getTimelinePrediction({ start: new Date(startMs), end: new Date(endMs), timeFidelity: stepMs / 1000 });
  const first = timeline[0];
  if (!first) throw new Error(`empty tide timeline for ${stationId}`);
  const levels = new Float64Array(timeline.length);
  for (let i = 0; i < timeline.length; i++) levels[i] = timeline[i]!.level;
  return { startMs: first.time.getTime(), stepMs, levels };
}
