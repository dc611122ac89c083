/**
 * The default spot catalog, embedded in the compiled binary (scripts/build.ts points this import at
 * SPOTS_SOURCE). The import yields a path: the real file in development and tests, a `$bunfs` path inside
 * the binary. See docs/spots.md for its provenance (no open licence) and how to replace it.
 */
import { readFileSync } from "node:fs";
import catalogFile from "../../../shared/data/spots/surfspots.json" with { type: "file" };

/**
 * The catalog as JSON text. A Bun.build plugin that redirects the import in `onResolve` without an `onLoad`
 * giving `loader: "file"` drops the `type: "file"` attribute, and the bundle then holds the parsed array
 * instead of a path: that form is accepted too, serialized back to JSON.
 */
export function readDefaultCatalog(): string {
  const embedded: unknown = catalogFile;
  return typeof embedded === "string" ? readFileSync(embedded, "utf8") : JSON.stringify(embedded);
}

export const sha256Hex = (text: string): string => new Bun.CryptoHasher("sha256").update(text).digest("hex");
