/** The spec's tide shapes, plus the provenance fields clients ask for (`datum`, `station`). */
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

export interface TidesResponse {
  spot: { id: string; name: string };
  units: "metric";
  extremes: TideExtreme[];
  tideless: boolean;
  /** Chart datum the heights are above (e.g. MLLW, LAT); null for tideless spots. */
  datum: string | null;
  station: TideStationInfo | null;
}

/** What a spot's tide heights are measured from: the chart datum and the station (both null for a tideless spot). */
export interface TideReference {
  datum: string | null;
  station: TideStationInfo | null;
}
