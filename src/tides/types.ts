/** The spec's tide shapes, plus the provenance fields clients ask for (`datum`, `station`, `source`). */
import { beyondSpec, dateTime, forMcp, nullable, ref, stringEnum, t, type Static } from "../core/shapes";
import { UNITS } from "../core/units";

export const TideExtremeSchema = t.Object(
  {
    type: stringEnum(["high", "low"] as const),
    time: dateTime(),
    height: t.Number({ description: "Meters above the chart datum (feet with `units=imperial`)." }),
  },
  { description: "One high or low water." },
);

export const TideStationSchema = t.Object(
  {
    id: t.String(),
    name: t.String(),
    distanceKm: t.Number({ minimum: 0, description: "Distance from the spot, km." }),
    source: t.String({ description: "Where the station's harmonic constituents come from." }),
  },
  { description: "The tide station whose predictions a spot uses." },
);

export const TideSourceSchema = t.Union(
  [
    t.Object(
      {
        type: t.Literal("station"),
        id: t.String(),
        name: t.String(),
        distanceKm: t.Number({ minimum: 0, description: "Distance from the spot, km." }),
        provider: t.String({ description: "Where the station's harmonic constituents come from (NOAA, TICON-4, …)." }),
      },
      { description: "A tide station's harmonic prediction; heights above the station's chart datum." },
    ),
    t.Object(
      {
        type: t.Literal("model"),
        name: t.String({ description: "The upstream model, e.g. Open-Meteo Marine (MeteoFrance SMOC)." }),
        variable: t.String({ description: "The upstream variable: sea_level_height_msl." }),
        fetchedAt: dateTime(),
      },
      { description: "High and low waters found in the sea-level model's hourly series (tide and surge); heights above mean sea level." },
    ),
  ],
  { description: "Where the spot's tides come from (docs/tides.md: which source serves a spot)." },
);

export const TidesResponseSchema = t.Object(
  {
    spot: t.Object({ id: t.String(), name: t.String() }),
    units: stringEnum(UNITS, { description: "As asked with `units` (metric by default)." }),
    extremes: t.Array(ref("TideExtreme", TideExtremeSchema), { description: "From now forward; empty for tideless spots." }),
    tideless: t.Boolean({ description: "true for spots without tides." }),
    datum: beyondSpec(
      forMcp(nullable(t.String({ description: "Chart datum the heights are above (for example MLLW or LAT)." })), { description: "What heights are above (LAT, MLLW, MSL…)." }),
    ),
    station: beyondSpec(nullable(ref("TideStation", TideStationSchema))),
    source: beyondSpec(nullable(ref("TideSource", TideSourceSchema))),
    tidelessReason: beyondSpec(nullable(t.String({ description: "Why the spot is tideless (negligible range, no sea-level data, import override); null otherwise." }))),
    unavailable: beyondSpec(
      forMcp(
        nullable(
          stringEnum(["awaiting_model", "model_expired"] as const, {
            description:
              "Set when a tidal spot has no extremes to show: `awaiting_model` (no station serves it and no refresh has fetched the model yet), `model_expired` (the stored model week has passed: refreshes are failing). null otherwise.",
          }),
        ),
        { description: "Why a tidal spot has no extremes." },
      ),
    ),
  },
  {
    description:
      "Stored tide extremes of one spot. `datum`, `station`, `source`, `tidelessReason` and `unavailable` go beyond the spec and may be absent. `datum` is the station's chart datum, or `MSL` for the model; null without a source.",
  },
);

export const TideSchema = t.Object(
  {
    height: t.Number({ description: "Tide height in meters above the station's chart datum (feet with `units=imperial`)." }),
    state: stringEnum(["rising", "falling"] as const),
  },
  { description: "The tide at a forecast hour." },
);

export type TideExtreme = Static<typeof TideExtremeSchema>;
export type TideStationInfo = Static<typeof TideStationSchema>;
/** Where a spot's tides come from: a tide station's harmonic prediction, or the sea-level model. */
export type TideSourceInfo = Static<typeof TideSourceSchema>;
export type TidesResponse = Static<typeof TidesResponseSchema>;
/** Why a tidal spot has no extremes to show: the model was never fetched for it, or its stored week has passed. */
export type TidesUnavailable = NonNullable<TidesResponse["unavailable"]>;

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
export type HourTide = Static<typeof TideSchema>;

/** A spot's tide as a forecast document records it (`TideService.forDocument`). */
export interface DocumentTide {
  reference: TideReference;
  /** The tide at each of `times` (epoch ms); null where there is none. */
  hourly(times: number[]): (HourTide | null)[];
}
