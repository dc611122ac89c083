/**
 * Surf ratings and wind classification: pure functions, documented in docs/ratings.md.
 * STUB — filled in by the forecast issue (#6, ratings/orientation part). Signatures are fixed.
 */
import type { Rating, WindDirectionType } from "./types";

export interface RatingInput {
  /** Primary swell height, m (falls back to wave height when swell is missing). */
  swellHeight: number;
  /** Primary swell period, s. */
  wavePeriod: number;
  /** Direction the swell comes from, degrees. */
  waveDirection: number;
  /** km/h */
  windSpeed: number;
  /** km/h */
  windGust: number;
  /** Direction the wind comes from, degrees. */
  windDirection: number;
  /** Bearing from the beach toward open water, degrees; null when unknown. */
  facing: number | null;
}

/** δ = angle between wind-from and facing: ≤ 45° onshore, ≥ 135° offshore, else cross; null facing → null. */
export function windDirectionType(windFrom: number, facing: number | null): WindDirectionType | null {
  if (facing === null) return null;
  const d = Math.abs((((windFrom - facing) % 360) + 540) % 360 - 180);
  return d <= 45 ? "onshore" : d >= 135 ? "offshore" : "cross";
}

export function rateHour(_input: RatingInput): Rating {
  return { beginner: 1, intermediate: 1, advanced: 1 };
}
