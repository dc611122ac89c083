/**
 * The MCP view of a declared response shape, as the zod schema the SDK's McpServer wants for an output schema.
 * Only the constructs our declarations use are converted; anything else throws when the tools are built.
 *
 * The view is small on purpose (tools/list goes into a model's context whole; docs/mcp.md, "Sizes"): it keeps the
 * properties every answer has, their types, enums and nullability, and only what `forMcp` asks beyond that (a
 * brief description, a rating's bounds, an optional field worth listing). Units, formats and every field's meaning
 * are in the OpenAPI document at /openapi.json. Objects stay open, so a field added to a /v1 response never makes
 * clients reject a tool result.
 */
import { z } from "zod";
import { COMPONENT_PREFIX, mcpViewOf, type McpView } from "../core/shapes";
import { SHAPES } from "../http/schemas";

interface Schema {
  $ref?: string;
  anyOf?: Schema[];
  type?: string | string[];
  const?: string | number | boolean;
  enum?: (string | null)[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minimum?: number;
  maximum?: number;
}

/**
 * zod closes objects in output schemas (`additionalProperties: false`); the key is dropped instead, which JSON
 * Schema reads as open, as `additionalProperties: true` would say in 27 more bytes an object.
 */
const open = (shape: z.ZodRawShape) => z.object(shape).meta({ additionalProperties: undefined });

const isNull = (schema: Schema) => schema.type === "null";

function converted(schema: Schema, view: McpView | undefined): z.ZodType {
  if (schema.$ref) return mcpSchema(SHAPES[schema.$ref.slice(COMPONENT_PREFIX.length) as keyof typeof SHAPES]);
  if (schema.anyOf) {
    const members = schema.anyOf.filter((member) => !isNull(member)).map((member) => mcpSchema(member));
    const union = members.length === 1 ? members[0]! : z.union(members);
    return members.length < schema.anyOf.length ? union.nullable() : union;
  }
  if (Array.isArray(schema.type)) {
    const [type, ...rest] = schema.type;
    if (rest.length !== 1 || rest[0] !== "null") throw new Error(`no MCP view of the type list ${schema.type.join(", ")}`);
    return converted({ type, enum: schema.enum?.filter((value) => value !== null) }, view).nullable();
  }
  if (schema.const !== undefined) return z.literal(schema.const);
  if (schema.enum) return z.enum(schema.enum as [string, ...string[]]);
  switch (schema.type) {
    case "object": {
      const required = new Set(schema.required);
      const listed = Object.entries(schema.properties ?? {}).filter(([name, property]) => required.has(name) || mcpViewOf(property)?.listed);
      return open(Object.fromEntries(listed.map(([name, property]) => [name, required.has(name) ? mcpSchema(property) : mcpSchema(property).optional()])));
    }
    case "array":
      return z.array(mcpSchema(schema.items!));
    case "string":
      return z.string();
    case "boolean":
      return z.boolean();
    case "number":
    case "integer": {
      if (!view?.bounds) return z.number();
      const number = schema.type === "integer" ? z.int() : z.number();
      const bounded = schema.minimum === undefined ? number : number.min(schema.minimum);
      return schema.maximum === undefined ? bounded : bounded.max(schema.maximum);
    }
  }
  throw new Error(`no MCP view of the schema ${JSON.stringify(schema)}`);
}

/** The MCP view of a TypeBox schema (a declared shape, or an MCP wrapper around declared shapes). */
export function mcpSchema(schema: object): z.ZodType {
  const view = mcpViewOf(schema);
  const result = converted(schema as Schema, view);
  return view?.description ? result.describe(view.description) : result;
}

/**
 * Leaves out the `$schema` URI the SDK's converter writes at the top of each tool's schemas: JSON Schema's draft is
 * no news to a client, and the URI cost ~860 bytes of tools/list (twice per tool).
 */
export const NO_SCHEMA_URI = { $schema: undefined } as Record<string, unknown>;

/** The output schema of a tool: an object at the top, as MCP requires. */
export const mcpOutput = (schema: object) => (mcpSchema(schema) as z.ZodObject).meta(NO_SCHEMA_URI);
