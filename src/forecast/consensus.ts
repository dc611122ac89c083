/**
 * Several wave models, one best estimate per hour: which models count at a spot, the median of those with a value
 * each hour, and how far they agree. Pure: series in, figures out. The method and its thresholds are told in
 * docs/forecast.md ("Several wave models").
 */
import type { ModelSeries } from "./openmeteo";
import { swellEnergy, swellsAt } from "./swells";
import type { Confidence, ConfidenceLevel, LeftOutReason, ModelUse, SwellComponent, SwellKind } from "./types";

/** Relative spread `(max − min) / median` below which the models agree well… */
export const HIGH_BELOW = 0.25;
/** …and below which they still broadly agree. */
export const MEDIUM_BELOW = 0.5;

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The middle value; for an even count the mean of the two middle ones. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
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

const KIND_ORDER: readonly SwellKind[] = ["primary", "secondary", "tertiary", "wind"];

/** One component from several models' readings of it: height and period medians, direction circular median. */
function medianComponent(kind: SwellKind, readings: readonly SwellComponent[]): SwellComponent {
  return {
    kind,
    height: round2(median(readings.map((c) => c.height))),
    period: round2(median(readings.map((c) => c.period))),
    direction: Math.round(circularMedian(readings.map((c) => c.direction))) % 360,
  };
}

/** The total sea (wave_height, _period, _direction) of the models that have all three at hour `i`. */
function totalSea(models: readonly ModelSeries[], i: number): { height: number; period: number; direction: number } | null {
  const readings: SwellComponent[] = [];
  for (const { values } of models) {
    const height = values.wave_height?.[i];
    const period = values.wave_period?.[i];
    const direction = values.wave_direction?.[i];
    if (height != null && period != null && direction != null) readings.push({ kind: "primary", height, period, direction });
  }
  if (readings.length === 0) return null;
  const { height, period, direction } = medianComponent("primary", readings);
  return { height, period, direction };
}

/**
 * Hour `i` from the used models that have a wave height above zero then (a model past its horizon has none). Null
 * when none has: the hour has no wave figure (served without it: never as 0 m).
 */
export function estimateHour(series: readonly ModelSeries[], use: ModelUse, i: number): HourEstimate | null {
  const used = series.filter((s) => use.used.includes(s.model));
  const counting = used.filter((s) => (s.values.wave_height?.[i] ?? 0) > 0);
  if (counting.length === 0) return null;
  const heights = counting.map((s) => s.values.wave_height![i]!);
  const mid = round2(median(heights));
  const min = Math.min(...heights);
  const max = Math.max(...heights);

  const byKind = new Map<SwellKind, SwellComponent[]>();
  for (const s of counting) for (const c of swellsAt(s.values, i)) byKind.set(c.kind, [...(byKind.get(c.kind) ?? []), c]);
  const components = KIND_ORDER.filter((k) => byKind.has(k))
    .map((k) => medianComponent(k, byKind.get(k)!))
    .sort((a, b) => swellEnergy(b) - swellEnergy(a));
  const primary = components.find((c) => c.kind === "primary");
  const swell = primary ? { height: primary.height, period: primary.period, direction: primary.direction } : totalSea(counting, i);
  if (!swell) return null;

  const temperatureOf = (models: readonly ModelSeries[]) => models.flatMap((s) => (s.values.sea_surface_temperature?.[i] != null ? [s.values.sea_surface_temperature[i]!] : []));
  // Only Météo-France carries the sea temperature: read it from any model asked for when no used one has it.
  const temperatures = temperatureOf(used).length > 0 ? temperatureOf(used) : temperatureOf(series);
  return {
    waveHeight: mid,
    confidence: { level: confidenceLevel(min, mid, max, counting.length), models: counting.length, waveHeight: { min, median: mid, max } },
    swell,
    components,
    waterTemperature: temperatures.length > 0 ? round2(median(temperatures)) : null,
  };
}

/**
 * The sea level of a marine location: the first model (in request order) with any value, else the first that has the
 * column at all (all null: no sea level here); undefined when no model has it (a server without the sea-level model).
 */
export function seaLevelOf(series: readonly ModelSeries[]): (number | null)[] | undefined {
  const present = series.map((s) => s.values.sea_level_height_msl).filter((v): v is (number | null)[] => v !== undefined);
  return present.find((v) => v.some((x) => x !== null)) ?? present[0];
}
