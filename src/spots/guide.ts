/**
 * The spot guide: what a surfer reads off a spot before looking at a forecast — which wind is offshore, which
 * swell directions reach the beach, which tide station the tides come from. Derived, pure, each part naming
 * its method (docs/spots.md, "Spot guide").
 */
import { integer, nullable, ref, t, type Static } from "../core/shapes";

export const DirectionRangeSchema = t.Object(
  {
    from: t.Number({ minimum: 0, maximum: 360, description: "First direction of the arc, degrees true (coming from)." }),
    to: t.Number({ minimum: 0, maximum: 360, description: "Last direction of the arc, clockwise from `from`." }),
    method: t.String({ description: "How the arc was derived." }),
  },
  { description: "A clockwise arc of directions, `from` → `to`." },
);

const months = t.Array(integer({ minimum: 1, maximum: 12 }), { description: "Months." });

/** Declared here, where the guide is, so the climate (a room above) serves the same shape. */
export const BestMonthsSchema = t.Object(
  { beginner: months, intermediate: months, advanced: months },
  { description: "Per level, the months whose `goodDays` is at least 80 % of the level's best month's, in calendar order; empty when no day is good." },
);

export const SpotGuideSchema = t.Object(
  {
    offshoreWind: nullable(ref("DirectionRange", DirectionRangeSchema)),
    swellWindow: nullable(ref("DirectionRange", DirectionRangeSchema)),
    tideStation: nullable(
      t.Object(
        {
          id: t.String(),
          name: t.String(),
          distanceKm: t.Number({ minimum: 0, description: "Distance from the spot, km." }),
          method: t.String({ description: "How the station was chosen." }),
        },
        { description: "The tide station the spot's tides come from." },
      ),
    ),
    bestMonths: t.Optional(BestMonthsSchema),
  },
  {
    description:
      "Beyond the spec: derived facts about the spot (docs/spots.md, \"Spot guide\"). `offshoreWind` and `swellWindow` are null when the facing is unknown; `tideStation` is null for tideless spots and until the station is chosen. `bestMonths` (as in the spot's climate) is there once the spot's climate has been computed and answered since the server started (docs/climate.md); reading the spot never starts its computing.",
  },
);

/** A clockwise arc of directions (degrees true, "coming from"), `from` → `to`. */
export type DirectionRange = Static<typeof DirectionRangeSchema>;
export type SpotGuide = Static<typeof SpotGuideSchema>;
/** Per level, months 1..12. */
export type BestMonths = Static<typeof BestMonthsSchema>;

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
