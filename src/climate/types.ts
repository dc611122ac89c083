/** The shapes of GET /v1/spots/{id}/climate (beyond the spec). */
import { integer, nullable, stringEnum, t, type Static } from "../core/shapes";
import { UNITS } from "../core/units";
import { BestMonthsSchema } from "../spots/guide";

const share = (description: string) => t.Number({ minimum: 0, maximum: 1, description });
const month = integer({ minimum: 1, maximum: 12 });

export const ClimateMonthSchema = t.Object(
  {
    month,
    waveHeight: t.Object(
      { p10: t.Number(), p25: t.Number(), p50: t.Number(), p75: t.Number(), p90: t.Number() },
      { description: "Percentiles of the month's hourly significant wave height (the total sea), meters (feet with `units=imperial`)." },
    ),
    wavePeriod: t.Object({ p50: t.Number() }, { description: "Median of the month's hourly mean wave period, seconds." }),
    waveDirection: t.Object(
      {
        dominant: t.Number({ minimum: 0, maximum: 360, description: "Centre of the rose's largest sector, degrees the sea comes from." }),
        rose: t.Array(share("Share of the month's hours."), { minItems: 16, maxItems: 16, description: "16 sectors of 22.5° from north clockwise, each centred on its bearing; the shares sum to 1." }),
      },
      { description: "Where the sea comes from." },
    ),
    windSpeed: t.Object({ p50: t.Number() }, { description: "Median of the month's hourly 10 m wind, km/h (mph)." }),
    offshoreShare: nullable(share("Share of the month's hours with the wind offshore at the spot; null when the spot's facing is unknown.")),
    goodDays: t.Object(
      { beginner: share("Share of days."), intermediate: share("Share of days."), advanced: share("Share of days.") },
      { description: "Per level, the share of the month's days with at least two daylight hours rated 3 or more by the forecast's rating (the spot's facing, the wind, the surf height from the total sea)." },
    ),
  },
  { description: "One calendar month over the years of the climate." },
);

export const ClimateResponseSchema = t.Object(
  {
    spot: t.Object({ id: t.String(), name: t.String() }),
    source: t.Object(
      {
        model: t.Literal("era5_ocean"),
        cell: t.Object(
          { lat: t.Number(), lng: t.Number(), distanceKm: t.Number({ minimum: 0, description: "From the spot, km to a tenth." }) },
          { description: "The ERA5-Ocean grid point (0.5°) the sea comes from; every spot near it shares its climate." },
        ),
        years: t.Object({ from: integer(), to: integer() }, { description: "The full years counted, inclusive." }),
      },
      { description: "Where the climate comes from." },
    ),
    months: t.Array(ClimateMonthSchema, { minItems: 12, maxItems: 12, description: "January to December." }),
    bestMonths: BestMonthsSchema,
    units: stringEnum(UNITS, { description: "As asked with `units`." }),
    attribution: t.String({ description: "Credits Copernicus/ECMWF ERA5 and Open-Meteo." }),
  },
  { description: "The spot's climate month by month, from ERA5 reanalysis: the sea, the wind, and the share of good days per surfer level." },
);

export const ClimatePendingSchema = t.Object(
  { status: t.Literal("pending", { description: "The climate is being computed; ask again after `Retry-After` seconds." }) },
  { description: "The spot's climate is not computed yet: its cell's decade of hours is being fetched." },
);

export type ClimateMonth = Static<typeof ClimateMonthSchema>;
export type ClimateResponse = Static<typeof ClimateResponseSchema>;
