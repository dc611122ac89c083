/** The strict parameters of the now endpoints and the `spot_now` tool (core/params.ts rules: same 400s everywhere). */
import { parseChoice, parseSpotList, type Raw } from "../core/params";
import { UNITS, type Units } from "../core/units";

export const parseNowParams = (raw: Raw): { units: Units } => ({ units: parseChoice(raw, "units", UNITS) });

export const parseNowManyParams = (raw: Raw): { spots: string[]; units: Units } => ({ spots: parseSpotList(raw, "spots"), units: parseChoice(raw, "units", UNITS) });

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
