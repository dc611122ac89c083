/**
 * Units for the answers that speak imperial on request (the spec's fields stay metric by default): feet, mph and °F.
 * One conversion for every room that converts; a room converts its own shapes by field name with `convertFields`. Pure.
 */

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
export type UnitRule = Convert | { [field: string]: UnitRule } | [UnitRule];

/** `value` with every field `rule` names converted; other fields kept as they are, in their order. */
export function convertFields(value: unknown, rule: UnitRule): unknown {
  if (value === null || value === undefined) return value;
  if (typeof rule === "function") return typeof value === "number" ? rule(value) : value;
  if (Array.isArray(rule)) return Array.isArray(value) ? value.map((item) => convertFields(item, rule[0])) : value;
  if (typeof value !== "object" || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [field, inner] of Object.entries(value)) out[field] = Object.hasOwn(rule, field) ? convertFields(inner, rule[field]!) : inner;
  return out;
}

/** The unit names of each kind of measure, for texts that print numbers in `units`. */
export const UNIT_LABELS: Record<Units, { height: string; speed: string; temperature: string }> = {
  metric: { height: "m", speed: "km/h", temperature: "°C" },
  imperial: { height: "ft", speed: "mph", temperature: "°F" },
};

/** Feet → meters, to a tenth of a millimetre (the exact value without float noise): what a threshold given in feet is stored as. */
export const metersOfFeet = (ft: number) => round(ft * 0.3048, 4);

/** A height in meters, in `units`. */
export const heightIn = (meters: number, units: Units) => (units === "metric" ? meters : feet(meters));
