/**
 * A forecast hour in imperial units (core/units.ts), converted by field name: fields added to stored hours later pass
 * through unchanged unless they carry a unit; such a field must be added to `HOUR_UNITS` (test/now/now.test.ts
 * checks every numeric field of the served ForecastHour schema against this table).
 */
import { fahrenheit, feet, mph, convertFields, type UnitRule, type Units } from "../core/units";
import type { ForecastHour, SurfRange } from "./types";

/** Every unit-bearing field of a forecast hour, including those beyond the spec (`surf`, `swells`, `confidence`) when present. */
export const HOUR_UNITS: { [field: string]: UnitRule } = {
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

/** The hour in `units`; every field it has is kept, in its order. */
export function hourIn(hour: ForecastHour, units: Units): ForecastHour {
  return units === "metric" ? hour : (convertFields(hour, HOUR_UNITS) as ForecastHour);
}

/** A served hour's JSON text in `units`: the stored text itself when metric. */
export function hourJsonIn(json: string, units: Units): string {
  return units === "metric" ? json : JSON.stringify(hourIn(JSON.parse(json) as ForecastHour, units));
}

/** A surf range in `units`. */
export function surfIn(surf: SurfRange, units: Units): SurfRange {
  return units === "metric" ? surf : (convertFields(surf, HOUR_UNITS.surf!) as SurfRange);
}
