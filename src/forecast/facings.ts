/**
 * Spot facings as the forecast pipeline reads them: the import override wins over the computed value.
 * Computed facings (src/spots/orientation.ts) are stored once per spot in `spot_facing`.
 */
import { computeFacing, loadLand, FACING_METHOD, type LandIndex } from "../spots/orientation";
import { positionKey, readBuiltFacings } from "./built-facings";
import type { ForecastStore } from "./store";

const CHUNK = 500;

/**
 * Computes and stores the facing of every given spot that has no `spot_facing` row yet, or one from an older
 * method, one transaction per chunk. Returns how many it computed. A facing the build decided
 * (./built-facings.ts) is taken as it is; the land index is loaded only for a spot it did not.
 */
export async function ensureFacings(
  store: Pick<ForecastStore, "spotsWithFacing" | "writeFacings">,
  spots: readonly { id: string; lat: number; lng: number }[],
  onProgress?: (done: number, total: number) => void,
  readBuilt: () => ReadonlyMap<string, number | null> = readBuiltFacings,
): Promise<number> {
  const current = await store.spotsWithFacing(FACING_METHOD);
  const missing = spots.filter((s) => !current.has(s.id));
  if (missing.length === 0) return 0;
  const built = readBuilt();
  let land: LandIndex | null = null;
  const facingOf = (lat: number, lng: number) => {
    const decided = built.get(positionKey(lat, lng));
    return decided !== undefined ? decided : computeFacing(lat, lng, (land ??= loadLand()));
  };
  for (let done = 0; done < missing.length; done += CHUNK) {
    const computedAt = Date.now();
    const rows = missing.slice(done, done + CHUNK).map((spot) => ({
      spotId: spot.id,
      facing: facingOf(spot.lat, spot.lng),
      method: FACING_METHOD,
      computedAt,
    }));
    await store.writeFacings(rows);
    onProgress?.(done + rows.length, missing.length);
  }
  return missing.length;
}

/** spot id → facing in degrees (bearing toward open water), or null when unknown. */
export async function loadFacings(store: Pick<ForecastStore, "storedFacings">): Promise<Map<string, number | null>> {
  return new Map((await store.storedFacings()).map((r) => [r.id, r.override ?? r.facing]));
}
