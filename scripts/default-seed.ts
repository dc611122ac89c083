/**
 * The default catalog's first import, planned at build (src/spots/built-seed.ts): the spots an import of the
 * catalog adds to an empty database, written to dist/default-seed.json.gz. Made again when the catalog, its
 * corrections overlay or the import code changed. Run alone: `bun scripts/default-seed.ts [catalog.json] [out.json]`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BuiltSeedData } from "../src/spots/built-seed";
import { catalogDigest, defaultRecords } from "../src/spots/default-catalog";
import { planImport } from "../src/spots/import";
import { writeAlone, writeDerived } from "./derived-file";

/** The modules whose code decides what an import stores: a change to any of them makes the file again. */
const IMPORT_CODE = ["default-catalog.ts", "formats.ts", "catalog.ts", "import.ts", "normalize.ts", "overlay.ts", "built-seed.ts"].map((f) => join(import.meta.dir, "../src/spots", f));

/** Writes the seed of this catalog to `out` unless it already holds it; returns whether it wrote. */
export function writeDefaultSeed(catalogText: string, out: string): Promise<boolean> {
  const catalog = catalogDigest(catalogText);
  const hasher = new Bun.CryptoHasher("sha256");
  for (const file of IMPORT_CODE) hasher.update(readFileSync(file));
  const code = hasher.digest("hex");
  return writeDerived(out, { catalog, code }, (): BuiltSeedData & { code: string } => ({ catalog, spots: planImport([], defaultRecords(catalogText), true).add, code }));
}

if (import.meta.main) await writeAlone("default seed", "default-seed.json.gz", writeDefaultSeed);
