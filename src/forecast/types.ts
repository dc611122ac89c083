/** The spec's forecast shapes, plus the datum and station of the hours' tide heights, and what we add beyond the spec. */
import { dateTime, degrees, forMcp, integer, nullable, nullableStringEnum, ref, stringEnum, t, type Static } from "../core/shapes";
import { TideSchema, TideStationSchema } from "../tides/types";
import { ForecastCorrectionSchema } from "../observations/types";
import { UNITS } from "../core/units";

/** Why a model's series was not used at a spot. */
const LEFT_OUT_REASONS = ["zero series", "no data"] as const;
export type LeftOutReason = (typeof LEFT_OUT_REASONS)[number];

const ratingValue = forMcp(integer({ minimum: 1, maximum: 5 }), { bounds: true });

export const RatingSchema = t.Object(
  { beginner: ratingValue, intermediate: ratingValue, advanced: ratingValue },
  { description: "How good the hour is for each surfer level, 1 (poor) to 5 (best)." },
);

const SWELL_KINDS = ["primary", "secondary", "tertiary", "wind"] as const;

export const SwellComponentSchema = t.Object(
  {
    kind: stringEnum(SWELL_KINDS, { description: "`primary`, `secondary` or `tertiary` swell, or `wind` sea (Open-Meteo Marine's partitions)." }),
    height: t.Number({ minimum: 0, description: "Significant height, meters (feet with `units=imperial`)." }),
    period: t.Number({ minimum: 0, description: "Period, seconds." }),
    direction: degrees("Direction the component comes from, degrees."),
  },
  { description: "One wave component of a forecast hour (beyond the spec)." },
);

export const SurfRangeSchema = t.Object(
  {
    min: t.Number({ minimum: 0, description: "Typical breaking wave face height at the beach, meters (0.1 m steps; feet with `units=imperial`)." }),
    max: t.Number({ minimum: 0, description: "Set waves: the higher waves of the hour, meters (0.1 m steps; feet with `units=imperial`)." }),
  },
  { description: "Beyond the spec: breaking wave face height range at the beach, from the wave components, the spot's facing and the periods (model: docs/ratings.md). Absent in forecasts stored before this field existed." },
);

export const WIND_DIRECTION_TYPES = ["offshore", "onshore", "cross"] as const;

/** Surest first, the order the document lists them in (forecast/best.ts ranks them the other way). */
export const CONFIDENCE_LEVELS_SUREST_FIRST = ["high", "medium", "low"] as const;

export const ConfidenceSchema = t.Object(
  {
    level: stringEnum(CONFIDENCE_LEVELS_SUREST_FIRST, {
      description: "From the relative spread `(max − min) / median`: below 0.25 `high`, below 0.5 `medium`, else `low`. One model alone is never more than `medium`.",
    }),
    models: integer({ minimum: 1, description: "Wave models with a wave height this hour (a model past its horizon, or left out at this spot, does not count)." }),
    waveHeight: t.Object(
      {
        min: t.Number({ exclusiveMinimum: 0, description: "Lowest model, meters (feet with `units=imperial`)." }),
        median: t.Number({ exclusiveMinimum: 0, description: "The models' median, meters (feet with `units=imperial`): the hour's `waveHeight`." }),
        max: t.Number({ exclusiveMinimum: 0, description: "Highest model, meters (feet with `units=imperial`)." }),
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
      additionalProperties: { type: "string", enum: [...LEFT_OUT_REASONS] },
      description: "Models asked for but not counted here, with why: `zero series` (every wave height 0 where another model sees sea: a cell on land) or `no data` (every value null: no cell near the spot).",
    }),
    correction: t.Optional(ForecastCorrectionSchema),
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
    waveHeight: t.Number({ minimum: 0, description: "Combined significant wave height, meters (feet with `units=imperial`)." }),
    swellHeight: t.Number({ minimum: 0, description: "Primary swell height, meters (feet with `units=imperial`)." }),
    wavePeriod: t.Number({ minimum: 0, description: "Primary swell period, seconds." }),
    waveDirection: forMcp(degrees("Primary swell direction, degrees (true wave direction is not stored)."), { description: "Swell from, degrees." }),
    windSpeed: t.Number({ minimum: 0, description: "Wind speed at 10 m, km/h (mph with `units=imperial`)." }),
    windDirection: forMcp(degrees("Wind direction, degrees."), { description: "From, degrees." }),
    windGust: t.Number({ minimum: 0, description: "Wind gusts, km/h (mph with `units=imperial`)." }),
    windDirectionType: nullableStringEnum(WIND_DIRECTION_TYPES, { description: "Wind relative to the spot's facing; null when the facing is unknown." }),
    airTemperature: t.Number({ description: "Air temperature at 2 m, Celsius (Fahrenheit with `units=imperial`)." }),
    waterTemperature: t.Number({ description: "Sea surface temperature, Celsius (Fahrenheit with `units=imperial`)." }),
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
    end: forMcp(dateTime("End of the window's last hour (exclusive), UTC."), { description: "Exclusive." }),
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

export const ForecastResponseSchema = t.Object(
  {
    spot: t.Object({ id: t.String(), name: t.String(), country: t.String() }),
    units: stringEnum(UNITS, { description: "As asked with `units` (metric by default)." }),
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

export type WindDirectionType = (typeof WIND_DIRECTION_TYPES)[number];
export type Rating = Static<typeof RatingSchema>;
export type Level = keyof Rating;
/** The best run of consecutive daylight hours for one level (forecast/best.ts). */
export type BestWindow = Static<typeof BestWindowSchema>;
export type DayBest = Static<typeof DayBestSchema>;
/** Open-Meteo Marine's wave components: primary, secondary and tertiary swell, and the wind sea. */
export type SwellKind = (typeof SWELL_KINDS)[number];
export type SwellComponent = Static<typeof SwellComponentSchema>;
/** Breaking wave face height range at the beach, m (forecast/surf.ts, docs/ratings.md). */
export type SurfRange = Static<typeof SurfRangeSchema>;
export type ConfidenceLevel = (typeof CONFIDENCE_LEVELS_SUREST_FIRST)[number];
/** How far the wave models agree on an hour's wave height (forecast/consensus.ts, docs/forecast.md "Confidence"). */
export type Confidence = Static<typeof ConfidenceSchema>;
/** The wave models behind a document: those counted, and those left out at this spot with why. */
export type ModelUse = Static<typeof ForecastModelsSchema>;
/** A grid cell an upstream answered from, and its great-circle distance from the spot. */
export type GridCell = Static<typeof GridCellSchema>;
export type ForecastGrid = Static<typeof ForecastGridSchema>;
export type ForecastHour = Static<typeof ForecastHourSchema>;
export type DailyWeather = Static<typeof DailyWeatherSchema>;
export type ForecastResponse = Static<typeof ForecastResponseSchema>;

export const ATTRIBUTION =
  "Weather and marine inputs include data from Open-Meteo.com (https://open-meteo.com/), licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/).";
