/** The climate answer in the units asked for (core/units.ts): wave heights in feet, wind in mph. */
import type { Serves } from "../core/shapes";
import { convertFields, feet, mph, type UnitRule, type Units } from "../core/units";
import type { ClimateAnswer } from "./service";
import type { ClimateResponseSchema } from "./types";

const MONTH_UNITS: UnitRule = { waveHeight: { p10: feet, p25: feet, p50: feet, p75: feet, p90: feet }, windSpeed: { p50: mph } };

/** The answer in `units`, saying which. */
export function climateIn(answer: ClimateAnswer, units: Units): ClimateAnswer & { units: Units } {
  const converted = units === "metric" ? answer : (convertFields(answer, { months: [MONTH_UNITS] }) as ClimateAnswer);
  return { ...converted, units };
}

/** The served answer is what its declared shape says. */
export type ClimateShapeMatchesService = Serves<typeof ClimateResponseSchema, ReturnType<typeof climateIn>>;
