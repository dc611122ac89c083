/** The public shapes of the spot domain: the spec's Spot and SpotWithDistance, and the fields we add. */
import { beyondSpec, forMcp, nullable, ref, t, type Static } from "../core/shapes";
import { SpotGuideSchema } from "./guide";

const spotFields = {
  id: t.String({ pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$", description: "Stable slug: lower-case words joined by hyphens." }),
  name: t.String({ description: "Spot name." }),
  country: t.String({ description: "First segment of the spot's country string." }),
  region: nullable(t.String({ description: "Remaining segments of the country string." })),
  lat: t.Number({ minimum: -90, maximum: 90, description: "Latitude." }),
  lng: t.Number({ minimum: -180, maximum: 180, description: "Longitude." }),
  hexId: beyondSpec(
    forMcp(t.String({ pattern: "^[0-9a-f]{16}$", description: "The raw 16-hex id, accepted wherever a spot id is a parameter. Beyond the spec: may be absent." }), {
      description: "Also a spot_id.",
    }),
  ),
  facing: beyondSpec(
    forMcp(
      nullable(
        t.Number({
          minimum: 0,
          maximum: 360,
          description: "Beyond the spec: bearing from the beach toward open water, degrees true; null when unknown (no coast within 10 km, lakes, pools) or not computed yet. An import's value wins over the computed one (docs/ratings.md, \"Orientation\").",
        }),
      ),
      { description: "Toward open water, degrees." },
    ),
  ),
  tideless: beyondSpec(nullable(t.Boolean({ description: "Beyond the spec: true when the spot has no tides to speak of; null until its tide station is chosen (docs/tides.md)." }))),
  timezone: beyondSpec(
    forMcp(t.String({ description: "Beyond the spec: the IANA time zone at the spot (for example `Pacific/Honolulu`), for showing local times; every time in the API stays UTC." }), {
      description: "IANA zone.",
    }),
  ),
};

export const SpotSchema = t.Object(spotFields, { description: "A named surf spot." });

export const SpotWithDistanceSchema = t.Object(
  { ...spotFields, distanceKm: t.Number({ minimum: 0, description: "Distance from the query coordinate, in km." }) },
  { description: "A spot found by position, with its distance from the query coordinate." },
);

export const SpotDetailSchema = t.Object(
  { ...spotFields, guide: beyondSpec(ref("SpotGuide", SpotGuideSchema)) },
  { description: "A named surf spot; `GET /v1/spots/{id}` adds its guide (beyond the spec)." },
);

export type Spot = Static<typeof SpotSchema>;
export type SpotWithDistance = Static<typeof SpotWithDistanceSchema>;
/** `GET /v1/spots/{id}`: the spot and its guide (spots/guide.ts). */
export type SpotDetail = Static<typeof SpotDetailSchema>;

/** What other domains derive per spot (forecast facings, tide station choices), imports' overrides applied. */
export interface DerivedSpotFacts {
  facing: number | null;
  tideless: boolean | null;
  /** The tide station the spot's tides come from; null when tideless or not chosen yet. */
  station: { id: string; name: string; distanceKm: number } | null;
}
