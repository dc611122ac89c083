/**
 * Spot facings as the forecast pipeline reads them: the import override wins over the computed value.
 * STUB — filled in by the forecast issue (#6, orientation part). Signature is fixed.
 */
import type { Db } from "../db";

/** spot id → facing in degrees (bearing toward open water), or null when unknown. */
export function loadFacings(_db: Db): Map<string, number | null> {
  return new Map();
}
