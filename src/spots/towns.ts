/**
 * Place names for search (docs/spots.md, "Place names"): GeoNames towns, and which spots each one covers — the
 * spots within TOWN_RADIUS_KM, closest first. The gazetteer subset is made at build (scripts/towns.ts); the
 * town ↔ spot matching is done when the search index is built, so an imported catalog is matched too.
 */
import { readFileSync } from "node:fs";
import KDBush from "kdbush";
import { haversineKm } from "../core/geo";
import { townsFile } from "./towns-file";

/** A spot matches the towns within this distance (a town's GeoNames point is its centre). */
export const TOWN_RADIUS_KM = 10;
/** Kilometres per degree of latitude (a bound for the search box, not a distance). */
const KM_PER_DEGREE = 110.5;

export interface TownRecord {
  /** Folded names: the GeoNames name first, then alternate Latin-script names. */
  names: string[];
  lat: number;
  lng: number;
}

export interface TownMatch {
  names: string[];
  /** Indexes of the spots within TOWN_RADIUS_KM, closest first, with their whole kilometres. */
  spots: Int32Array;
  km: Uint8Array;
}

/** The embedded gazetteer subset (read at each index build, not kept), or none when this build has no dist/towns.json. */
export function readTowns(): readonly TownRecord[] {
  return townsFile === null ? [] : (JSON.parse(readFileSync(townsFile, "utf8")) as TownRecord[]);
}

/** Towns that cover at least one of `spots`, each with its spots closest first (ties by index). */
export function matchTowns(towns: readonly TownRecord[], spots: readonly { lat: number; lng: number }[]): TownMatch[] {
  if (spots.length === 0) return [];
  const tree = new KDBush(spots.length);
  for (const s of spots) tree.add(s.lng, s.lat);
  tree.finish();
  const out: TownMatch[] = [];
  const latSpan = TOWN_RADIUS_KM / KM_PER_DEGREE;
  for (const t of towns) {
    // A box around the town (wider than the circle), split where it crosses the antimeridian; then the exact distance.
    const lngSpan = Math.min(180, latSpan / Math.max(Math.cos(Math.min(89, Math.abs(t.lat)) * (Math.PI / 180)), 1e-6));
    const lats = [Math.max(-90, t.lat - latSpan), Math.min(90, t.lat + latSpan)] as const;
    const boxes: [number, number][] = [[t.lng - lngSpan, t.lng + lngSpan]];
    if (t.lng - lngSpan < -180) boxes.push([t.lng - lngSpan + 360, 180]);
    if (t.lng + lngSpan > 180) boxes.push([-180, t.lng + lngSpan - 360]);
    const hits: { index: number; km: number }[] = [];
    for (const [west, east] of boxes) {
      for (const index of tree.range(west, lats[0], east, lats[1])) {
        const km = haversineKm(t.lat, t.lng, spots[index]!.lat, spots[index]!.lng);
        if (km <= TOWN_RADIUS_KM) hits.push({ index, km });
      }
    }
    if (hits.length === 0) continue;
    hits.sort((a, b) => a.km - b.km || a.index - b.index);
    out.push({ names: t.names, spots: Int32Array.from(hits, (h) => h.index), km: Uint8Array.from(hits, (h) => Math.floor(h.km)) });
  }
  return out;
}
