/**
 * Which source serves a spot's tides — a tide station, the sea-level model, or none (tideless) — from the station
 * choice (./stations.ts) and what the model said at the last refresh. Pure; the rule is documented in docs/tides.md
 * ("Which source serves a spot").
 */
import { NEGLIGIBLE_RANGE_M } from "./stations";

/** The stored station choice, as far as this rule needs it. */
export interface StationVerdict {
  tideless: boolean;
  stationId: string | null;
  stationName: string | null;
  distanceKm: number | null;
  reason: string;
}

/** What the model said at a spot (spot_tide_model). */
export interface ModelReading {
  /** false: no sea level at this point at all (no ocean-model cell: lakes, rivers, wave pools). */
  hasData: boolean;
  /** Largest rise or fall seen in the model over every window fetched in a row (m): tends to the spring range. */
  rangeM: number;
  /** The last fetched window's largest rise or fall (m). */
  windowRangeM: number;
  /** The chosen station's largest rise or fall over that same window (m); null without a station. */
  stationRangeM: number | null;
}

export type TideSourceKind = "station" | "model" | "none" | "pending";

export interface SourceDecision {
  source: TideSourceKind;
  /** Why, in words (the tides response's `tidelessReason` when the source is none). */
  reason: string;
}

/**
 * A week of model data (one refresh) spans half a spring–neap cycle: its largest range is at least ~70 % of the
 * spring range (a window centred on neap, M2:S2 ≈ 1:0.46). So "spring range below NEGLIGIBLE_RANGE_M" is judged on
 * the model as "largest range seen below 0.7 × NEGLIGIBLE_RANGE_M".
 */
export const MODEL_NEGLIGIBLE_RANGE_M = Math.round(0.7 * NEGLIGIBLE_RANGE_M * 100) / 100;
/**
 * A station this close serves the spot whatever the model's range, unless it is damped against the model (below
 * NEAR_DAMPED_SHARE of its range: a river or lagoon gauge): near the coast a gauge's harmonic prediction beats an
 * ~8 km ocean model, which Open-Meteo itself calls of limited accuracy at the coast.
 */
export const NEAR_STATION_KM = 25;
export const NEAR_DAMPED_SHARE = 0.5;
/** Station and model agree when their ranges over the same window differ by at most this much (m)… */
export const AGREE_ABS_M = 0.3;
/** …or by at most this share of the larger one. */
export const AGREE_SHARE = 0.35;

const m = (h: number) => `${h.toFixed(2)} m`;

export function rangesAgree(stationRangeM: number, modelRangeM: number): boolean {
  return Math.abs(stationRangeM - modelRangeM) <= Math.max(AGREE_ABS_M, AGREE_SHARE * Math.max(stationRangeM, modelRangeM)) + 1e-9;
}

function fromModel(model: ModelReading, why: string): SourceDecision {
  if (model.rangeM < MODEL_NEGLIGIBLE_RANGE_M)
    return { source: "none", reason: `negligible tide: model range ${m(model.rangeM)} < ${m(MODEL_NEGLIGIBLE_RANGE_M)}${why ? ` (${why})` : ""}` };
  return { source: "model", reason: `model range ${m(model.rangeM)}${why ? `; ${why}` : ""}` };
}

/**
 * The source rule. `override` is the import's tideless flag (true: tideless, false: tidal, null: follow the rule).
 * "pending" means: no station serves the spot and the model has not been fetched for it yet — neither tideless nor
 * served; the response says so.
 */
export function decideSource(station: StationVerdict, model: ModelReading | null, override: boolean | null): SourceDecision {
  if (override === true) return { source: "none", reason: "override: tideless (set by import)" };
  const hasStation = !station.tideless && station.stationId !== null;
  const named = hasStation ? `station ${station.stationName ?? station.stationId} at ${station.distanceKm ?? "?"} km` : "";
  if (override === false) {
    if (hasStation) return { source: "station", reason: `override: tidal; ${named}` };
    if (model?.hasData) return { source: "model", reason: "override: tidal; model" };
    return { source: "pending", reason: "override: tidal; waiting for the model's sea level" };
  }
  if (hasStation) {
    if (!model) return { source: "station", reason: `${named}; model not fetched yet` };
    // No ocean cell at the spot: a lake, river or pool, even with a gauge on the coast within reach. Tidal bores and
    // misplaced coastal records get their tide back through the import's (or the overlay's) tideless = false.
    if (!model.hasData) return { source: "none", reason: `no sea-level data (lake, river or pool); ${named} not used` };
    const near = (station.distanceKm ?? Infinity) <= NEAR_STATION_KM;
    if (model.stationRangeM !== null && near && model.stationRangeM >= NEAR_DAMPED_SHARE * model.windowRangeM)
      return { source: "station", reason: `${named}; near, and not damped against the model (${m(model.stationRangeM)} vs ${m(model.windowRangeM)})` };
    if (model.stationRangeM === null || rangesAgree(model.stationRangeM, model.windowRangeM))
      return { source: "station", reason: `${named}; its range agrees with the model's (${m(model.stationRangeM ?? 0)} vs ${m(model.windowRangeM)})` };
    const disagreement = `${named} disagrees: range ${m(model.stationRangeM)} vs the model's ${m(model.windowRangeM)} over the same week`;
    // A gauge in reach that sees a tide outweighs a coastal model that sees none: a tidal coast never loses its tide.
    if (model.rangeM < MODEL_NEGLIGIBLE_RANGE_M) return { source: "station", reason: `${disagreement}, but the model sees no tide: the station` };
    return fromModel(model, disagreement);
  }
  // No station serves the spot: none within reach, or every one within reach has a negligible range.
  if (!model) {
    if (station.reason.startsWith("negligible")) return { source: "none", reason: station.reason };
    return { source: "pending", reason: `${station.reason}; waiting for the model's sea level` };
  }
  if (!model.hasData) return { source: "none", reason: `no sea-level data (lake, river or pool); ${station.reason}` };
  return fromModel(model, station.reason);
}
