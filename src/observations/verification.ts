/**
 * How right each wave model has been at a buoy, and the correction that rule allows. Pure: pairs in, figures out.
 * The definitions are the usual ones of wave verification (docs/observations.md, "Verification"):
 * bias = mean(model − observed), biasPercent = 100 · bias / mean(observed), rmse = √mean((model − observed)²),
 * scatterIndex = std(model − observed) / mean(observed).
 */
import { DAY_MS } from "../core/clock";
import { readingsByHour, type Reading } from "./readings";

/** One hour: the buoy's wave height and each model's, m (null where a model has none). */
export interface Pair {
  time: number;
  observed: number;
  models: Record<string, number | null>;
}

/** Models' hourly wave heights at a point: `waveHeight[model][i]` is for `time[i]` (epoch ms). */
export interface ModelHours {
  time: number[];
  waveHeight: Record<string, (number | null)[]>;
}

import type { LeadDayScore, ModelScore, Score } from "./types";
export type { LeadDayScore, ModelScore, Score } from "./types";

/** A model is named best only with at least a week of hourly pairs. */
export const BEST_MIN_PAIRS = 7 * 24;
/** The correction needs a buoy this near the spot… */
export const CORRECTION_MAX_KM = 50;
/** …and two weeks of hourly pairs. */
export const CORRECTION_MIN_PAIRS = 14 * 24;
/** Issued forecasts are verified by lead day 1 to this. */
export const LEAD_DAYS = 7;

const round = (x: number, decimals: number) => Math.round(x * 10 ** decimals) / 10 ** decimals;
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** The middle of the values, the mean of the two middle ones for an even count; null for none. */
function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** What the API serves for an hour: the median of the models with a value, each scaled by its ratio when given. */
export function servedHeight(models: Record<string, number | null>, ratios: Record<string, number> = {}): number | null {
  return median(Object.entries(models).flatMap(([model, h]) => (h === null ? [] : [h * (ratios[model] ?? 1)])));
}

/** The models' hours between `from` (inclusive) and `to` (exclusive), each beside the buoy's reading nearest it. */
export function pairUp(readings: readonly Reading[], hours: ModelHours, from: number, to: number): Pair[] {
  const index = new Map(hours.time.map((t, i) => [t, i]));
  const wanted = hours.time.filter((t) => t >= from && t < to);
  return readingsByHour(readings, wanted).map(({ hour, reading }) => ({
    time: hour,
    observed: reading.waveHeight!,
    models: Object.fromEntries(Object.entries(hours.waveHeight).map(([model, series]) => [model, series[index.get(hour)!] ?? null])),
  }));
}

/** The figures of (forecast, observed) couples; null figures where there are none or nothing was observed. */
export function score(couples: readonly { forecast: number; observed: number }[]): Score {
  const n = couples.length;
  if (n === 0) return { n, bias: null, biasPercent: null, rmse: null, scatterIndex: null };
  const errors = couples.map((c) => c.forecast - c.observed);
  const observedMean = mean(couples.map((c) => c.observed));
  const bias = mean(errors);
  const rmse = Math.sqrt(mean(errors.map((e) => e * e)));
  const std = Math.sqrt(mean(errors.map((e) => (e - bias) ** 2)));
  const relative = observedMean > 0;
  return {
    n,
    bias: round(bias, 3),
    biasPercent: relative ? round((100 * bias) / observedMean, 1) : null,
    rmse: round(rmse, 3),
    scatterIndex: relative ? round(std / observedMean, 3) : null,
  };
}

const couplesOf = (pairs: readonly Pair[], forecastOf: (p: Pair) => number | null) =>
  pairs.flatMap((p) => {
    const forecast = forecastOf(p);
    return forecast === null ? [] : [{ forecast, observed: p.observed }];
  });

/** Each model's score (in the order given) and the served median's. */
export function scoreModels(pairs: readonly Pair[], models: readonly string[]): { models: ModelScore[]; served: Score } {
  return {
    models: models.map((model) => ({ model, ...score(couplesOf(pairs, (p) => p.models[model] ?? null)) })),
    served: score(couplesOf(pairs, (p) => servedHeight(p.models))),
  };
}

/** The model with the lowest scatter index among those with a week of pairs, or null. */
export function bestModel(scores: readonly ModelScore[]): string | null {
  const eligible = scores.filter((s) => s.n >= BEST_MIN_PAIRS && s.scatterIndex !== null);
  if (eligible.length === 0) return null;
  return eligible.reduce((best, s) => (s.scatterIndex! < best.scatterIndex! ? s : best)).model;
}

/** A model's forecast for an hour as issued some days before it. */
export interface LeadForecast {
  model: string;
  /** When the forecast was issued (a refresh), epoch ms. */
  issuedAt: number;
  /** The hour it is for, epoch ms. */
  time: number;
  waveHeight: number;
}

/** 1 for an hour within a day of the issue, 2 for the next day, …; null outside 1..LEAD_DAYS. */
export function leadDayOf(issuedAt: number, time: number): number | null {
  const day = Math.ceil((time - issuedAt) / DAY_MS);
  return day >= 1 && day <= LEAD_DAYS ? day : null;
}

/**
 * The scores by lead day, for the days that have pairs: each issued forecast beside the buoy's reading of its hour.
 * Several issues of one model for one hour and lead day count as several pairs.
 */
export function scoreByLeadDay(readings: readonly Reading[], forecasts: readonly LeadForecast[], models: readonly string[], from: number, to: number): LeadDayScore[] {
  const observed = new Map(readingsByHour(readings, [...new Set(forecasts.map((f) => f.time))].filter((t) => t >= from && t < to)).map((r) => [r.hour, r.reading.waveHeight!]));
  const out: LeadDayScore[] = [];
  for (let day = 1; day <= LEAD_DAYS; day++) {
    // One pair per hour and issue, holding every model issued then.
    const pairs = new Map<string, Pair>();
    for (const f of forecasts) {
      const seen = observed.get(f.time);
      if (seen === undefined || leadDayOf(f.issuedAt, f.time) !== day) continue;
      const key = `${f.issuedAt}/${f.time}`;
      const pair = pairs.get(key) ?? { time: f.time, observed: seen, models: {} };
      pair.models[f.model] = f.waveHeight;
      pairs.set(key, pair);
    }
    if (pairs.size > 0) out.push({ day, ...scoreModels([...pairs.values()], models) });
  }
  return out;
}

/** The correction's fit: each model's ratio, and the served RMSE on the held-out newest third without and with them. */
export interface Correction {
  ratios: Record<string, number>;
  heldOutRmse: { before: number; after: number };
  /** The ratios lower the held-out RMSE: only then are they applied. */
  applied: boolean;
}

/**
 * The correction rule: with a buoy within CORRECTION_MAX_KM and CORRECTION_MIN_PAIRS hours of pairs, each model's ratio
 * mean(observed) / mean(model) is fitted on the older two thirds of the pairs, and applied only when it lowers the
 * served RMSE on the newest third. Null when the buoy is too far or the pairs too few.
 */
export function fitCorrection(pairs: readonly Pair[], models: readonly string[], buoyDistanceKm: number): Correction | null {
  const served = pairs.filter((p) => servedHeight(p.models) !== null).sort((a, b) => a.time - b.time);
  if (buoyDistanceKm > CORRECTION_MAX_KM || served.length < CORRECTION_MIN_PAIRS) return null;
  const split = Math.floor((served.length * 2) / 3);
  const fitted = served.slice(0, split);
  const heldOut = served.slice(split);
  const ratios: Record<string, number> = {};
  for (const model of models) {
    const couples = couplesOf(fitted, (p) => p.models[model] ?? null);
    const modelMean = couples.length > 0 ? mean(couples.map((c) => c.forecast)) : 0;
    if (modelMean > 0) ratios[model] = round(mean(couples.map((c) => c.observed)) / modelMean, 3);
  }
  const before = score(couplesOf(heldOut, (p) => servedHeight(p.models))).rmse!;
  const after = score(couplesOf(heldOut, (p) => servedHeight(p.models, ratios))).rmse!;
  return { ratios, heldOutRmse: { before, after }, applied: after < before };
}
