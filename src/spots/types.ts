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
}

export interface SpotWithDistance extends Spot {
  distanceKm: number;
}
