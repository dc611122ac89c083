/**
 * Every response shape is declared once (core/shapes.ts): a TypeBox schema in the room that owns it, from which
 * its type, its OpenAPI component and its MCP output schema are derived. Read from the sources, so a second copy
 * of a shape (an interface with the same fields, a zod object written by hand) fails here before review.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { BEYOND_SPEC } from "../../src/core/shapes";
import { SHAPES } from "../../src/http/schemas";
import { mcpOutput } from "../../src/mcp/output-schemas";
import { TOOLS } from "../../src/mcp/tools";
import { ROOT } from "../support/env";

const SRC = join(ROOT, "src");
const sources = [...new Bun.Glob("**/*.ts").scanSync(SRC)].filter((f) => !f.endsWith(".test.ts"));
const texts = new Map(sources.map((file) => [file, readFileSync(join(SRC, file), "utf8")]));

type ObjectSchema = { type?: string; properties?: Record<string, object>; required?: string[] };
const objectComponents = Object.entries(SHAPES).filter(([, schema]) => (schema as ObjectSchema).type === "object") as [string, ObjectSchema][];

/** The field names of every interface and object type literal in the sources, by where they are declared. */
function declaredFieldSets(): { where: string; fields: string }[] {
  const found: { where: string; fields: string }[] = [];
  for (const [file, text] of texts) {
    for (const m of text.matchAll(/(?:interface (\w+)[^{]*|type (\w+)\s*=\s*)\{((?:[^{}]|\{[^{}]*\})*)\}/g)) {
      const topLevel = m[3]!.replace(/\{[^{}]*\}/g, "{}");
      const fields = [...topLevel.matchAll(/^\s*(?:readonly\s+)?(\w+)\??:/gm)].map((f) => f[1]!);
      if (fields.length >= 2) found.push({ where: `${file}: ${m[1] ?? m[2]}`, fields: [...fields].sort().join(",") });
    }
  }
  return found;
}

/** Same field names, another shape. */
const NOT_COPIES = new Set([
  "tides/prediction.ts: PredictedExtreme", // the prediction's extreme: `time` in epoch ms, before it is served as text
]);

describe("each response shape is declared once", () => {
  test("no interface or object type repeats the fields of a declared shape", () => {
    const declared = declaredFieldSets().filter((d) => !NOT_COPIES.has(d.where));
    const copies = objectComponents.flatMap(([name, schema]) => {
      const fields = Object.keys(schema.properties!).sort().join(",");
      return declared.filter((d) => d.fields === fields).map((d) => `${name} again in ${d.where}`);
    });
    expect(copies).toEqual([]);
    // The check sees what it looks for.
    expect(declared.some((d) => d.where === "spots/types.ts: DerivedSpotFacts")).toBe(true);
  });

  test("zod is written only where the MCP schemas are made: the tools' inputs, and the converter of the outputs", () => {
    const zodUsers = sources.filter((file) => /from "zod"/.test(texts.get(file)!) && !/import type \{[^}]*\} from "zod"/.test(texts.get(file)!));
    expect(zodUsers.sort()).toEqual(["mcp/output-schemas.ts", "mcp/schemas.ts"]);
    // Every output schema of mcp/schemas.ts is a conversion, none a zod object of its own.
    const outputs = [...texts.get("mcp/schemas.ts")!.matchAll(/export const (\w+Output) = (\w+)\(/g)];
    expect(outputs.length).toBe(new Set(TOOLS.map((tool) => tool.output)).size);
    expect(outputs.filter(([, , maker]) => maker !== "mcpOutput")).toEqual([]);
  });

  test("a tool's output schema lists its shape's fields that every answer has: required ones and those beyond the spec", () => {
    const toolOf = (name: string) => TOOLS.find((tool) => tool.name === name)!;
    for (const [tool, component] of [
      ["get_forecast", "ForecastResponse"],
      ["get_tides", "TidesResponse"],
      ["spot_now", "NowResponse"],
    ] as const) {
      const schema = SHAPES[component] as ObjectSchema;
      const always = Object.entries(schema.properties!)
        .filter(([name, property]) => schema.required!.includes(name) || BEYOND_SPEC in property)
        .map(([name]) => name);
      const served = z.toJSONSchema(toolOf(tool).output, { target: "draft-7", io: "output" }) as ObjectSchema;
      expect(Object.keys(served.properties!)).toEqual(always);
      expect(served.required).toEqual(always);
      expect(z.toJSONSchema(mcpOutput(schema), { target: "draft-7", io: "output" }) as ObjectSchema).toEqual(served);
    }
  });
});
