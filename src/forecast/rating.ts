/**
 * Surf ratings and wind classification: pure functions. The model, its thresholds and their sources are in
 * docs/ratings.md — keep the two in step.
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
  /**
   * The breaking sea from every wave component (forecast/surf.ts `breakingSea`). When given it replaces the
   * breaking height computed from the primary swell alone, and its period is the one the period step rates.
   */
  breaking?: { height: number; period: number };
}

type Level = keyof Rating;

/** Smallest angle between two bearings, 0..180. */
function angleBetween(a: number, b: number): number {
  return Math.abs((((a - b) % 360) + 540) % 360 - 180);
}

/** δ = angle between wind-from and facing: ≤ 45° onshore, ≥ 135° offshore, else cross; null facing → null. */
export function windDirectionType(windFrom: number, facing: number | null): WindDirectionType | null {
  if (facing === null || !Number.isFinite(facing) || !Number.isFinite(windFrom)) return null;
  const d = angleBetween(windFrom, facing);
  return d <= 45 ? "onshore" : d >= 135 ? "offshore" : "cross";
}

const G = 9.81;

/** Breaking wave height, m (Komar & Gaughan 1972): Hb = 0.39 · g^0.2 · (T · H0²)^0.4. */
export function breakingHeight(deepWaterHeight: number, period: number): number {
  return 0.39 * G ** 0.2 * (period * deepWaterHeight ** 2) ** 0.4;
}

/**
 * Share of the swell that reaches the beach (the refraction factor used by surfpy): √cos θ for swell arriving
 * θ < 90° off the facing, 0 from behind the beach; 1 when the facing or the swell direction is unknown.
 */
export function exposureFactor(swellFrom: number, facing: number | null): number {
  if (facing === null || !Number.isFinite(facing) || !Number.isFinite(swellFrom)) return 1;
  const theta = angleBetween(swellFrom, facing);
  return theta >= 90 ? 0 : Math.sqrt(Math.cos((theta * Math.PI) / 180));
}

/** Below this breaking height the sea is flat for every level. */
const FLAT_M = 0.2;

/** Size windows on the breaking height, m: score 1 outside [a, d], 5 inside [b, c], linear between. */
const SIZE_WINDOWS: Record<Level, readonly [a: number, b: number, c: number, d: number]> = {
  beginner: [0.2, 0.4, 0.9, 1.5],
  intermediate: [0.3, 0.8, 1.8, 3.0],
  advanced: [0.5, 1.5, 4.0, 8.0],
};

function sizeScore(hb: number, [a, b, c, d]: readonly [number, number, number, number]): number {
  if (hb <= a || hb >= d) return 1;
  if (hb < b) return 1 + (4 * (hb - a)) / (b - a);
  if (hb <= c) return 5;
  return 1 + (4 * (d - hb)) / (d - c);
}

/** Period classes: < 6 s chop, 6–9 s wind swell, 9–12 s medium, ≥ 12 s ground swell. */
function periodAdjustment(period: number, level: Level): number {
  if (period < 6) return -1.5;
  if (period < 9) return level === "beginner" ? 0 : -0.5;
  if (period < 12) return 0;
  return level === "beginner" ? 0 : 0.5;
}

/** Beaufort bands by sustained wind, km/h: < 6, 6–11, 12–19, 20–28, 29–38, ≥ 39 (lower bounds). */
const BEAUFORT_BANDS = [0, 6, 12, 20, 29, 39] as const;
const WIND_PENALTY: Record<WindDirectionType, readonly number[]> = {
  onshore: [0, 1, 2, 3, 4, 4],
  cross: [0, 0.5, 1, 1.5, 2.5, 3],
  offshore: [0, 0, 0, 0.5, 1, 2],
};
/** Gusts at or above this make paddling out hard whatever the direction (Magicseaweed's offshore remark). */
const STRONG_GUST_KMH = 40;
/** Instructor guidance: beginners need wind under 20 km/h. */
const BEGINNER_WIND_KMH = 20;

function windPenalty(speed: number, type: WindDirectionType): number {
  let band = 0;
  while (band + 1 < BEAUFORT_BANDS.length && speed >= BEAUFORT_BANDS[band + 1]!) band++;
  return WIND_PENALTY[type][band]!;
}

/** A finite, non-negative number, or the fallback. */
function finiteOr(value: number, fallback: number): number {
  return Number.isFinite(value) ? Math.max(0, value) : fallback;
}

/** Ratings 1..5 (integers) per level for one forecast hour; any input may be missing (NaN) or out of range. */
export function rateHour(input: RatingInput): Rating {
  const period = finiteOr(input.breaking ? input.breaking.period : input.wavePeriod, 0);
  const hb = input.breaking
    ? finiteOr(input.breaking.height, 0)
    : breakingHeight(finiteOr(input.swellHeight, 0), period) * exposureFactor(input.waveDirection, input.facing);
  if (!(hb >= FLAT_M)) return { beginner: 1, intermediate: 1, advanced: 1 };

  const wind = finiteOr(input.windSpeed, 0);
  const gust = Math.max(wind, finiteOr(input.windGust, 0));
  // Unknown facing or wind direction: rated as cross-shore, between the two extremes.
  const type = windDirectionType(input.windDirection, input.facing) ?? "cross";
  const penalty = windPenalty(wind, type) + (gust >= STRONG_GUST_KMH ? 0.5 : 0);

  const rate = (level: Level): number => {
    const size = sizeScore(hb, SIZE_WINDOWS[level]);
    if (size === 1) return 1; // outside the level's size window (too small or too big): nothing else helps
    let score = Math.round(size + periodAdjustment(period, level) - penalty);
    if (level === "beginner" && (wind >= BEGINNER_WIND_KMH || gust >= STRONG_GUST_KMH)) score = Math.min(score, 2);
    return Math.min(5, Math.max(1, score));
  };
  return { beginner: rate("beginner"), intermediate: rate("intermediate"), advanced: rate("advanced") };
}
