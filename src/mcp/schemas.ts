/**
 * The MCP tools' input and output schemas (zod, as the SDK's McpServer wants them).
 *
 * Inputs are permissive at run time and precise on paper: every argument is `unknown` to zod, and its JSON
 * Schema (type, bounds, default, units) is attached as metadata for tools/list. The real check is the strict
 * parser shared with /v1 (core/params.ts), run inside the tool, so a bad argument becomes a tool error with
 * the same `invalid_request` message as /v1 — never an SDK "Input validation error" worded differently.
 *
 * Outputs mirror the /v1 responses. Objects are open (`additionalProperties: true`) so a field added to a /v1
 * response never makes clients reject the tool result; `satisfies` ties each schema to its TypeScript type.
 */
import { z } from "zod";
import { BOUNDS } from "../core/bounds";
import type { Spot, SpotWithDistance } from "../spots/types";
import type { ForecastResponse } from "../forecast/types";
import type { TidesResponse } from "../tides/types";
import type { NowResponse } from "../now/types";
import { UNITS } from "../now/units";
import type { BestSpot } from "../forecast/best-spots";
import type { SurfSummary } from "../forecast/summary";

type JsonSchema = { type: "string" | "number" | "integer"; description: string } & Record<string, unknown>;

/** An argument documented by `json` and validated later by the shared parser. */
const documented = (json: JsonSchema) => z.unknown().optional().meta(json);

/** An argument object; `required` is documentation only (missing arguments get the parser's message). */
const args = <S extends z.ZodRawShape>(shape: S, required: (keyof S & string)[]) => z.object(shape).meta({ required });

/** An output object that documents its fields and allows more. */
const open = <S extends z.ZodRawShape>(shape: S) => z.object(shape).meta({ additionalProperties: true });

const limitArg = documented({
  type: "integer",
  minimum: BOUNDS.limit.minimum,
  maximum: BOUNDS.limit.maximum,
  default: BOUNDS.limit.default,
  description: `How many spots to return at most (${BOUNDS.limit.minimum}..${BOUNDS.limit.maximum}, default ${BOUNDS.limit.default}).`,
});

const spotIdArg = documented({
  type: "string",
  description: "The spot's id (slug such as 'pipeline', or its 16-hex id) as returned by search_spots or spots_nearby.",
});

const daysArg = documented({
  type: "integer",
  minimum: BOUNDS.days.minimum,
  maximum: BOUNDS.days.maximum,
  default: BOUNDS.days.default,
  description: `How many days ahead, counted from now (${BOUNDS.days.minimum}..${BOUNDS.days.maximum}, default ${BOUNDS.days.default}).`,
});

export const searchInput = args(
  {
    query: documented({
      type: "string",
      minLength: BOUNDS.q.minLength,
      maxLength: BOUNDS.q.maxLength,
      description: "Spot name, alias, country or region; case- and accent-insensitive; at least 2 characters.",
    }),
    limit: limitArg,
  },
  ["query"],
);

export const nearbyInput = args(
  {
    lat: documented({ type: "number", minimum: BOUNDS.lat.minimum, maximum: BOUNDS.lat.maximum, description: "Latitude in decimal degrees (WGS84), -90..90." }),
    lng: documented({ type: "number", minimum: BOUNDS.lng.minimum, maximum: BOUNDS.lng.maximum, description: "Longitude in decimal degrees (WGS84), -180..180." }),
    radius_km: documented({
      type: "number",
      minimum: BOUNDS.radius.minimum,
      maximum: BOUNDS.radius.maximum,
      default: BOUNDS.radius.default,
      description: `Search radius in kilometers (${BOUNDS.radius.minimum}..${BOUNDS.radius.maximum}, default ${BOUNDS.radius.default}).`,
    }),
    limit: limitArg,
  },
  ["lat", "lng"],
);

export const spotDaysInput = args({ spot_id: spotIdArg, days: daysArg }, ["spot_id"]);

const levelArg = (absent: string) =>
  documented({
    type: "string",
    enum: [...BOUNDS.level.values],
    description: `Surfer level whose ratings count: beginner, intermediate or advanced (${absent}).`,
  });

export const bestSpotsInput = args(
  {
    lat: nearbyInput.shape.lat,
    lng: nearbyInput.shape.lng,
    radius_km: nearbyInput.shape.radius_km,
    level: levelArg(`default ${BOUNDS.level.default}`),
    hours: documented({
      type: "integer",
      minimum: BOUNDS.hours.minimum,
      maximum: BOUNDS.hours.maximum,
      default: BOUNDS.hours.default,
      description: `How many hours ahead to look, from the current UTC hour (${BOUNDS.hours.minimum}..${BOUNDS.hours.maximum}, default ${BOUNDS.hours.default}).`,
    }),
    limit: limitArg,
  },
  ["lat", "lng"],
);

export const surfSummaryInput = args({ spot_id: spotIdArg, days: daysArg, level: levelArg("default: all three") }, ["spot_id"]);

const spotFields = {
  id: z.string().describe("Stable slug; pass it as spot_id to get_forecast and get_tides."),
  name: z.string(),
  country: z.string(),
  region: z.string().nullable().describe("Region within the country, or null."),
  lat: z.number().describe("Latitude, decimal degrees."),
  lng: z.number().describe("Longitude, decimal degrees."),
  hexId: z.string().describe("Raw 16-hex id; accepted as spot_id too."),
  facing: z.number().nullable().describe("Bearing from the beach toward open water, degrees; null when unknown."),
  tideless: z.boolean().nullable().describe("true when the spot has no tides to speak of; null until known."),
  timezone: z.string().describe("IANA time zone at the spot, for showing local times (all times are UTC)."),
};

const spot = open(spotFields) satisfies z.ZodType<Spot>;
const spotWithDistance = open({ ...spotFields, distanceKm: z.number().describe("Distance from the query point, km.") }) satisfies z.ZodType<SpotWithDistance>;

export const spotListOutput = open({ spots: z.array(spot).describe("Best match first.") });
export const nearbyListOutput = open({ spots: z.array(spotWithDistance).describe("Closest first.") });

const rating = z.int().min(1).max(5);

const forecastHour = open({
  time: z.string().describe("Start of the hour, UTC, ISO 8601."),
  waveHeight: z.number().describe("Combined significant wave height, m."),
  swellHeight: z.number().describe("Primary swell height, m."),
  wavePeriod: z.number().describe("Seconds."),
  waveDirection: z.number().describe("Primary swell direction, degrees (coming from, 0 = north)."),
  windSpeed: z.number().describe("km/h."),
  windDirection: z.number().describe("Degrees (coming from, 0 = north)."),
  windGust: z.number().describe("km/h."),
  windDirectionType: z.enum(["offshore", "onshore", "cross"]).nullable().describe("Wind relative to the spot's shore; null when unknown."),
  airTemperature: z.number().describe("°C."),
  waterTemperature: z.number().describe("°C."),
  weatherCode: z.number().describe("WMO weather code."),
  tide: open({ height: z.number().describe("m."), state: z.enum(["rising", "falling"]) }).nullable().describe("null for tideless spots."),
  rating: open({ beginner: rating, intermediate: rating, advanced: rating }).describe("Surf quality per level, 1..5 (5 best)."),
});

export const forecastOutput = open({
  spot: open({ id: z.string(), name: z.string(), country: z.string() }),
  units: z.literal("metric"),
  updatedAt: z.string().describe("When the forecast was last refreshed, UTC, ISO 8601."),
  attribution: z.string().describe("Data licence notice to show with the data."),
  hours: z.array(forecastHour).describe("Hourly, from the current UTC hour forward."),
  daily: z.array(
    open({
      date: z.string().describe("Calendar date, YYYY-MM-DD."),
      sunrise: z.string().nullable().describe("UTC, ISO 8601."),
      sunset: z.string().nullable().describe("UTC, ISO 8601."),
      uvIndexMax: z.number(),
    }),
  ),
}) satisfies z.ZodType<ForecastResponse>;

const surfRange = open({ min: z.number().describe("m."), max: z.number().describe("m.") });
const bestWindow = open({
  start: z.string().describe("UTC, ISO 8601."),
  end: z.string().describe("End of the last hour, UTC, ISO 8601."),
  rating: rating,
});
const windType = z.enum(["offshore", "onshore", "cross"]).nullable();

export const bestSpotsOutput = open({
  spots: z
    .array(
      open({
        spot: spotWithDistance,
        rating: rating.describe("The best window's rating for the level; 1 when nothing rates above 1."),
        best: bestWindow.nullable().describe("Best run of consecutive daylight hours; null when nothing rates above 1."),
        surf: surfRange.nullable().describe("Breaking face height range over the window, m."),
        windDirectionType: windType.describe("Wind at the window's first hour."),
      }),
    )
    .describe("Best rating first, then closest."),
}) satisfies z.ZodType<{ spots: BestSpot[] }>;

export const surfSummaryOutput = open({
  spot: open({ id: z.string(), name: z.string(), country: z.string(), timezone: z.string().describe("IANA zone; times stay UTC.") }),
  days: z.array(
    open({
      date: z.string().describe("UTC date, YYYY-MM-DD."),
      sunrise: z.string().nullable(),
      sunset: z.string().nullable(),
      surf: surfRange.nullable().describe("Over the day's daylight hours still ahead, m."),
      wind: open({ min: z.number(), max: z.number(), type: windType }).nullable().describe("Sustained wind, km/h, and its most frequent type."),
      best: open({ beginner: bestWindow.nullable().optional(), intermediate: bestWindow.nullable().optional(), advanced: bestWindow.nullable().optional() }),
      tides: z.array(open({ type: z.enum(["high", "low"]), time: z.string(), height: z.number().describe("m above the chart datum.") })),
    }),
  ),
  attribution: z.string(),
}) satisfies z.ZodType<SurfSummary>;

export const tidesOutput = open({
  spot: open({ id: z.string(), name: z.string() }),
  units: z.literal("metric"),
  extremes: z.array(
    open({
      type: z.enum(["high", "low"]),
      time: z.string().describe("UTC, ISO 8601."),
      height: z.number().describe("m above the chart datum."),
    }),
  ),
  tideless: z.boolean().describe("true when the spot has no tides to speak of; extremes is then empty."),
  datum: z.string().nullable().describe("Chart datum the heights refer to (e.g. MLLW, LAT); null when tideless."),
  station: open({ id: z.string(), name: z.string(), distanceKm: z.number().describe("km from the spot."), source: z.string() })
    .nullable()
    .describe("Tide station the predictions come from; null when tideless."),
  source: z
    .union([
      open({ type: z.literal("station"), id: z.string(), name: z.string(), distanceKm: z.number(), provider: z.string() }),
      open({ type: z.literal("model"), name: z.string(), variable: z.string(), fetchedAt: z.string() }),
    ])
    .nullable()
    .describe("Where the tides come from: a tide station, or the sea-level model (heights then above MSL)."),
  tidelessReason: z.string().nullable().describe("Why the spot is tideless; null otherwise."),
  unavailable: z
    .enum(["awaiting_model", "model_expired"])
    .nullable()
    .describe("Why a tidal spot shows no extremes (model not fetched yet, or its stored week has passed); null otherwise."),
}) satisfies z.ZodType<TidesResponse>;

export const spotNowInput = args(
  {
    spot_id: spotIdArg,
    units: documented({
      type: "string",
      enum: [...UNITS],
      default: UNITS[0],
      description: "metric (m, km/h, °C; the default) or imperial (ft, mph, °F).",
    }),
  },
  ["spot_id"],
);

const nowExtreme = open({ time: z.string().describe("UTC, ISO 8601."), height: z.number().describe("Above the datum, m (ft when imperial).") });

export const nowOutput = open({
  spot: open({ id: z.string(), name: z.string(), country: z.string(), timezone: z.string().describe("IANA time zone at the spot.") }),
  time: z.string().describe("The minute described, UTC, ISO 8601."),
  updatedAt: z.string().nullable().describe("When the forecast was refreshed; null without one."),
  units: z.enum(UNITS),
  conditions: forecastHour.nullable().describe("The forecast hour of the current UTC hour, in `units`; null without a forecast."),
  tide: open({
    height: z.number().describe("Now, above the datum, m (ft when imperial)."),
    state: z.enum(["rising", "falling"]),
    datum: z.string().nullable(),
    station: open({ id: z.string(), name: z.string(), distanceKm: z.number(), source: z.string() }).nullable(),
    nextHigh: nowExtreme,
    nextLow: nowExtreme,
    nextEvent: open({ type: z.enum(["high", "low"]), time: z.string(), height: z.number(), minutesUntil: z.int().min(0) }),
  })
    .nullable()
    .describe("null for tideless spots."),
  sun: open({ sunrise: z.string().nullable(), sunset: z.string().nullable(), daylight: z.boolean().nullable() }).nullable(),
  attribution: z.string(),
}) satisfies z.ZodType<NowResponse>;
