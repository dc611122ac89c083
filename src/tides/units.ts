/** The tides answer in the units asked for (core/units.ts): heights in feet with `imperial`, the rest as it is. */
import { convertFields, feet, type UnitRule, type Units } from "../core/units";
import type { TidesResponse } from "./types";

const TIDES_UNITS: { [field: string]: UnitRule } = { extremes: [{ height: feet }] };

/** The answer in `units`, saying which. */
export function tidesIn(response: TidesResponse, units: Units): TidesResponse {
  return units === "metric" ? response : { ...(convertFields(response, TIDES_UNITS) as TidesResponse), units };
}
