/**
 * The schemas of /v1: request parameters and response bodies, documentation only — core/params.ts validates
 * the parameters (from the same bounds) and the handlers return ready-made Responses, so nothing here runs per
 * request. Both become the OpenAPI document (http/openapi.ts). Bounds come from core/bounds.ts, the
 * table the strict parser and the MCP tools use too; `required` lists follow the spec's tables exactly, so
 * fields we send beyond the spec (Spot.hexId, TidesResponse.datum/station) are documented but optional.
 */
import { t, type TSchema } from "elysia";
import { BEYOND_SPEC, beyondSpec, dateTime, degrees, forMcp, integer, nullable, nullableStringEnum, ref, stringEnum, type ComponentName, type Serves } from "../core/shapes";
import { BOUNDS } from "../core/bounds";
import { ERROR_STATUS, type ErrorCode } from "../core/errors";
import type { UsageReport } from "../access/meter";
import { USAGE_KEYS } from "../core/endpoints";
import { SpotDetailSchema, SpotSchema, SpotWithDistanceSchema } from "../spots/types";
import { DirectionRangeSchema, SpotGuideSchema } from "../spots/guide";
import type { ConfidenceLevel, ForecastResponse, LeftOutReason, SwellKind, WindDirectionType } from "../forecast/types";
import { TideExtremeSchema, TideSchema, TideSourceSchema, TideStationSchema, TidesResponseSchema } from "../tides/types";
import type { NowManyResponse, NowResponse } from "../now/types";
import { UNITS } from "../now/units";
import type { BestSpot } from "../forecast/best-spots";

// ---------------------------------------------------------------- request parameters

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
});

export const daysQuery = t.Object({
  days: t.Optional(
    t.Integer({ minimum: BOUNDS.days.minimum, maximum: BOUNDS.days.maximum, default: BOUNDS.days.default, description: "How many days ahead, counted from now." }),
  ),
  units: t.Optional(t.Literal("metric", { description: "Always metric here; anything else is a 400 naming where imperial units are served (`/now`)." })),
});

export const idParams = t.Object({
  id: t.String({ description: "Spot slug (for example `pipeline`) or the spot's raw 16-hex id." }),
});

const unitsParam = t.Optional(
  t.UnionEnum(UNITS, { default: "metric", description: "`imperial`: heights in feet, speeds in mph, temperatures in °F (this endpoint only; the spec's endpoints stay metric)." }),
);

export const nowQuery = t.Object({ units: unitsParam });

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

const ratingValue = forMcp(integer({ minimum: 1, maximum: 5 }), { bounds: true });

export const RatingSchema = t.Object(
  { beginner: ratingValue, intermediate: ratingValue, advanced: ratingValue },
  { description: "How good the hour is for each surfer level, 1 (poor) to 5 (best)." },
);

const SWELL_KINDS = ["primary", "secondary", "tertiary", "wind"] as const satisfies readonly SwellKind[];

export const SwellComponentSchema = t.Object(
  {
    kind: stringEnum(SWELL_KINDS, { description: "`primary`, `secondary` or `tertiary` swell, or `wind` sea (Open-Meteo Marine's partitions)." }),
    height: t.Number({ minimum: 0, description: "Significant height, meters." }),
    period: t.Number({ minimum: 0, description: "Period, seconds." }),
    direction: degrees("Direction the component comes from, degrees."),
  },
  { description: "One wave component of a forecast hour (beyond the spec)." },
);

export const SurfRangeSchema = t.Object(
  {
    min: t.Number({ minimum: 0, description: "Typical breaking wave face height at the beach, meters (0.1 m steps)." }),
    max: t.Number({ minimum: 0, description: "Set waves: the higher waves of the hour, meters (0.1 m steps)." }),
  },
  { description: "Beyond the spec: breaking wave face height range at the beach, from the wave components, the spot's facing and the periods (model: docs/ratings.md). Absent in forecasts stored before this field existed." },
);

const WIND_DIRECTION_TYPES = ["offshore", "onshore", "cross"] as const satisfies readonly WindDirectionType[];

const CONFIDENCE_LEVELS = ["high", "medium", "low"] as const satisfies readonly ConfidenceLevel[];

export const ConfidenceSchema = t.Object(
  {
    level: stringEnum(CONFIDENCE_LEVELS, {
      description: "From the relative spread `(max − min) / median`: below 0.25 `high`, below 0.5 `medium`, else `low`. One model alone is never more than `medium`.",
    }),
    models: integer({ minimum: 1, description: "Wave models with a wave height this hour (a model past its horizon, or left out at this spot, does not count)." }),
    waveHeight: t.Object(
      {
        min: t.Number({ exclusiveMinimum: 0, description: "Lowest model, meters." }),
        median: t.Number({ exclusiveMinimum: 0, description: "The models' median, meters: the hour's `waveHeight`." }),
        max: t.Number({ exclusiveMinimum: 0, description: "Highest model, meters." }),
      },
      { description: "The models' significant wave heights this hour." },
    ),
  },
  { description: "Beyond the spec: how far the wave models agree on this hour (docs/forecast.md, \"Several wave models\"). Absent in forecasts stored before this field existed." },
);

export const ForecastModelsSchema = t.Object(
  {
    used: t.Array(t.String(), { description: "Open-Meteo Marine models counted at this spot, e.g. `meteofrance_wave`." }),
    leftOut: t.Unsafe<Record<string, LeftOutReason>>({
      type: "object",
      additionalProperties: { type: "string", enum: ["zero series", "no data"] satisfies LeftOutReason[] },
      description: "Models asked for but not counted here, with why: `zero series` (every wave height 0 where another model sees sea: a cell on land) or `no data` (every value null: no cell near the spot).",
    }),
  },
  { description: "Beyond the spec: the wave models behind the hours. Absent in forecasts stored before it was recorded." },
);

export const GridCellSchema = t.Object(
  {
    lat: t.Number({ minimum: -90, maximum: 90, description: "Latitude of the cell's centre." }),
    lng: t.Number({ minimum: -180, maximum: 180, description: "Longitude of the cell's centre." }),
    distanceKm: t.Number({ minimum: 0, description: "Great-circle distance from the spot, km (0.1 km steps)." }),
  },
  { description: "The model grid cell an upstream answered from." },
);

export const ForecastGridSchema = t.Object(
  { marine: ref("GridCell", GridCellSchema), weather: ref("GridCell", GridCellSchema) },
  { description: "Beyond the spec: the grid cells the wave (`marine`) and weather inputs came from, so a beach forecast from a cell far offshore shows. Absent in forecasts stored before it was recorded." },
);

export const ForecastHourSchema = t.Object(
  {
    time: dateTime("Start of the hour, UTC."),
    waveHeight: t.Number({ minimum: 0, description: "Combined significant wave height, meters." }),
    swellHeight: t.Number({ minimum: 0, description: "Primary swell height, meters." }),
    wavePeriod: t.Number({ minimum: 0, description: "Primary swell period, seconds." }),
    waveDirection: forMcp(degrees("Primary swell direction, degrees (true wave direction is not stored)."), { description: "Swell from, degrees." }),
    windSpeed: t.Number({ minimum: 0, description: "Wind speed at 10 m, km/h." }),
    windDirection: forMcp(degrees("Wind direction, degrees."), { description: "From, degrees." }),
    windGust: t.Number({ minimum: 0, description: "Wind gusts, km/h." }),
    windDirectionType: nullableStringEnum(WIND_DIRECTION_TYPES, { description: "Wind relative to the spot's facing; null when the facing is unknown." }),
    airTemperature: t.Number({ description: "Air temperature at 2 m, Celsius." }),
    waterTemperature: t.Number({ description: "Sea surface temperature, Celsius." }),
    weatherCode: forMcp(integer({ minimum: 0, maximum: 99, description: "WMO weather code." }), { description: "WMO code." }),
    tide: nullable(ref("Tide", TideSchema)),
    rating: ref("Rating", RatingSchema),
    swells: t.Optional(
      t.Array(ref("SwellComponent", SwellComponentSchema), {
        description: "Beyond the spec: the wave components with data this hour, largest energy (H²·T) first. Absent in forecasts stored before this field existed.",
      }),
    ),
    surf: t.Optional(ref("SurfRange", SurfRangeSchema)),
    confidence: t.Optional(ref("Confidence", ConfidenceSchema)),
  },
  { description: "Conditions for one UTC hour. `tide` is null for tideless spots." },
);

export const BestWindowSchema = t.Object(
  {
    start: dateTime("First hour of the window, UTC."),
    end: forMcp(dateTime("End of the window's last hour (exclusive), UTC."), { description: "End of the last hour." }),
    rating: forMcp(integer({ minimum: 2, maximum: 5, description: "The rating every hour of the window has for the level: the best of the hours considered." }), { bounds: true }),
  },
  { description: "The best run of consecutive daylight hours for one level (docs/forecast.md, \"Best windows\")." },
);

const bestOrNull = nullable(ref("BestWindow", BestWindowSchema));

export const DayBestSchema = t.Object(
  { beginner: bestOrNull, intermediate: bestOrNull, advanced: bestOrNull },
  { description: "Per level, the best window of consecutive daylight hours; null when no daylight hour rates above 1 (or the day has no sunrise or sunset)." },
);

export const DailyWeatherSchema = t.Object(
  {
    date: t.String({ format: "date", description: "UTC calendar date." }),
    sunrise: nullable(dateTime()),
    sunset: nullable(dateTime()),
    uvIndexMax: t.Number({ minimum: 0, description: "Daily maximum UV index." }),
    best: t.Optional(ref("DayBest", DayBestSchema)),
  },
  { description: "Daily weather for one date. Sunrise or sunset is null on days without one (polar day or night)." },
);

export const BestSpotSchema = t.Object(
  {
    spot: ref("SpotWithDistance", SpotWithDistanceSchema),
    rating: forMcp(integer({ minimum: 1, maximum: 5, description: "The best window's rating for the level; 1 when no daylight hour rates above 1." }), { bounds: true }),
    best: forMcp(nullable(ref("BestWindow", BestWindowSchema)), { description: "Best run of daylight hours; null when nothing rates above 1." }),
    surf: nullable(ref("SurfRange", SurfRangeSchema)),
    windDirectionType: nullableStringEnum(WIND_DIRECTION_TYPES, {
      description: "Wind relative to the spot's facing at the window's first hour (or the first hour when there is no window).",
    }),
    confidence: stringEnum(CONFIDENCE_LEVELS, {
      description: "How far the wave models agree over the window (or the first hour): its least sure hour's level (`medium` for forecasts stored before confidence existed). Between spots of the same rating, the surer window ranks first.",
    }),
  },
  {
    description:
      "One spot of `GET /v1/spots/best` (beyond the spec): its best window for the level over the hours asked, the surf range over that window (or the first hour when there is none) and the wind type.",
  },
);

export const ForecastResponseSchema = t.Object(
  {
    spot: t.Object({ id: t.String(), name: t.String(), country: t.String() }),
    units: t.Literal("metric"),
    updatedAt: dateTime("When the forecast document was last refreshed."),
    attribution: forMcp(t.String({ description: "States that weather inputs include data from Open-Meteo under CC BY 4.0. Show it with the data." }), {
      description: "Show it with the data.",
    }),
    demo: t.Optional(t.Literal(true, { description: "Beyond the spec: present only on synthetic demo data (`surfcast serve --demo`); the attribution then says so." })),
    models: t.Optional(ref("ForecastModels", ForecastModelsSchema)),
    grid: t.Optional(ref("ForecastGrid", ForecastGridSchema)),
    hours: t.Array(ref("ForecastHour", ForecastHourSchema), { description: "Hourly, from the current UTC hour forward." }),
    daily: t.Array(ref("DailyWeather", DailyWeatherSchema)),
    datum: t.Optional(nullable(t.String({ description: "Chart datum the hours' tide heights are above (for example MLLW or LAT); null for tideless spots." }))),
    station: t.Optional(nullable(ref("TideStation", TideStationSchema))),
  },
  {
    description:
      "The hourly forecast of one spot. `datum` and `station` (beyond the spec) name what every hour's tide height is measured from, once per document; null for tideless spots, absent from documents refreshed before they were recorded.",
  },
);

const ENDPOINT_KEY = `^(?:${USAGE_KEYS.map((e) => e.replace(".", "\\.")).join("|")}|mcp\\.[a-z0-9_]+)$`;

export const UsageDaySchema = t.Object(
  {
    date: t.String({ format: "date", description: "UTC day." }),
    total: integer({ minimum: 0 }),
    byEndpoint: t.Unsafe<Record<string, number>>({
      type: "object",
      propertyNames: { pattern: ENDPOINT_KEY },
      additionalProperties: { type: "integer", minimum: 0 },
      description: `Request counts keyed by ${USAGE_KEYS.join(", ")} and mcp.<tool> (one key per MCP tool name).`,
    }),
  },
  { description: "One UTC day of usage." },
);

export const UsageResponseSchema = t.Object(
  {
    plan: t.String({ description: "Plan of the presented key." }),
    limit: integer({ minimum: 0, description: "Daily request limit." }),
    today: integer({ minimum: 0, description: "Requests counted against the daily quota so far today (UTC); `byEndpoint.embed` (embed view-minutes) and `byEndpoint.calendar` (alerts' calendar feed fetches) are not among them." }),
    days: t.Array(ref("UsageDay", UsageDaySchema), { minItems: 30, maxItems: 30, description: "The last 30 UTC days, oldest first, today last." }),
  },
  { description: "Usage of the presented key." },
);

const nowExtreme = (description: string) =>
  t.Object({ time: dateTime(), height: t.Number({ description: "Meters (feet with `units=imperial`) above the datum." }) }, { description });

export const NowTideSchema = t.Object(
  {
    height: t.Number({ description: "Height at this minute from the station's harmonic prediction, meters (feet with `units=imperial`) above `datum`; between the extremes around it." }),
    state: stringEnum(["rising", "falling"] as const, { description: "Toward `nextEvent`: rising when it is a high." }),
    datum: nullable(t.String({ description: "Chart datum the heights are above (for example MLLW or LAT)." })),
    station: nullable(ref("TideStation", TideStationSchema)),
    nextHigh: nowExtreme("The first high water at or after `time`: the first high that `/tides` lists."),
    nextLow: nowExtreme("The first low water at or after `time`."),
    nextEvent: t.Object(
      {
        type: stringEnum(["high", "low"] as const),
        time: dateTime(),
        height: t.Number({ description: "Meters (feet with `units=imperial`)." }),
        minutesUntil: forMcp(integer({ minimum: 0, description: "Whole minutes from `time` to the turn; 0 during the minute of the turn." }), { bounds: true }),
      },
      { description: "The next turn of the tide: `nextHigh` or `nextLow`, whichever comes first." },
    ),
  },
  { description: "The tide at this minute. null for tideless spots." },
);

export const NowSunSchema = t.Object(
  {
    sunrise: nullable(dateTime("Sunrise of the daylight under way, else of the next one.")),
    sunset: nullable(dateTime("Sunset of the same daylight.")),
    daylight: t.Unsafe<boolean | null>({ type: ["boolean", "null"], description: "Whether `time` lies between them; null when the day has no sunrise or sunset (polar day or night)." }),
  },
  { description: "The sun at the spot, from the forecast's daily sunrise and sunset." },
);

export const NowResponseSchema = t.Object(
  {
    spot: t.Object({
      id: t.String(),
      name: t.String(),
      country: t.String(),
      timezone: t.String({ description: "IANA time zone at the spot (for showing local times; every time here is UTC)." }),
    }),
    time: dateTime("The minute this answer describes, UTC (seconds are always 00)."),
    updatedAt: nullable(dateTime("When the forecast document was refreshed; null when the spot has none yet.")),
    units: stringEnum(UNITS, { description: "As asked with `units`." }),
    conditions: forMcp(nullable(ref("ForecastHour", ForecastHourSchema)), { description: "The current hour, in `units`; null without a forecast." }),
    tide: nullable(ref("NowTide", NowTideSchema)),
    sun: nullable(ref("NowSun", NowSunSchema)),
    attribution: t.String({ description: "Credits Open-Meteo as the source of the weather inputs, under CC BY 4.0. Show it with the data." }),
    demo: t.Optional(t.Literal(true, { description: "Beyond the spec: present only on synthetic demo data (`surfcast serve --demo`); the attribution then says so." })),
  },
  {
    description:
      "The current state at one spot, from stored data. `conditions` is the forecast hour of the current UTC hour as stored (null when the spot has no forecast, or its horizon has passed), in `units`; `sun` is null without a forecast.",
  },
);

export const NowManyResponseSchema = t.Object(
  { spots: t.Array(ref("NowResponse", NowResponseSchema), { description: "One answer per spot asked, in the order asked." }) },
  { description: "The current state at several spots." },
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

/**
 * Compile-time tie between the documents and the domain: each type the handlers serialize must be assignable
 * to its schema's static type (a renamed or retyped field breaks `tsc`). Undocumented extra fields are caught
 * at run time instead, by the tests' response validator.
 */
export type DomainMatchesSchemas = [
  Serves<typeof BestSpotSchema, BestSpot>,
  Serves<typeof ForecastResponseSchema, ForecastResponse>,
  Serves<typeof UsageResponseSchema, UsageReport>,
  Serves<typeof NowResponseSchema, NowResponse>,
  Serves<typeof NowManyResponseSchema, NowManyResponse>,
];
