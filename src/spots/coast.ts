/**
 * Where a position lies relative to the Natural Earth 10 m coastline (the land index of ./orientation.ts):
 * the distance to the nearest coast and whether the point is on land. Used by the catalog check (`spots check`) and
 * by the fake Open-Meteo's sea-level model. Pure given the index.
 */
import { cellCol, cellRow, edgesAround, GRID_COLS, type LandIndex } from "./orientation";

/** Distance in km from the point to the nearest coastline edge within `maxKm`, or null when none is that close. */
export function coastDistanceKm(lat: number, lng: number, land: LandIndex, maxKm: number): number | null {
  for (let radius = Math.min(25, maxKm); ; radius = Math.min(radius * 4, maxKm)) {
    const { xy } = edgesAround(lat, lng, radius, land);
    let best = Infinity;
    for (let i = 0; i < xy.length; i += 4) {
      const [ax, ay, bx, by] = [xy[i]!, xy[i + 1]!, xy[i + 2]!, xy[i + 3]!];
      const ex = bx - ax;
      const ey = by - ay;
      const len2 = ex * ex + ey * ey;
      const u = len2 > 0 ? Math.min(1, Math.max(0, -(ax * ex + ay * ey) / len2)) : 0;
      best = Math.min(best, Math.hypot(ax + u * ex, ay + u * ey));
    }
    // Edges are gathered from whole grid cells, so a hit within `radius` is the true nearest.
    if (best <= radius) return best;
    if (radius >= maxKm) return null;
  }
}

/**
 * Whether the point is on land: the parity of coastline crossings on a ray due north from it (edges half-open in
 * longitude, so a ray through a vertex counts once). Lakes are land in Natural Earth's land layer.
 */
export function isOnLand(lat: number, lng: number, land: LandIndex): boolean {
  const col = cellCol(lng);
  const seen = new Set<number>();
  let crossings = 0;
  for (let row = cellRow(lat); row < 180 / 0.25; row++) {
    const cell = row * GRID_COLS + col;
    for (let i = land.cellStart[cell]!; i < land.cellStart[cell + 1]!; i++) {
      const e = land.cellEdges[i]!;
      if (land.multiCell[e]) {
        if (seen.has(e)) continue;
        seen.add(e);
      }
      const x0 = land.lng[e]!;
      const y0 = land.lat[e]!;
      const x1 = land.lng[land.next[e]!]!;
      const y1 = land.lat[land.next[e]!]!;
      if (x0 <= lng === x1 <= lng) continue;
      const y = y0 + ((lng - x0) / (x1 - x0)) * (y1 - y0);
      if (y > lat) crossings++;
    }
  }
  return crossings % 2 === 1;
}
