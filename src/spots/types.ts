import type { SpotGuide } from "./guide";

/** The public shapes of the spot domain (the spec's Spot and SpotWithDistance, plus `hexId`). */
export interface Spot {
  id: string;
  name: string;
  country: string;
  region: string | null;
  lat: number;
  lng: number;
  /** The raw 16-hex id, accepted wherever a spot id is. An extra field beyond the spec. */
  hexId: string;
  /** Beyond the spec: bearing from the beach toward open water, degrees; null when unknown or not computed yet. */
  facing: number | null;
  /** Beyond the spec: true when the spot has no tides to speak of; null until its tide station is chosen. */
  tideless: boolean | null;
  /** Beyond the spec: the IANA time zone at the spot (times in the API stay UTC). */
  timezone: string;
}

/** What other domains derive per spot (forecast facings, tide station choices), imports' overrides applied. */
export interface DerivedSpotFacts {
  facing: number | null;
  tideless: boolean | null;
  /** The tide station the spot's tides come from; null when tideless or not chosen yet. */
  station: { id: string; name: string; distanceKm: number } | null;
}

/** `GET /v1/spots/{id}`: the spot and its guide (spots/guide.ts). */
export interface SpotDetail extends Spot {
  guide: SpotGuide;
}

export interface SpotWithDistance extends Spot {
  distanceKm: number;
}
