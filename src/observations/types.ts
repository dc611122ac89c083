/** The shapes of GET /v1/spots/{id}/observations and GET /v1/spots/{id}/verification (beyond the spec). */
import { dateTime, integer, nullable, nullableStringEnum, ref, stringEnum, t, type Static } from "../core/shapes";
import { UNITS } from "../core/units";

const REASONS = ["no_buoy_in_reach", "stale", "source_unavailable", "observations_off"] as const;

const measured = (description: string) => nullable(t.Number({ description: `${description}; null where the buoy's files have none.` }));
const direction = (description: string) => nullable(t.Number({ minimum: 0, maximum: 360, description: `${description}, degrees clockwise from true north; null where the buoy's files have none.` }));

/** A reading's figures, in `units`. */
export const readingFields = {
  waveHeight: measured("Significant wave height, meters (feet with `units=imperial`)"),
  dominantPeriod: measured("Period carrying the most energy, seconds"),
  averagePeriod: measured("Mean period of all waves, seconds"),
  waveDirection: direction("Where the waves at the dominant period come from"),
  swellHeight: measured("Swell height, meters (feet)"),
  swellPeriod: measured("Swell peak period, seconds"),
  swellDirection: direction("Where the swell comes from"),
  windWaveHeight: measured("Wind-sea height, meters (feet)"),
  windWavePeriod: measured("Wind-sea period, seconds"),
  windSpeed: measured("Mean wind, km/h (mph)"),
  windGust: measured("Peak gust, km/h (mph)"),
  windDirection: direction("Where the wind comes from"),
  waterTemperature: measured("Sea surface temperature, °C (°F)"),
  airTemperature: measured("Air temperature, °C (°F)"),
  pressure: measured("Sea-level pressure, hPa"),
};

export const BuoySchema = t.Object(
  {
    id: t.String({ description: "NDBC station id." }),
    name: t.String(),
    lat: t.Number(),
    lng: t.Number(),
    distanceKm: t.Number({ minimum: 0, description: "From the spot, km to a tenth." }),
    owner: t.String({ description: "Who runs the buoy." }),
  },
  { description: "The nearest station within the radius whose latest file carries a wave height." },
);


export const ObservationsResponseSchema = t.Object(
  {
    spot: t.Object({ id: t.String(), name: t.String(), timezone: t.String() }),
    buoy: nullable(ref("Buoy", BuoySchema)),
    latest: nullable(
      t.Object(
        { time: dateTime("When the buoy measured, UTC."), ageMinutes: integer({ minimum: 0, description: "Whole minutes since." }), ...readingFields },
        { description: "The newest reading with a wave height, at most 3 hours old." },
      ),
    ),
    forecast: nullable(
      t.Object(
        { time: dateTime(), waveHeight: nullable(t.Number({ description: "What this API serves for that hour, meters (feet)." })) },
        { description: "The forecast for the hour nearest `latest.time`; null without `latest`." },
      ),
    ),
    hours: t.Array(t.Object({ time: dateTime("The hour the reading stands for, UTC."), ...readingFields }), { description: "The last 24 UTC hours, oldest first: the reading nearest each hour within ±30 minutes; hours without one are left out." }),
    reason: nullableStringEnum(REASONS, { description: "Why `latest` is null; null when it is not." }),
    units: stringEnum(UNITS, { description: "As asked with `units`." }),
    attribution: t.String({ description: "Credits NOAA's National Data Buoy Center." }),
  },
  { description: "What the sea is doing now at the spot's nearest wave buoy, beside what this API serves for that hour." },
);

/** The latest reading in brief, beside the current forecast hour (`/now`, `spot_now`). */
export const CurrentObservationSchema = t.Object(
  {
    buoy: t.Object({ id: t.String({ description: "NDBC station id." }), name: t.String({ description: "The station's short name (the observations answer has the whole one)." }), distanceKm: t.Number({ minimum: 0, description: "From the spot, km to a tenth." }) }),
    time: dateTime("When the buoy measured, UTC."),
    ageMinutes: integer({ minimum: 0, description: "Whole minutes since." }),
    waveHeight: readingFields.waveHeight,
    dominantPeriod: readingFields.dominantPeriod,
    waveDirection: readingFields.waveDirection,
  },
  { description: "Beyond the spec: the nearest wave buoy's newest reading, present only when it is at most 3 hours old (GET /v1/spots/{id}/observations has the rest)." },
);

/** The correction of a spot's wave heights by its buoy's measured ratios, where the rule holds (docs/forecast.md). */
export const ForecastCorrectionSchema = t.Object(
  {
    buoy: CurrentObservationSchema.properties.buoy,
    ratios: t.Unsafe<Record<string, number>>({
      type: "object",
      additionalProperties: { type: "number" },
      description: "Each model's mean(observed) / mean(model) over the older two thirds of the last 30 days' hourly pairs: its wave heights are multiplied by it before the median.",
    }),
    heldOutRmse: t.Object(
      { before: t.Number({ description: "Without the ratios, m." }), after: t.Number({ description: "With them, m: lower, or there is no correction." }) },
      { description: "The served median's RMSE against the buoy over the newest third of the pairs, held out of the fit." },
    ),
  },
  { description: "Beyond the spec (SURFCAST_BIAS_CORRECTION=on): present only where the buoy's ratios are shown to lower the error; `waveHeight` is then the corrected median." },
);

const scoreFields = {
  n: integer({ minimum: 0, description: "Hourly pairs counted." }),
  bias: nullable(t.Number({ description: "mean(model − observed), meters." })),
  biasPercent: nullable(t.Number({ description: "100 · bias / mean(observed)." })),
  rmse: nullable(t.Number({ description: "√mean((model − observed)²), meters." })),
  scatterIndex: nullable(t.Number({ description: "std(model − observed) / mean(observed)." })),
};

export const VerificationScoreSchema = t.Object(scoreFields, { description: "Error figures over hourly pairs of forecast and buoy reading." });
export const ModelScoreSchema = t.Object({ model: t.String({ description: "The wave model." }), ...scoreFields }, { description: "A wave model's error figures." });

export const LeadDayScoreSchema = t.Object(
  {
    day: integer({ minimum: 1, maximum: 7, description: "Lead day of the issued forecasts." }),
    models: t.Array(ref("ModelScore", ModelScoreSchema)),
    served: ref("VerificationScore", VerificationScoreSchema),
  },
  { description: "The issued forecasts of one lead day against their readings." },
);

export const VerificationResponseSchema = t.Object(
  {
    spot: t.Object({ id: t.String(), name: t.String(), timezone: t.String() }),
    buoy: nullable(ref("Buoy", BuoySchema)),
    from: dateTime("The window's first hour, UTC."),
    to: dateTime("The end of its last hour (exclusive), UTC."),
    models: t.Array(ref("ModelScore", ModelScoreSchema), { description: "Every configured wave model, in their order." }),
    served: ref("VerificationScore", VerificationScoreSchema),
    best: nullable(t.String({ description: "The model with the lowest scatter index among those with a week of pairs." })),
    byLeadDay: t.Array(ref("LeadDayScore", LeadDayScoreSchema), { description: "Lead days 1..7 with pairs; empty until issued forecasts meet their readings." }),
    reason: nullableStringEnum(REASONS, { description: "Why there are no figures; null when there are." }),
  },
  { description: "How right each wave model, and the median this API serves, has been at the spot's buoy." },
);

export type Buoy = Static<typeof BuoySchema>;
export type CurrentObservation = Static<typeof CurrentObservationSchema>;
export type ForecastCorrection = Static<typeof ForecastCorrectionSchema>;
export type Score = Static<typeof VerificationScoreSchema>;
export type ModelScore = Static<typeof ModelScoreSchema>;
export type LeadDayScore = Static<typeof LeadDayScoreSchema>;
export type VerificationResponse = Static<typeof VerificationResponseSchema>;
