/**
 * The tide station choice of every spot of the default catalog, decided at build (src/tides/built-choices.ts): the
 * station rule run through the tide database exactly as the station worker runs it, written with the chosen
 * stations' records to dist/tide-choices.json.gz. Made again only when the catalog, its corrections overlay, the rule or
 * the database changed. Run alone: `bun scripts/tide-choices.ts [catalog.json] [out.json]`.
 */
import { CHOICE_RULE, decideAll } from "../src/tides/built-choices";
import { catalogDigest, defaultRecords } from "../src/spots/default-catalog";
import { writeAlone, writeDerived } from "./derived-file";

/** Writes the choices for this catalog to `out` unless it already holds them; returns whether it wrote. */
export function writeTideChoices(catalogText: string, out: string): Promise<boolean> {
  const catalog = catalogDigest(catalogText);
  return writeDerived(out, { rule: CHOICE_RULE, catalog }, async () => {
    const records = defaultRecords(catalogText);
    // The spots an import of the default catalog stores, with the override it stores; a tideless override needs no station.
    const spots = records.map((r) => ({ lat: r.lat, lng: r.lng, override: r.tideless })).filter((s) => s.override !== true);
    const engine = await import("../src/tides/engine");
    return decideAll(catalog, spots, engine.choose);
  });
}

if (import.meta.main) await writeAlone("tide choices", "tide-choices.json.gz", writeTideChoices);
