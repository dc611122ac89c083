/** The spec's tide shapes, plus the provenance fields clients ask for (`datum`, `station`, `source`). */
export interface TideExtreme {
  type: "high" | "low";
  time: string;
  height: number;
}

export interface TideStationInfo {
  id: string;
  name: string;
  distanceKm: number;
  source: string;
}

/** Where a spot's tides come from: a tide station's harmonic prediction, or the sea-level model. */
export type TideSourceInfo =
  | { type: "station"; id: string; name: string; distanceKm: number; provider: string }
  | { type: "model"; name: string; variable: string; fetchedAt: string };

/** Why a tidal spot has no extremes to show: the model was never fetched for it, or its stored week has passed. */
export type TidesUnavailable = "awaiting_model" | "model_expired";

export interface TidesResponse {
  spot: { id: string; name: string };
  units: "metric";
  extremes: TideExtreme[];
  tideless: boolean;
  /** Datum the heights are above: the station's chart datum (e.g. MLLW, LAT), MSL for the model; null without extremes. */
  datum: string | null;
  station: TideStationInfo | null;
  source: TideSourceInfo | null;
  /** Why the spot is tideless (null when it is not). */
  tidelessReason: string | null;
  /** Set when a tidal spot has no extremes to show, and why; null otherwise. */
  unavailable: TidesUnavailable | null;
}

/** An hourly sea-level series from the model: epoch ms, meters above MSL (null = no value that hour). */
export interface SeaLevelSeries {
  time: number[];
  values: (number | null)[];
}

/** The model as the tides response names it. */
export const SEA_LEVEL_MODEL = {
  name: "Open-Meteo Marine (MeteoFrance SMOC, ~8 km: tide and surge)",
  variable: "sea_level_height_msl",
} as const;

/** What a spot's tide heights are measured from: the chart datum and the station (both null for a tideless spot). */
export interface TideReference {
  datum: string | null;
  station: TideStationInfo | null;
}

/** The tide in a forecast hour: the height above the datum, and whether the water is rising or falling. */
export interface HourTide {
  height: number;
  state: "rising" | "falling";
}

/** A spot's tide as a forecast document records it (`TideService.forDocument`). */
export interface DocumentTide {
  reference: TideReference;
  /** The tide at each of `times` (epoch ms); null where there is none. */
  hourly(times: number[]): (HourTide | null)[];
}
