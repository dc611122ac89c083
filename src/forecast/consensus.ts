/**
 * Several wave models, one best estimate per hour: which models count at a spot, the median of those with a value
 * each hour, and how far they agree. Pure: series in, figures out. The method and its thresholds are told in
 * docs/forecast.md ("Several wave models").
 */
import type { ModelSeries } from "./openmeteo";
import { largestEnergyFirst, readingAt, SWELL_KINDS, SWELL_PREFIXES } from "./swells";
import type { Confidence, ConfidenceLevel, LeftOutReason, ModelUse, SwellComponent, SwellKind } from "./types";

/** Relative spread `(max − min) / median` below which the models agree well… */
export const HIGH_BELOW = 0.25;
/** …and below which they still broadly agree. */
export const MEDIUM_BELOW = 0.5;

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The middle value; for an even count the mean of the two middle ones. Sorts `values` in place. */
export function median(values: number[]): number {
  const sorted = values.sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The median of directions (degrees): the linear median of each direction's signed offset from their circular mean,
 * so 350° and 10° give 0°, not 180°.
 */
export function circularMedian(degrees: readonly number[]): number {
  const rad = Math.PI / 180;
  const x = degrees.reduce((s, d) => s + Math.cos(d * rad), 0);
  const y = degrees.reduce((s, d) => s + Math.sin(d * rad), 0);
  const mean = x === 0 && y === 0 ? degrees[0]! : Math.atan2(y, x) / rad;
  const offsets = degrees.map((d) => ((((d - mean) % 360) + 540) % 360) - 180);
  return (((mean + median(offsets)) % 360) + 360) % 360;
}

/** The levels in words, for texts and pages: "3 wave models agree well". */
export const AGREEMENT_WORDS: Record<ConfidenceLevel, string> = { high: "agree well", medium: "broadly agree", low: "disagree" };

/** The level from the spread; one model alone cannot be checked against another, so it is never more than medium. */
export function confidenceLevel(min: number, mid: number, max: number, models: number): ConfidenceLevel {
  const spread = (max - min) / mid;
  const level: ConfidenceLevel = spread < HIGH_BELOW ? "high" : spread < MEDIUM_BELOW ? "medium" : "low";
  return models === 1 && level === "high" ? "medium" : level;
}

/** A model's wave heights at a spot: some sea, only zeros (a cell on land), or nothing at all. */
function seriesKind(s: ModelSeries): "sea" | LeftOutReason {
  let zero = false;
  for (const v of s.values.wave_height ?? []) {
    if (v === null) continue;
    if (v > 0) return "sea";
    zero = true;
  }
  return zero ? "zero series" : "no data";
}

/**
 * The models that count at a spot: of `counted`, those that see sea there. A model reading only zeros (or nothing)
 * where another sees sea is a land-snapped cell or a model that does not cover the spot: it is left out, named with
 * why. When none sees sea, none is used and every one is named.
 */
export function chooseModels(series: readonly ModelSeries[], counted: readonly string[]): ModelUse {
  const use: ModelUse = { used: [], leftOut: {} };
  for (const s of series) {
    if (!counted.includes(s.model)) continue;
    const kind = seriesKind(s);
    if (kind === "sea") use.used.push(s.model);
    else use.leftOut[s.model] = kind;
  }
  return use;
}

export interface HourEstimate {
  /** The median of the models' wave heights this hour, m. */
  waveHeight: number;
  confidence: Confidence;
  /** The primary swell (each figure the models' median), or the total sea where no model has a primary swell. */
  swell: { height: number; period: number; direction: number };
  /** Per wave component, the median of the models that carry it; largest energy first. */
  components: SwellComponent[];
  /** The median of the models that carry it; null when none does. */
  waterTemperature: number | null;
}

/**
 * One wave train from the counting models that have all three of its values at hour `i` (swells.ts `readingAt`):
 * height and period medians, direction circular median; null when none has it.
 */
function medianComponent(kind: SwellKind, prefix: string, models: readonly ModelSeries[], i: number): SwellComponent | null {
  const heights: number[] = [];
  const periods: number[] = [];
  const directions: number[] = [];
  for (const { values } of models) {
    const reading = readingAt(values, prefix, i);
    if (!reading) continue;
    heights.push(reading.height);
    periods.push(reading.period);
    directions.push(reading.direction);
  }
  if (heights.length === 0) return null;
  return { kind, height: round2(median(heights)), period: round2(median(periods)), direction: Math.round(circularMedian(directions)) % 360 };
}

/** The models of a spot as each hour reads them: those used (chooseModels), and every one asked for. */
export interface SpotModels {
  all: readonly ModelSeries[];
  used: readonly ModelSeries[];
  /** Each model's wave heights are multiplied by its ratio before the median (the bias correction); 1 unless given. */
  ratios: Readonly<Record<string, number>>;
}

export function spotModels(series: readonly ModelSeries[], use: ModelUse, ratios: Readonly<Record<string, number>> = {}): SpotModels {
  return { all: series, used: series.filter((s) => use.used.includes(s.model)), ratios };
}

/**
 * Hour `i` from the used models that have a wave height above zero then (a model past its horizon has none). Null
 * when none has: the hour has no wave figure (served without it: never as 0 m).
 */
export function estimateHour({ all, used, ratios }: SpotModels, i: number): HourEstimate | null {
  const counting = used.filter((s) => (s.values.wave_height?.[i] ?? 0) > 0);
  if (counting.length === 0) return null;
  const heights = counting.map((s) => {
    const height = s.values.wave_height![i]!;
    const ratio = ratios[s.model];
    return ratio === undefined ? height : round2(height * ratio);
  });
  const mid = round2(median(heights));
  const min = Math.min(...heights);
  const max = Math.max(...heights);

  const components: SwellComponent[] = [];
  for (const kind of SWELL_KINDS) {
    const component = medianComponent(kind, SWELL_PREFIXES[kind], counting, i);
    if (component) components.push(component);
  }
  largestEnergyFirst(components);
  const primary = components.find((c) => c.kind === "primary");
  const total = primary ?? medianComponent("primary", "wave", counting, i);
  if (!total) return null;

  // Only Météo-France carries the sea temperature: read it from any model asked for when no used one has it.
  const temperatures = temperaturesAt(used, i);
  const temperature = temperatures.length > 0 ? temperatures : temperaturesAt(all, i);
  return {
    waveHeight: mid,
    confidence: { level: confidenceLevel(min, mid, max, counting.length), models: counting.length, waveHeight: { min, median: mid, max } },
    swell: { height: total.height, period: total.period, direction: total.direction },
    components,
    waterTemperature: temperature.length > 0 ? round2(median(temperature)) : null,
  };
}

function temperaturesAt(models: readonly ModelSeries[], i: number): number[] {
  const out: number[] = [];
  for (const { values } of models) {
    const t = values.sea_surface_temperature?.[i];
    if (t != null) out.push(t);
  }
  return out;
}

/**
 * The sea level of a marine location: the first model (in request order) with any value, else the first that has the
 * column at all (all null: no sea level here); undefined when no model has it (a server without the sea-level model).
 */
export function seaLevelOf(series: readonly ModelSeries[]): (number | null)[] | undefined {
  const present = series.map((s) => s.values.sea_level_height_msl).filter((v): v is (number | null)[] => v !== undefined);
  return present.find((v) => v.some((x) => x !== null)) ?? present[0];
}
