/** The strict parameters of the now endpoints and the `spot_now` tool (core/params.ts rules: same 400s everywhere). */
import { parseChoice, parseSpotList, type Raw } from "../core/params";
import { UNITS, type Units } from "./units";

export const parseNowParams = (raw: Raw): { units: Units } => ({ units: parseChoice(raw, "units", UNITS) });

export const parseNowManyParams = (raw: Raw): { spots: string[]; units: Units } => ({ spots: parseSpotList(raw, "spots"), units: parseChoice(raw, "units", UNITS) });

/** How many spots a GET /v1/now asks for: what it counts in usage (1 when the list is invalid: a 400 counts once). */
export function nowWeight(query: Raw): number {
  try {
    return parseSpotList(query, "spots").length;
  } catch {
    return 1;
  }
}
