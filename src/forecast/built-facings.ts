/**
 * Facings decided at build time. A spot's computed facing (../spots/orientation.ts) reads nothing but its position,
 * and the default catalog is fixed when the binary is built: scripts/facings.ts computes every default spot's facing
 * and writes them to dist/facings.json.gz, which the binary embeds (./built-facings-file.ts). The refresh takes a
 * spot's facing from there, so a new install's first refresh never loads the 10 m land index (~80 MB while it is
 * built); a spot at another position (an import) is computed as before.
 */
import { readGzipJson } from "../core/gzip-json";
import { FACING_METHOD } from "../spots/orientation";
import { builtFacingsFile } from "./built-facings-file";

/** The file's content: the method and catalog it was made with, and the facing at each position. */
export interface BuiltFacingsData {
  method: string;
  /** A digest of the catalog and overlay it was made from (the build makes it again when they change). */
  catalog: string;
  /** Facing in degrees, or null (no coast in reach), by `positionKey`. */
  facings: Record<string, number | null>;
}

export const positionKey = (lat: number, lng: number): string => `${lat},${lng}`;

/** The facing of each distinct position of `spots`. */
export function facingsAt(catalog: string, spots: Iterable<{ lat: number; lng: number }>, facing: (lat: number, lng: number) => number | null): BuiltFacingsData {
  const data: BuiltFacingsData = { method: FACING_METHOD, catalog, facings: {} };
  for (const { lat, lng } of spots) data.facings[positionKey(lat, lng)] ??= facing(lat, lng);
  return data;
}

/** The build's facings by position (read when asked: only a refresh with spots lacking one needs them); empty when there are none or another method made them. */
export function readBuiltFacings(file = builtFacingsFile): ReadonlyMap<string, number | null> {
  if (file === null) return new Map();
  const data = readGzipJson<BuiltFacingsData>(file);
  return data.method === FACING_METHOD ? new Map(Object.entries(data.facings)) : new Map();
}
