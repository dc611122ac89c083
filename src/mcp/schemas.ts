/**
 * The MCP tools' input and output schemas (zod, as the SDK's McpServer wants them).
 *
 * Inputs are permissive at run time and precise on paper: every argument is `unknown` to zod, and its JSON
 * Schema (type, bounds, default, units) is attached as metadata for tools/list. The real check is the strict
 * parser shared with /v1 (core/params.ts), run inside the tool, so a bad argument becomes a tool error with
 * the same `invalid_request` message as /v1 — never an SDK "Input validation error" worded differently.
 *
 * Outputs mirror the /v1 responses. Objects are open (no `additionalProperties: false`) so a field added to a /v1
 * response never makes clients reject the tool result; `satisfies` ties each schema to its TypeScript type.
 * Descriptions are short: tools/list goes into a model's context whole (docs/mcp.md, "Sizes"); the units and
 * every field's meaning are in the OpenAPI document at /openapi.json.
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
import type { KeyAlert } from "../alerts/service";

type JsonSchema = { type: "string" | "number" | "integer"; description: string } & Record<string, unknown>;

/** An argument documented by `json` and validated later by the shared parser. */
const documented = (json: JsonSchema) => z.unknown().optional().meta(json);

/**
 * An argument object; `required` is documentation only (missing arguments get the parser's message), and so is
 * `additionalProperties: false`: unknown arguments are refused before the SDK sees them (arguments.ts, server.ts).
 */
const args = <S extends z.ZodRawShape>(shape: S, required: (keyof S & string)[]) => z.object(shape).meta({ required, additionalProperties: false });

/**
 * An output object that documents its fields and allows more. zod closes objects in output schemas
 * (`additionalProperties: false`); the key is dropped instead, which JSON Schema reads as open, as
 * `additionalProperties: true` would say in 27 more bytes an object.
 */
const open = <S extends z.ZodRawShape>(shape: S) => z.object(shape).meta({ additionalProperties: undefined });

const limitArg = documented({
  type: "integer",
  minimum: BOUNDS.limit.minimum,
  maximum: BOUNDS.limit.maximum,
  default: BOUNDS.limit.default,
  description: "Most spots to return.",
});

const spotIdArg = documented({
  type: "string",
  description: "Spot id from search_spots or spots_nearby (slug such as 'pipeline', or 16-hex id).",
});

const daysArg = documented({
  type: "integer",
  minimum: BOUNDS.days.minimum,
  maximum: BOUNDS.days.maximum,
  default: BOUNDS.days.default,
  description: "Days ahead, from now.",
});

export const searchInput = args(
  {
    query: documented({
      type: "string",
      minLength: BOUNDS.q.minLength,
      maxLength: BOUNDS.q.maxLength,
      description: "Spot name, alias, country, region or town.",
    }),
    limit: limitArg,
  },
  ["query"],
);

export const nearbyInput = args(
  {
    lat: documented({ type: "number", minimum: BOUNDS.lat.minimum, maximum: BOUNDS.lat.maximum, description: "Latitude, decimal degrees." }),
    lng: documented({ type: "number", minimum: BOUNDS.lng.minimum, maximum: BOUNDS.lng.maximum, description: "Longitude, decimal degrees." }),
    radius_km: documented({
      type: "number",
      minimum: BOUNDS.radius.minimum,
      maximum: BOUNDS.radius.maximum,
      default: BOUNDS.radius.default,
      description: "Search radius, km.",
    }),
    limit: limitArg,
  },
  ["lat", "lng"],
);

export const spotDaysInput = args({ spot_id: spotIdArg, days: daysArg }, ["spot_id"]);

const levelArg = (defaults: { default: string } | { description: string }) =>
  documented({ type: "string", enum: [...BOUNDS.level.values], description: "Surfer level whose ratings count.", ...defaults });

export const bestSpotsInput = args(
  {
    lat: nearbyInput.shape.lat,
    lng: nearbyInput.shape.lng,
    radius_km: nearbyInput.shape.radius_km,
    level: levelArg({ default: BOUNDS.level.default }),
    hours: documented({
      type: "integer",
      minimum: BOUNDS.hours.minimum,
      maximum: BOUNDS.hours.maximum,
      default: BOUNDS.hours.default,
      description: "Hours ahead, from the current hour.",
    }),
    limit: limitArg,
  },
  ["lat", "lng"],
);

export const surfSummaryInput = args({ spot_id: spotIdArg, days: daysArg, level: levelArg({ description: "Surfer level (default: all three)." }) }, ["spot_id"]);

const spotFields = {
  id: z.string().describe("Pass as spot_id."),
  name: z.string(),
  country: z.string(),
  region: z.string().nullable(),
  lat: z.number(),
  lng: z.number(),
  hexId: z.string().describe("16-hex id, also a spot_id."),
  facing: z.number().nullable().describe("Degrees from the beach to open water."),
  tideless: z.boolean().nullable(),
  timezone: z.string().describe("IANA zone."),
};

const spot = open(spotFields) satisfies z.ZodType<Spot>;
const spotWithDistance = open({ ...spotFields, distanceKm: z.number() }) satisfies z.ZodType<SpotWithDistance>;

export const spotListOutput = open({ spots: z.array(spot).describe("Best match first.") });
export const nearbyListOutput = open({ spots: z.array(spotWithDistance).describe("Closest first.") });

const rating = z.int().min(1).max(5);
const extreme = open({ type: z.enum(["high", "low"]), time: z.string(), height: z.number() });
const station = open({ id: z.string(), name: z.string(), distanceKm: z.number(), source: z.string() });

const forecastHour = open({
  time: z.string(),
  waveHeight: z.number(),
  swellHeight: z.number(),
  wavePeriod: z.number(),
  waveDirection: z.number().describe("Swell from, degrees."),
  windSpeed: z.number(),
  windDirection: z.number().describe("From, degrees."),
  windGust: z.number(),
  windDirectionType: z.enum(["offshore", "onshore", "cross"]).nullable(),
  airTemperature: z.number(),
  waterTemperature: z.number(),
  weatherCode: z.number().describe("WMO code."),
  tide: open({ height: z.number(), state: z.enum(["rising", "falling"]) }).nullable(),
  rating: open({ beginner: rating, intermediate: rating, advanced: rating }),
});

export const forecastOutput = open({
  spot: open({ id: z.string(), name: z.string(), country: z.string() }),
  units: z.literal("metric"),
  updatedAt: z.string(),
  attribution: z.string().describe("Show it with the data."),
  hours: z.array(forecastHour),
  daily: z.array(open({ date: z.string(), sunrise: z.string().nullable(), sunset: z.string().nullable(), uvIndexMax: z.number() })),
}) satisfies z.ZodType<ForecastResponse>;

const surfRange = open({ min: z.number(), max: z.number() });
const bestWindow = open({ start: z.string(), end: z.string().describe("End of the last hour."), rating: rating });
const windType = z.enum(["offshore", "onshore", "cross"]).nullable();

export const bestSpotsOutput = open({
  spots: z
    .array(
      open({
        spot: spotWithDistance,
        rating: rating,
        best: bestWindow.nullable().describe("Best run of daylight hours; null when nothing rates above 1."),
        surf: surfRange.nullable(),
        windDirectionType: windType,
        confidence: z.enum(["high", "medium", "low"]),
      }),
    )
    .describe("Best, then surest, then closest first."),
}) satisfies z.ZodType<{ spots: BestSpot[] }>;

export const surfSummaryOutput = open({
  spot: open({ id: z.string(), name: z.string(), country: z.string(), timezone: z.string() }),
  days: z.array(
    open({
      date: z.string(),
      sunrise: z.string().nullable(),
      sunset: z.string().nullable(),
      surf: surfRange.nullable(),
      wind: open({ min: z.number(), max: z.number(), type: windType }).nullable(),
      confidence: z.enum(["high", "medium", "low"]).nullable(),
      best: open({ beginner: bestWindow.nullable().optional(), intermediate: bestWindow.nullable().optional(), advanced: bestWindow.nullable().optional() }),
      tides: z.array(extreme),
    }),
  ),
  attribution: z.string(),
}) satisfies z.ZodType<SurfSummary>;

export const tidesOutput = open({
  spot: open({ id: z.string(), name: z.string() }),
  units: z.literal("metric"),
  extremes: z.array(extreme),
  tideless: z.boolean(),
  datum: z.string().nullable().describe("What heights are above (LAT, MLLW, MSL…)."),
  station: station.nullable(),
  source: z
    .union([
      open({ type: z.literal("station"), id: z.string(), name: z.string(), distanceKm: z.number(), provider: z.string() }),
      open({ type: z.literal("model"), name: z.string(), variable: z.string(), fetchedAt: z.string() }),
    ])
    .nullable(),
  tidelessReason: z.string().nullable(),
  unavailable: z.enum(["awaiting_model", "model_expired"]).nullable().describe("Why a tidal spot has no extremes."),
}) satisfies z.ZodType<TidesResponse>;

export const spotNowInput = args(
  {
    spot_id: spotIdArg,
    units: documented({
      type: "string",
      enum: [...UNITS],
      default: UNITS[0],
      description: "metric (m, km/h, °C) or imperial (ft, mph, °F).",
    }),
  },
  ["spot_id"],
);

const nowExtreme = open({ time: z.string(), height: z.number() });

export const nowOutput = open({
  spot: open({ id: z.string(), name: z.string(), country: z.string(), timezone: z.string() }),
  time: z.string(),
  updatedAt: z.string().nullable(),
  units: z.enum(UNITS),
  conditions: forecastHour.nullable().describe("The current hour, in `units`; null without a forecast."),
  tide: open({
    height: z.number(),
    state: z.enum(["rising", "falling"]),
    datum: z.string().nullable(),
    station: station.nullable(),
    nextHigh: nowExtreme,
    nextLow: nowExtreme,
    nextEvent: open({ type: z.enum(["high", "low"]), time: z.string(), height: z.number(), minutesUntil: z.int().min(0) }),
  }).nullable(),
  sun: open({ sunrise: z.string().nullable(), sunset: z.string().nullable(), daylight: z.boolean().nullable() }).nullable(),
  attribution: z.string(),
}) satisfies z.ZodType<NowResponse>;

export const listAlertsInput = args({}, []);

/** Kept small (tools/list goes into a model's context whole): the ids and windows; every field is in docs/alerts.md. */
export const listAlertsOutput = open({
  alerts: z.array(
    open({
      id: z.string(),
      nextWindows: z.array(open({ start: z.string(), end: z.string() })).nullable(),
    }),
  ),
}) satisfies z.ZodType<{ alerts: Pick<KeyAlert, "id">[] }>;
