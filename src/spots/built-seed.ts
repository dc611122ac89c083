/**
 * The default catalog's first import, planned at build time. A new install's first start seeds its database from the
 * embedded catalog, and on an empty database that import always stores the same spots: parsing the records and giving
 * each its slug took about half of that start. scripts/default-seed.ts plans it with the import code itself and writes
 * the spots it adds to dist/default-seed.json.gz, which the binary embeds (./built-seed-file.ts); a first start
 * stores them as they are. A database holding any spot, or a file made from another catalog, takes the import's
 * own way (./service.ts).
 */
import { readGzipJson } from "../core/gzip-json";
import type { StoredSpot } from "./catalog";
import { builtSeedFile } from "./built-seed-file";

/** The file's content: the catalog it was planned from, and the spots its import adds to an empty database. */
export interface BuiltSeedData {
  /** The digest of the catalog and overlay it was made from (./default-catalog.ts `catalogDigest`). */
  catalog: string;
  spots: StoredSpot[];
}

/** The build's first import of the catalog whose digest is `catalog`; null when there is none, or it was made from another. */
export function readBuiltSeed(catalog: string, file = builtSeedFile): StoredSpot[] | null {
  if (file === null) return null;
  const data = readGzipJson<BuiltSeedData>(file);
  return data.catalog === catalog ? data.spots : null;
}
