/**
 * The schemas of /v1, documentation only — core/params.ts validates the parameters (from the same bounds) and
 * the handlers return ready-made Responses, so nothing here runs per request. The request parameters are
 * declared here (the MCP tools' arguments are made from them); the response bodies are declared in the rooms
 * that own them (core/shapes.ts) and named here as the components of the OpenAPI document (http/openapi.ts).
 * Bounds come from core/bounds.ts, the table the strict parser uses too; `required` lists follow the spec's
 * tables exactly, so fields we send beyond the spec (Spot.hexId, TidesResponse.datum/station) are documented
 * but optional.
 */
import { t, type TSchema } from "elysia";
import { BEYOND_SPEC, stringEnum, type ComponentName } from "../core/shapes";
import { BOUNDS } from "../core/bounds";
import { ERROR_STATUS, type ErrorCode } from "../core/errors";
import { UsageDaySchema, UsageResponseSchema } from "../access/meter";
import { SpotDetailSchema, SpotSchema, SpotWithDistanceSchema } from "../spots/types";
import { DirectionRangeSchema, SpotGuideSchema } from "../spots/guide";
import { TideExtremeSchema, TideSchema, TideSourceSchema, TideStationSchema, TidesResponseSchema } from "../tides/types";
import {
  BestWindowSchema,
  ConfidenceSchema,
  DailyWeatherSchema,
  DayBestSchema,
  ForecastGridSchema,
  ForecastHourSchema,
  ForecastModelsSchema,
  ForecastResponseSchema,
  GridCellSchema,
  RatingSchema,
  SurfRangeSchema,
  SwellComponentSchema,
} from "../forecast/types";
import { BestSpotSchema } from "../forecast/best-spots";
import { NowSunSchema } from "../forecast/sun";
import { NowManyResponseSchema, NowResponseSchema, NowTideSchema } from "../now/types";
import { UNITS } from "../core/units";
import { ClimatePendingSchema, ClimateResponseSchema } from "../climate/types";
import { BuoySchema, LeadDayScoreSchema, ModelScoreSchema, ObservationsResponseSchema, VerificationResponseSchema, VerificationScoreSchema } from "../observations/types";

// ---------------------------------------------------------------- request parameters

/** The same on every read that carries measurements; the spec's default stays metric. */
const unitsParam = t.Optional(
  t.UnionEnum(UNITS, {
    default: "metric",
    description: "`imperial`: heights in feet, speeds in mph, temperatures in °F; the answer's `units` says which. Ratings, windows, directions, periods and distances are the same in both.",
  }),
);

const limitParam = t.Integer({
  minimum: BOUNDS.limit.minimum,
  maximum: BOUNDS.limit.maximum,
  default: BOUNDS.limit.default,
  description: `How many spots to return at most (${BOUNDS.limit.minimum}..${BOUNDS.limit.maximum}).`,
});

export const searchQuery = t.Object({
  q: t.String({
    minLength: BOUNDS.q.minLength,
    maxLength: BOUNDS.q.maxLength,
    // Two characters after trimming: two that are not white space (the parser trims as \s does).
    pattern: "\\S[\\s\\S]*\\S",
    description: "Search text (name, alias or country), case- and diacritic-insensitive; at least 2 characters after trimming.",
  }),
  limit: t.Optional(limitParam),
});

export const nearbyQuery = t.Object({
  lat: t.Number({ minimum: BOUNDS.lat.minimum, maximum: BOUNDS.lat.maximum, description: "Latitude in decimal degrees (WGS84)." }),
  lng: t.Number({ minimum: BOUNDS.lng.minimum, maximum: BOUNDS.lng.maximum, description: "Longitude in decimal degrees (WGS84)." }),
  radius: t.Optional(
    t.Number({ minimum: BOUNDS.radius.minimum, maximum: BOUNDS.radius.maximum, default: BOUNDS.radius.default, description: "Search radius in kilometers." }),
  ),
  limit: t.Optional(limitParam),
});

export const bestSpotsQuery = t.Object({
  ...nearbyQuery.properties,
  level: t.Optional(
    // A string with `enum` (documentation; TypeBox does not check it): the strict parser names the levels.
    t.String({
      enum: [...BOUNDS.level.values],
      default: BOUNDS.level.default,
      description: "The surfer level whose rating ranks the spots.",
    }),
  ),
  hours: t.Optional(
    t.Integer({
      minimum: BOUNDS.hours.minimum,
      maximum: BOUNDS.hours.maximum,
      default: BOUNDS.hours.default,
      description: "How many hours ahead to look, from the current UTC hour.",
    }),
  ),
  units: unitsParam,
});

export const daysQuery = t.Object({
  days: t.Optional(
    t.Integer({ minimum: BOUNDS.days.minimum, maximum: BOUNDS.days.maximum, default: BOUNDS.days.default, description: "How many days ahead, counted from now." }),
  ),
  units: unitsParam,
});

export const idParams = t.Object({
  id: t.String({ description: "Spot slug (for example `pipeline`) or the spot's raw 16-hex id." }),
});


export const nowQuery = t.Object({ units: unitsParam });

export const observationsQuery = t.Object({ units: unitsParam });

export const climateQuery = t.Object({
  units: t.Optional(t.UnionEnum(UNITS, { default: "metric", description: "`imperial`: wave heights in feet, wind in mph." })),
});

export const verificationQuery = t.Object({
  days: t.Optional(
    t.Integer({
      minimum: BOUNDS.verificationDays.minimum,
      maximum: BOUNDS.verificationDays.maximum,
      default: BOUNDS.verificationDays.default,
      description: "How many days back the window reaches, ending with the current UTC hour.",
    }),
  ),
});

/** 1 to 20 ids separated by commas, none of them empty or only white space (distinct ones: the description says). */
const SPOT_ID_ITEM = "\\s*[^,\\s][^,]*";
const SPOT_LIST = `^${SPOT_ID_ITEM}(,${SPOT_ID_ITEM}){${BOUNDS.spots.minItems - 1},${BOUNDS.spots.maxItems - 1}}$`;

export const nowManyQuery = t.Object({
  spots: t.String({
    pattern: SPOT_LIST,
    description: `${BOUNDS.spots.minItems} to ${BOUNDS.spots.maxItems} distinct spots (slugs or 16-hex ids) separated by commas, for example \`pipeline,supertubos\`; one spot named twice, also by its slug and its id, is a 400. Each counts as one request.`,
  }),
  units: unitsParam,
});

// ---------------------------------------------------------------- response bodies (components)

const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const ErrorSchema = t.Object(
  {
    error: t.Object({
      code: stringEnum(ERROR_CODES, { description: "Machine-readable error code; see the description of each response for the codes it can carry." }),
      message: t.String({ description: "Human-readable explanation." }),
    }),
  },
  { description: "Every error response has this shape." },
);

/** The declared shapes by component name, in the order a reader meets them in the document. */
export const SHAPES = {
  Spot: SpotSchema,
  SpotWithDistance: SpotWithDistanceSchema,
  SpotDetail: SpotDetailSchema,
  BestSpot: BestSpotSchema,
  SpotGuide: SpotGuideSchema,
  DirectionRange: DirectionRangeSchema,
  ForecastResponse: ForecastResponseSchema,
  ForecastHour: ForecastHourSchema,
  Rating: RatingSchema,
  SwellComponent: SwellComponentSchema,
  SurfRange: SurfRangeSchema,
  Confidence: ConfidenceSchema,
  ForecastModels: ForecastModelsSchema,
  ForecastGrid: ForecastGridSchema,
  GridCell: GridCellSchema,
  Tide: TideSchema,
  DailyWeather: DailyWeatherSchema,
  DayBest: DayBestSchema,
  BestWindow: BestWindowSchema,
  TidesResponse: TidesResponseSchema,
  TideExtreme: TideExtremeSchema,
  TideStation: TideStationSchema,
  TideSource: TideSourceSchema,
  UsageResponse: UsageResponseSchema,
  UsageDay: UsageDaySchema,
  NowResponse: NowResponseSchema,
  NowTide: NowTideSchema,
  NowSun: NowSunSchema,
  NowManyResponse: NowManyResponseSchema,
  ObservationsResponse: ObservationsResponseSchema,
  Buoy: BuoySchema,
  VerificationResponse: VerificationResponseSchema,
  VerificationScore: VerificationScoreSchema,
  ModelScore: ModelScoreSchema,
  LeadDayScore: LeadDayScoreSchema,
  ClimateResponse: ClimateResponseSchema,
  ClimatePending: ClimatePendingSchema,
  Error: ErrorSchema,
} satisfies Record<ComponentName, TSchema>;

/** A schema as the OpenAPI document shows it: plain JSON, the fields beyond the spec left out of `required`. */
function documented(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(documented);
  if (typeof schema !== "object" || schema === null) return schema;
  const copy: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, documented(value)]));
  const { properties, required } = schema as { properties?: Record<string, object>; required?: string[] };
  if (properties && required) copy.required = required.filter((name) => !(BEYOND_SPEC in properties[name]!));
  return copy;
}

/** The named components of the document. */
export const COMPONENT_SCHEMAS = documented(SHAPES) as Record<ComponentName, object>;

export type { ComponentName };
