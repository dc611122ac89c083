/**
 * The MCP tools' input and output schemas (zod, as the SDK's McpServer wants them).
 *
 * Inputs are permissive at run time and precise on paper: every argument is `unknown` to zod, and its JSON
 * Schema (type, bounds, default, units) is attached as metadata for tools/list. The real check is the strict
 * parser shared with /v1 (core/params.ts), run inside the tool, so a bad argument becomes a tool error with
 * the same `invalid_request` message as /v1 — never an SDK "Input validation error" worded differently.
 *
 * Outputs are the /v1 response shapes, converted (output-schemas.ts); the list tools wrap their arrays as
 * {spots: [...]}, declared here as TypeBox around the shared shapes like the two outputs /v1 does not serve.
 */
import { t, type TSchema } from "elysia";
import { z } from "zod";
import { BOUNDS } from "../core/bounds";
import { UNITS } from "../now/units";
import type { KeyAlert } from "../alerts/service";
import { dateTime, forMcp, nullable, type Serves } from "../core/shapes";
import { SpotSchema, SpotWithDistanceSchema } from "../spots/types";
import { BestSpotSchema } from "../forecast/best-spots";
import { ForecastResponseSchema } from "../forecast/types";
import { SurfSummarySchema } from "../forecast/summary";
import { TidesResponseSchema } from "../tides/types";
import { NowResponseSchema } from "../now/types";
import { mcpOutput } from "./output-schemas";

type JsonSchema = { type: "string" | "number" | "integer"; description: string } & Record<string, unknown>;

/** An argument documented by `json` and validated later by the shared parser. */
const documented = (json: JsonSchema) => z.unknown().optional().meta(json);

/**
 * An argument object; `required` is documentation only (missing arguments get the parser's message), and so is
 * `additionalProperties: false`: unknown arguments are refused before the SDK sees them (arguments.ts, server.ts).
 */
const args = <S extends z.ZodRawShape>(shape: S, required: (keyof S & string)[]) => z.object(shape).meta({ required, additionalProperties: false });

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

export const listAlertsInput = args({}, []);

const listOf = <S extends TSchema>(items: S, description: string) => t.Object({ spots: forMcp(t.Array(items), { description }) });

export const spotListOutput = mcpOutput(listOf(SpotSchema, "Best match first."));
export const nearbyListOutput = mcpOutput(listOf(SpotWithDistanceSchema, "Closest first."));
export const bestSpotsOutput = mcpOutput(listOf(BestSpotSchema, "Best, then surest, then closest first."));
export const forecastOutput = mcpOutput(ForecastResponseSchema);
export const tidesOutput = mcpOutput(TidesResponseSchema);
export const nowOutput = mcpOutput(NowResponseSchema);

export const surfSummaryOutput = mcpOutput(SurfSummarySchema);

/** Kept small (tools/list goes into a model's context whole): the ids and windows; every field is in docs/alerts.md. */
const AlertListSchema = t.Object({
  alerts: t.Array(t.Object({ id: t.String(), nextWindows: nullable(t.Array(t.Object({ start: dateTime(), end: dateTime() }))) })),
});

export const listAlertsOutput = mcpOutput(AlertListSchema);

/** Compile-time tie: what list_alerts returns fits the schema. */
export type AlertListMatchesService = Serves<typeof AlertListSchema, { alerts: Pick<KeyAlert, "id" | "nextWindows">[] }>;
