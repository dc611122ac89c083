/**
 * The building blocks of the response shapes. Each shape is declared once, as a TypeBox schema in the room that
 * owns it; its TypeScript type is `Static<typeof …>`, the OpenAPI document's component is the schema itself
 * (http/schemas.ts) and the MCP tool's output schema is converted from it (mcp/output-schemas.ts).
 *
 * A declaration says what every answer holds: a field is optional only where an answer may lack it. Two marks,
 * symbol keys that JSON never shows, add what the other readers need:
 *  - `beyondSpec`: always sent, yet left out of the OpenAPI `required` list, which follows the spec's tables;
 *  - `forMcp`: what tools/list says of the field, which goes into a model's context whole: a brief description,
 *    the bounds where they matter, and whether an optional field is listed at all.
 */
import type { Static, TSchema } from "elysia";
// The type builder alone: a room that declares a shape does not load the web framework.
import { t } from "elysia/type-system";

export { t, type Static, type TSchema };

export type ComponentName =
  | "Spot"
  | "BestSpot"
  | "SpotWithDistance"
  | "SpotDetail"
  | "SpotGuide"
  | "DirectionRange"
  | "ForecastResponse"
  | "ForecastHour"
  | "Rating"
  | "SwellComponent"
  | "SurfRange"
  | "Confidence"
  | "ForecastModels"
  | "ForecastGrid"
  | "GridCell"
  | "Tide"
  | "DailyWeather"
  | "DayBest"
  | "BestWindow"
  | "TidesResponse"
  | "TideExtreme"
  | "TideStation"
  | "TideSource"
  | "UsageResponse"
  | "UsageDay"
  | "NowResponse"
  | "NowTide"
  | "NowSun"
  | "NowManyResponse"
  | "ObservationsResponse"
  | "Buoy"
  | "VerificationResponse"
  | "VerificationScore"
  | "ModelScore"
  | "LeadDayScore"
  | "ClimateResponse"
  | "ClimatePending"
  | "Error";

export const COMPONENT_PREFIX = "#/components/schemas/";

/** A reference to a named component, typed as the component itself. */
export const ref = <S extends TSchema>(name: ComponentName, _schema: S) => t.Unsafe<Static<S>>({ $ref: `${COMPONENT_PREFIX}${name}` });

export const nullable = <S extends TSchema>(schema: S) => t.Union([schema, t.Null()]);

export const stringEnum = <const V extends readonly string[]>(values: V, options: { description?: string } = {}) =>
  t.Unsafe<V[number]>({ type: "string", enum: [...values], ...options });

/** A string enum or null, as one JSON Schema type list. */
export const nullableStringEnum = <const V extends readonly string[]>(values: V, options: { description?: string } = {}) =>
  t.Unsafe<V[number] | null>({ type: ["string", "null"], enum: [...values, null], ...options });

/**
 * A plain JSON Schema integer. Elysia's `t.Integer` carries a string branch for its query coercion, which has
 * no place in a response schema.
 */
export const integer = (options: { minimum?: number; maximum?: number; description?: string } = {}) => t.Unsafe<number>({ type: "integer", ...options });

export const dateTime = (description?: string) => t.String({ format: "date-time", ...(description ? { description } : {}) });

/** Degrees clockwise from true north, the direction the wind or swell comes from. */
export const degrees = (description: string) => integer({ minimum: 0, maximum: 360, description });

export const BEYOND_SPEC = Symbol("beyond the spec");

/** A field every answer carries that the spec does not ask for: optional in the OpenAPI document only. */
export const beyondSpec = <S extends TSchema>(schema: S): S => ({ ...schema, [BEYOND_SPEC]: true });

export interface McpView {
  description?: string;
  /** Keep the integer type and its bounds (a rating's 1..5); else a number is only a number. */
  bounds?: true;
  /** List this optional field; optional fields are left to /openapi.json otherwise. */
  listed?: true;
}

export const MCP_VIEW = Symbol("MCP view");

export const forMcp = <S extends TSchema>(schema: S, view: McpView): S => ({ ...schema, [MCP_VIEW]: view });

export const mcpViewOf = (schema: object): McpView | undefined => (schema as { [MCP_VIEW]?: McpView })[MCP_VIEW];

/** Compile-time tie: `T`, a type some code serializes, must be assignable to the shape's static type. */
export type Serves<S extends TSchema, _T extends Static<S>> = true;
