/**
 * Nearby search over a static k-d tree (kdbush) walked in great-circle order (geokdbush): correct across
 * the antimeridian and near the poles, and no scan of the catalog per request. Pure.
 */
import KDBush from "kdbush";
import { around } from "geokdbush";
import { haversineKm } from "../core/geo";

/** Distances are served rounded to the metre. */
export const roundKm = (km: number): number => Math.round(km * 1000) / 1000;

export interface NearbyHit {
  /** Index of the point in the array the index was built from. */
  index: number;
  distanceKm: number;
}

export class NearbyIndex {
  private readonly tree: KDBush;

  constructor(private readonly points: readonly { lat: number; lng: number; id: string }[]) {
    this.tree = new KDBush(Math.max(points.length, 1));
    for (const p of points) this.tree.add(p.lng, p.lat);
    this.tree.finish();
  }

  /** Points within `radiusKm` (inclusive), closest first, ties by id; at most `limit`. */
  around(lat: number, lng: number, radiusKm: number, limit: number): NearbyHit[] {
    if (this.points.length === 0) return [];
    // geokdbush measures with a 6371 km radius, a hair smaller than ours: it returns a superset at the rim,
    // in the same order, and the exact check below trims it.
    const hits: NearbyHit[] = [];
    for (const index of around(this.tree, lng, lat, limit, radiusKm)) {
      const p = this.points[index]!;
      const distanceKm = haversineKm(lat, lng, p.lat, p.lng);
      if (distanceKm <= radiusKm) hits.push({ index, distanceKm });
    }
    return hits.sort((a, b) => a.distanceKm - b.distanceKm || (this.points[a.index]!.id < this.points[b.index]!.id ? -1 : 1));
  }
}
