/**
 * The facing of every spot of the default catalog, decided at build (src/forecast/built-facings.ts): computed from
 * the 10 m land index exactly as the refresh computes it, written to dist/facings.json.gz. Made again only when the
 * catalog, its corrections overlay or the facing method changed. Run alone: `bun scripts/facings.ts [catalog.json] [out.json]`.
 */
import { computeFacing, FACING_METHOD, loadLand } from "../src/spots/orientation";
import { facingsAt } from "../src/forecast/built-facings";
import { catalogDigest, defaultRecords } from "../src/spots/default-catalog";
import { writeAlone, writeDerived } from "./derived-file";

/** Writes the facings of this catalog's spots to `out` unless it already holds them; returns whether it wrote. */
export function writeFacings(catalogText: string, out: string): Promise<boolean> {
  const catalog = catalogDigest(catalogText);
  return writeDerived(out, { method: FACING_METHOD, catalog }, () => {
    const records = defaultRecords(catalogText);
    const land = loadLand();
    return facingsAt(catalog, records, (lat, lng) => computeFacing(lat, lng, land));
  });
}

if (import.meta.main) await writeAlone("facings", "facings.json.gz", writeFacings);
