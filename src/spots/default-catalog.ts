/**
 * The default spot catalog, embedded in the compiled binary (scripts/build.ts points this import at
 * SPOTS_SOURCE). The import yields a path: the real file in development and tests, a `$bunfs` path inside
 * the binary. See docs/spots.md for its provenance (no open licence) and how to replace it.
 */
import { readFileSync } from "node:fs";
import catalogFile from "../../../shared/data/spots/surfspots.json" with { type: "file" };

/** The catalog as JSON text; read synchronously because the catalog service opens synchronously. */
export const readDefaultCatalog = (): string => readFileSync(catalogFile as unknown as string, "utf8");

export const sha256Hex = (text: string): string => new Bun.CryptoHasher("sha256").update(text).digest("hex");
