/**
 * Spot facings as the forecast pipeline reads them: the import override wins over the computed value.
 * Computed facings (src/spots/orientation.ts) are stored once per spot in `spot_facing`.
 */
import type { Db } from "../db";
import { computeFacing, loadLand, FACING_METHOD } from "../spots/orientation";
import { spotsWithFacing, storedFacings, writeFacings } from "./store";

const CHUNK = 500;

/**
 * Computes and stores the facing of every given spot that has no `spot_facing` row yet, or one from an older
 * method, one transaction per chunk. Returns how many it computed. Loads the land index only when needed.
 */
export function ensureFacings(
  db: Db,
  spots: readonly { id: string; lat: number; lng: number }[],
  onProgress?: (done: number, total: number) => void,
): number {
  const current = spotsWithFacing(db, FACING_METHOD);
  const missing = spots.filter((s) => !current.has(s.id));
  if (missing.length === 0) return 0;
  const land = loadLand();
  for (let done = 0; done < missing.length; done += CHUNK) {
    const computedAt = Date.now();
    const rows = missing.slice(done, done + CHUNK).map((spot) => ({
      spotId: spot.id,
      facing: computeFacing(spot.lat, spot.lng, land),
      method: FACING_METHOD,
      computedAt,
    }));
    writeFacings(db, rows);
    onProgress?.(done + rows.length, missing.length);
  }
  return missing.length;
}

/** spot id → facing in degrees (bearing toward open water), or null when unknown. */
export function loadFacings(db: Db): Map<string, number | null> {
  return new Map(storedFacings(db).map((r) => [r.id, r.override ?? r.facing]));
}
