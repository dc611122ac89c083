/**
 * Imperial units for GET /v1/spots/{id}/now (the spec's endpoints stay metric): feet, mph and °F. Pure.
 *
 * A forecast hour is converted by field name, so fields added to stored hours later pass through unchanged unless
 * they carry a unit: such a field must be added to `HOUR_UNITS` (test/now/now.test.ts checks every numeric field of
 * the served ForecastHour schema against this table).
 */
import type { ForecastHour } from "../forecast/types";

export const UNITS = ["metric", "imperial"] as const;
export type Units = (typeof UNITS)[number];

const round = (value: number, decimals: number) => {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
};

/** Meters → feet, to the hundredth (3 mm). */
export const feet = (meters: number) => round(meters / 0.3048, 2);
/** km/h → mph, to a tenth. */
export const mph = (kmh: number) => round(kmh / 1.609344, 1);
/** °C → °F, to a tenth. */
export const fahrenheit = (celsius: number) => round((celsius * 9) / 5 + 32, 1);

type Convert = (n: number) => number;
/** A number's conversion, an object's per-field rules, or an array's rule for each item. */
type Rule = Convert | { [field: string]: Rule } | [Rule];

/** Every unit-bearing field of a forecast hour, including those beyond the spec (`surf`, `swells`, `confidence`) when present. */
export const HOUR_UNITS: { [field: string]: Rule } = {
  waveHeight: feet,
  swellHeight: feet,
  windSpeed: mph,
  windGust: mph,
  airTemperature: fahrenheit,
  waterTemperature: fahrenheit,
  tide: { height: feet },
  surf: { min: feet, max: feet },
  swells: [{ height: feet }],
  confidence: { waveHeight: { min: feet, median: feet, max: feet } },
};

function convert(value: unknown, rule: Rule): unknown {
  if (value === null || value === undefined) return value;
  if (typeof rule === "function") return typeof value === "number" ? rule(value) : value;
  if (Array.isArray(rule)) return Array.isArray(value) ? value.map((item) => convert(item, rule[0])) : value;
  if (typeof value !== "object" || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [field, inner] of Object.entries(value)) out[field] = Object.hasOwn(rule, field) ? convert(inner, rule[field]!) : inner;
  return out;
}

/** The hour in `units`; every field it has is kept, in its order. */
export function hourIn(hour: ForecastHour, units: Units): ForecastHour {
  return units === "metric" ? hour : (convert(hour, HOUR_UNITS) as ForecastHour);
}

/** A height in meters, in `units`. */
export const heightIn = (meters: number, units: Units) => (units === "metric" ? meters : feet(meters));
