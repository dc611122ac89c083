/**
 * The spot guide: what a surfer reads off a spot before looking at a forecast — which wind is offshore, which
 * swell directions reach the beach, which tide station the tides come from. Derived, pure, each part naming
 * its method (docs/spots.md, "Spot guide").
 */

/** A clockwise arc of directions (degrees true, "coming from"), `from` → `to`. */
export interface DirectionRange {
  from: number;
  to: number;
  method: string;
}

export interface GuideStation {
  id: string;
  name: string;
  distanceKm: number;
  method: string;
}

export interface SpotGuide {
  offshoreWind: DirectionRange | null;
  swellWindow: DirectionRange | null;
  tideStation: GuideStation | null;
}

/** The offshore sector of the wind classification (forecast/rating.ts): at least 135° away from the facing. */
export const OFFSHORE_METHOD = "facing + 180° ± 45°: the sector the forecast rates as offshore wind";
/** The directions the surf model lets reach the beach (exposure √cos θ > 0). */
export const SWELL_WINDOW_METHOD = "facing ± 90°: the swell directions the surf model lets reach the beach (exposure √cos θ > 0)";
export const STATION_METHOD = "the tide station the spot's tides come from: the nearest representative station within 200 km (docs/tides.md)";

const bearing = (d: number) => Math.round((((d % 360) + 360) % 360) * 10) / 10;

const arc = (centre: number, halfWidth: number, method: string): DirectionRange => ({
  from: bearing(centre - halfWidth),
  to: bearing(centre + halfWidth),
  method,
});

/** The guide of a spot with this facing (null = unknown) and tide station (null = tideless or not chosen yet). */
export function spotGuide(facing: number | null, station: { id: string; name: string; distanceKm: number } | null): SpotGuide {
  const known = facing !== null && Number.isFinite(facing);
  return {
    offshoreWind: known ? arc(facing + 180, 45, OFFSHORE_METHOD) : null,
    swellWindow: known ? arc(facing, 90, SWELL_WINDOW_METHOD) : null,
    tideStation: station ? { id: station.id, name: station.name, distanceKm: Math.round(station.distanceKm * 10) / 10, method: STATION_METHOD } : null,
  };
}
