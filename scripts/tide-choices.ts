/**
 * The tide station choice of every spot of the default catalog, decided at build (src/tides/built-choices.ts): the
 * station rule run through the tide database exactly as the station worker runs it, written with the chosen
 * stations' records to dist/tide-choices.json (never committed: derived from the catalog, which carries no open
 * licence). Made again only when the catalog, its corrections overlay, the rule or the database changed.
 * Run alone: `bun scripts/tide-choices.ts [catalog.json] [out.json]`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseImport } from "../src/spots/formats";
import { applyOverlay, DEFAULT_OVERLAY } from "../src/spots/overlay";
import { sha256Hex } from "../src/spots/default-catalog";
import { CHOICE_RULE, decideAll, type BuiltChoicesData } from "../src/tides/built-choices";

/** Writes the choices for this catalog to `out` unless it already holds them; returns whether it wrote. */
export async function writeTideChoices(catalogText: string, out: string): Promise<boolean> {
  const catalog = sha256Hex(catalogText + JSON.stringify(DEFAULT_OVERLAY));
  if (existsSync(out)) {
    const head = JSON.parse(readFileSync(out, "utf8")) as Pick<BuiltChoicesData, "rule" | "catalog">;
    if (head.rule === CHOICE_RULE && head.catalog === catalog) return false;
  }
  const { records } = applyOverlay(parseImport(catalogText).records, DEFAULT_OVERLAY);
  // The spots an import of the default catalog stores, with the override it stores; a tideless override needs no station.
  const spots = records.map((r) => ({ lat: r.lat, lng: r.lng, override: r.tideless })).filter((s) => s.override !== true);
  const engine = await import("../src/tides/engine");
  const data = decideAll(catalog, spots, engine.choose);
  mkdirSync(dirname(out), { recursive: true });
  // Replaced whole (a rename): tests reading it from source may run while a release build writes it.
  writeFileSync(`${out}.${process.pid}`, JSON.stringify(data));
  renameSync(`${out}.${process.pid}`, out);
  return true;
}

if (import.meta.main) {
  const root = resolve(import.meta.dir, "..");
  const catalog = resolve(process.argv[2] ?? join(root, "../shared/data/spots/surfspots.json"));
  const out = resolve(process.argv[3] ?? join(root, "dist/tide-choices.json"));
  const started = performance.now();
  const wrote = await writeTideChoices(readFileSync(catalog, "utf8"), out);
  console.log(`tide choices: ${wrote ? "written" : "unchanged"} → ${out} (${((performance.now() - started) / 1000).toFixed(1)}s)`);
}
