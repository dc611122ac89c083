/** The strict parameters of GET /v1/now (core/params.ts rules: same 400s everywhere). */
import { parseSpotList, parseUnitsParams, type Raw, type UnitsParams } from "../core/params";

export const parseNowManyParams = (raw: Raw): UnitsParams & { spots: string[] } => ({ spots: parseSpotList(raw, "spots"), ...parseUnitsParams(raw) });

/**
 * Where a list of spots found for the ids asked names one spot a second time (its slug and its 16-hex id, say), or
 * -1; unknown ids (undefined) repeat nothing. The parser refuses an id repeated as typed; this, the same spot.
 */
export function repeatedSpot(found: readonly (object | undefined)[]): number {
  return found.findIndex((spot, i) => spot !== undefined && found.indexOf(spot) !== i);
}

/**
 * How many spots a GET /v1/now asks for: what it counts in usage (1 when the list is invalid, a spot named twice
 * included: a 400 counts once).
 */
export function nowWeight(query: Raw, find: (id: string) => object | undefined): number {
  try {
    const ids = parseSpotList(query, "spots");
    return repeatedSpot(ids.map(find)) === -1 ? ids.length : 1;
  } catch {
    return 1;
  }
}
