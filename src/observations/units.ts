/** The observations answer in the units asked for (core/units.ts): heights in feet, wind in mph, temperatures in °F. */
import type { Serves } from "../core/shapes";
import { convertFields, fahrenheit, feet, mph, type UnitRule, type Units } from "../core/units";
import type { ObservationsAnswer } from "./service";
import type { ObservationsResponseSchema } from "./types";

/** Every unit-bearing field of a reading. */
const READING_UNITS: { [field: string]: UnitRule } = {
  waveHeight: feet,
  swellHeight: feet,
  windWaveHeight: feet,
  windSpeed: mph,
  windGust: mph,
  waterTemperature: fahrenheit,
  airTemperature: fahrenheit,
};

const ANSWER_UNITS: { [field: string]: UnitRule } = { latest: READING_UNITS, forecast: { waveHeight: feet }, hours: [READING_UNITS] };

/** The answer in `units`, saying which. */
export function observationsIn(answer: ObservationsAnswer, units: Units): ObservationsAnswer & { units: Units } {
  const converted = units === "metric" ? answer : (convertFields(answer, ANSWER_UNITS) as ObservationsAnswer);
  return { ...converted, units };
}

/** The served answer is what its declared shape says. */
export type ObservationsShapeMatchesService = Serves<typeof ObservationsResponseSchema, ReturnType<typeof observationsIn>>;
