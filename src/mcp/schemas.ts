/**
 * The MCP tools' input and output schemas (zod, as the SDK's McpServer wants them).
 *
 * Inputs are permissive at run time and precise on paper: every argument is `unknown` to zod, and the JSON
 * Schema of its /v1 parameter (type, bounds, default) is attached as metadata for tools/list, with a brief
 * description. The real check is the strict parser shared with /v1 (core/params.ts), run inside the tool, so a
 * bad argument becomes a tool error with the same `invalid_request` message as /v1 — never an SDK "Input
 * validation error" worded differently.
 *
 * Outputs are the declared response shapes, converted (output-schemas.ts). The shapes only MCP has are declared
 * here, in TypeBox like the others: the list tools' {spots: [...]} around the /v1 arrays, and list_alerts' view.
 */
import { z } from "zod";
import type { KeyAlert } from "../alerts/service";
import { dateTime, forMcp, nullable, t, type Serves, type TSchema } from "../core/shapes";
import { SpotSchema, SpotWithDistanceSchema } from "../spots/types";
import { BestSpotSchema } from "../forecast/best-spots";
import { ForecastResponseSchema } from "../forecast/types";
import { SurfSummarySchema } from "../forecast/summary";
import { TidesResponseSchema } from "../tides/types";
import { NowResponseSchema } from "../now/types";
import { CurrentObservationSchema, ObservationsResponseSchema } from "../observations/types";
import type { ObservationsAnswer } from "../observations/service";
import { bestSpotsQuery, daysQuery, idParams, nearbyQuery, nowQuery, searchQuery } from "../http/schemas";
import { ClimateResponseSchema } from "../climate/types";
import { mcpOutput, NO_SCHEMA_URI } from "./output-schemas";

/**
 * The JSON Schema keywords of a /v1 parameter that tools/list shows: type, enum, bounds and default. A pattern
 * stays with the parser, which names what is wrong in its message.
 */
const SHOWN_KEYWORDS = ["type", "enum", "minLength", "maxLength", "minimum", "maximum", "default"];

/**
 * An argument made from the declaration of its /v1 parameter (Elysia's coercing integer read through its
 * integer branch), with a brief description of its own: documented for tools/list, validated later by the shared
 * parser. `overrides` says where the tool differs, such as a default the parameter has and the argument lacks.
 */
function argument(parameter: TSchema, description: string, overrides: Record<string, undefined> = {}) {
  const declared: Record<string, unknown> = parameter.anyOf?.find((branch: { type?: string }) => branch.type !== "string") ?? parameter;
  const shown = Object.fromEntries(SHOWN_KEYWORDS.filter((keyword) => declared[keyword] !== undefined).map((keyword) => [keyword, declared[keyword]]));
  return z.unknown().optional().meta({ ...shown, description, ...overrides });
}

/**
 * An argument object; `required` is documentation only (missing arguments get the parser's message), and so is
 * `additionalProperties: false`: unknown arguments are refused before the SDK sees them (arguments.ts, server.ts).
 */
const args = <S extends z.ZodRawShape>(shape: S, required: (keyof S & string)[]) => z.object(shape).meta({ required, additionalProperties: false, ...NO_SCHEMA_URI });

const limitArg = argument(nearbyQuery.properties.limit, "Most spots to return.");
const spotIdArg = argument(idParams.properties.id, "From search_spots or spots_nearby.");
const daysArg = argument(daysQuery.properties.days, "Days ahead, from now.");
/** Metric when absent, as the enum's first value says. */
const unitsArg = argument(nowQuery.properties.units, "imperial: ft, mph, °F.", { default: undefined });

export const searchInput = args({ query: argument(searchQuery.properties.q, "Spot name, alias, country, region or town."), limit: limitArg }, ["query"]);

export const nearbyInput = args(
  {
    lat: argument(nearbyQuery.properties.lat, "Latitude, decimal degrees."),
    lng: argument(nearbyQuery.properties.lng, "Longitude, decimal degrees."),
    radius_km: argument(nearbyQuery.properties.radius, "Search radius, km."),
    limit: limitArg,
  },
  ["lat", "lng"],
);

export const spotDaysInput = args({ spot_id: spotIdArg, days: daysArg, units: unitsArg }, ["spot_id"]);

export const bestSpotsInput = args(
  {
    lat: nearbyInput.shape.lat,
    lng: nearbyInput.shape.lng,
    radius_km: nearbyInput.shape.radius_km,
    level: argument(bestSpotsQuery.properties.level, "Surfer level whose ratings count."),
    hours: argument(bestSpotsQuery.properties.hours, "Hours ahead, from the current hour."),
    limit: limitArg,
    units: unitsArg,
  },
  ["lat", "lng"],
);

export const surfSummaryInput = args(
  { spot_id: spotIdArg, days: daysArg, level: argument(bestSpotsQuery.properties.level, "Surfer level (default: all three).", { default: undefined }), units: unitsArg },
  ["spot_id"],
);

export const spotNowInput = args({ spot_id: spotIdArg, units: unitsArg }, ["spot_id"]);

export const listAlertsInput = args({}, []);

const listOf = <S extends TSchema>(items: S, description: string) => t.Object({ spots: forMcp(t.Array(items), { description }) });

export const spotListOutput = mcpOutput(listOf(SpotSchema, "Best match first."));
export const nearbyListOutput = mcpOutput(listOf(SpotWithDistanceSchema, "Closest first."));
export const bestSpotsOutput = mcpOutput(listOf(BestSpotSchema, "Best, then surest, then closest first."));
export const forecastOutput = mcpOutput(ForecastResponseSchema);
export const tidesOutput = mcpOutput(TidesResponseSchema);
export const nowOutput = mcpOutput(NowResponseSchema);

export const surfSummaryOutput = mcpOutput(SurfSummarySchema);
/** The best months alone: tools/list goes into a model's context whole, and the objects stay open to the rest of the /v1 JSON. */
export const climateOutput = mcpOutput(t.Pick(ClimateResponseSchema, ["bestMonths"]));

const { buoy: briefBuoy, ...briefReading } = CurrentObservationSchema.properties;
/**
 * Kept small (tools/list goes into a model's context whole): the buoy and its latest reading in brief, or why none.
 * The result is the whole /v1 answer (objects stay open): the forecast beside it, every figure and the hours.
 */
const ObservationsViewSchema = t.Object({
  buoy: nullable(briefBuoy),
  latest: nullable(t.Object(briefReading)),
  reason: ObservationsResponseSchema.properties.reason,
});

export const observationsOutput = mcpOutput(ObservationsViewSchema);

/** Compile-time tie: the observations answer fits the view. */
export type ObservationsViewMatchesService = Serves<typeof ObservationsViewSchema, ObservationsAnswer>;

/** Kept small (tools/list goes into a model's context whole): the ids and windows; every field is in docs/alerts.md. */
const AlertListSchema = t.Object({
  alerts: t.Array(t.Object({ id: t.String(), nextWindows: nullable(t.Array(t.Object({ start: dateTime(), end: dateTime() }))) })),
});

export const listAlertsOutput = mcpOutput(AlertListSchema);

/** Compile-time tie: what list_alerts returns fits the schema. */
export type AlertListMatchesService = Serves<typeof AlertListSchema, { alerts: Pick<KeyAlert, "id" | "nextWindows">[] }>;
