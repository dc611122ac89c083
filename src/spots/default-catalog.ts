/**
 * The default spot catalog, embedded in the compiled binary (scripts/build.ts points this import at
 * SPOTS_SOURCE). The import yields a path: the real file in development and tests, a `$bunfs` path inside
 * the binary. See docs/spots.md for its provenance (no open licence) and how to replace it.
 */
import { readFileSync } from "node:fs";
import { parseImport, type ParsedRecord } from "./formats";
import { applyOverlay, DEFAULT_OVERLAY } from "./overlay";
import catalogFile from "../../../shared/data/spots/surfspots.json" with { type: "file" };

const path = catalogFile as unknown as string;

/** The catalog as JSON text; read synchronously because the catalog service opens synchronously. */
export const readDefaultCatalog = (): string => readFileSync(path, "utf8");

/** A catalog's records as the default is loaded: parsed, with the corrections overlay applied (by default the embedded file's). */
export const defaultRecords = (catalogText: string = readDefaultCatalog()): ParsedRecord[] => applyOverlay(parseImport(catalogText).records, DEFAULT_OVERLAY).records;

/**
 * What the default spots are: the SHA-256 of a catalog's text (given as text or as its UTF-8 bytes) followed by the
 * corrections overlay, so that a changed overlay re-applies the default like a changed file.
 */
export const catalogDigest = (catalog: string | Uint8Array): string => new Bun.CryptoHasher("sha256").update(catalog).update(JSON.stringify(DEFAULT_OVERLAY)).digest("hex");

/** The embedded catalog's digest, from the file's bytes: every start compares it with the stored one, and decoding the text first would take most of the time. */
export const defaultCatalogDigest = (): string => catalogDigest(readFileSync(path));
