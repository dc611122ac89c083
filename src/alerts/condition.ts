/**
 * An alert's condition over forecast hours and the windows it finds (docs/alerts.md, "Condition" and "Windows"):
 * pure, no I/O, table-tested in condition.test.ts. The service reads the forecast document and hands its hours and
 * daily rows here.
 */
import { HOUR_MS } from "../core/clock";
import { RuleError } from "../core/errors";
import { CONFIDENCE_LEVELS, CONFIDENCE_SCORE, confidenceScore, daylightOf, inDaylight, LEVELS } from "../forecast/best";
import { isoUtc } from "../core/clock";
import type { ConfidenceLevel, DailyWeather, ForecastHour, Level, WindDirectionType } from "../forecast/types";
import { feet, metersOfFeet, UNIT_LABELS, UNITS, type Units } from "../core/units";

export const WIND_TYPES: readonly WindDirectionType[] = ["offshore", "cross", "onshore"];

/** The highest wave height a condition may name, in m: above it nothing ever matches, so it is a typo. */
export const MAX_WAVE_M = 30;

/** What an alert waits for. Absent fields do not filter. */
export interface AlertCondition {
  /** Wave height (significant, m) at least this: always metres, whatever unit it was given in. */
  minWave: number;
  /** Wave height at most this. */
  maxWave?: number;
  /** The hour's rating for `level` at least `min` (1..5). */
  rating?: { min: number; level: Level };
  /** The wind types allowed; an hour whose wind type is unknown (null) matches only without this filter. */
  wind?: WindDirectionType[];
  /** Only hours between the day's sunrise and sunset. */
  daylight: boolean;
  /** The forecast's confidence at least this; an hour that does not say counts as "medium". */
  minConfidence?: ConfidenceLevel;
  /** The unit the wave heights were given in, and are shown back in; absent: metric (alerts made before units). */
  units?: Units;
}

/** A condition as given (CLI flags, console form), before the rules. */
export interface ConditionInput {
  /** In `units`. */
  minWave?: number;
  maxWave?: number;
  /** The unit of the wave heights: metric (the default) or imperial (feet). */
  units?: string;
  minRating?: number;
  level?: string;
  wind?: readonly string[];
  daylight?: boolean;
  minConfidence?: string;
}


/** The figures of a window's best hour, as deliveries and listings show them. */
export interface BestHour {
  time: string;
  waveHeight: number;
  wavePeriod: number;
  windSpeed: number;
  windDirectionType: WindDirectionType | null;
  /** The rating for the alert's level (intermediate when it names none). */
  rating: number;
}

/** A run of consecutive matching hours: start of the first, end of the last (exclusive), both ISO UTC. */
export interface AlertWindow {
  start: string;
  end: string;
  best: BestHour;
}

const UNIT_WORDS: Record<Units, string> = { metric: "metres", imperial: "feet" };

/** A wave height given in `units`, in metres, within the bound (said in the unit it was given in). */
function waveBound(value: number, field: "minWave" | "maxWave", units: Units): number {
  const metres = units === "metric" ? value : metersOfFeet(value);
  if (!Number.isFinite(value) || value < 0 || metres > MAX_WAVE_M) throw new RuleError("out_of_range", `must be a number of ${UNIT_WORDS[units]} from 0 to ${waveIn(MAX_WAVE_M, units)}`, field);
  return metres;
}

/** A wave height stored in metres, in `units` as a condition shows it. */
const waveIn = (metres: number, units: Units) => (units === "metric" ? metres : feet(metres));

/** The condition a request describes, once it passes the rules (each refusal names its field). */
export function parseCondition(input: ConditionInput): AlertCondition {
  const units = input.units ?? "metric";
  if (!(UNITS as readonly string[]).includes(units)) throw new RuleError("not_one_of", `must be ${UNITS.join(" or ")}, got "${units}"`, "units");
  const inUnits = units as Units;
  const condition: AlertCondition = { minWave: waveBound(input.minWave ?? 0, "minWave", inUnits), daylight: input.daylight ?? false };
  if (input.maxWave !== undefined) {
    condition.maxWave = waveBound(input.maxWave, "maxWave", inUnits);
    if (condition.maxWave < condition.minWave) throw new RuleError("out_of_range", `must be at least the minimum wave height (${waveIn(condition.minWave, inUnits)} ${UNIT_LABELS[inUnits].height})`, "maxWave");
  }
  if (input.minRating !== undefined || input.level !== undefined) {
    if (input.minRating === undefined) throw new RuleError("required", "goes with a level: give both or neither", "minRating");
    if (input.level === undefined) throw new RuleError("required", "goes with a minimum rating: give both or neither", "level");
    if (!Number.isInteger(input.minRating) || input.minRating < 1 || input.minRating > 5) throw new RuleError("out_of_range", "must be an integer from 1 to 5", "minRating");
    if (!(LEVELS as readonly string[]).includes(input.level)) throw new RuleError("not_one_of", `must be ${LEVELS.join(", ")}, got "${input.level}"`, "level");
    condition.rating = { min: input.minRating, level: input.level as Level };
  }
  if (input.wind !== undefined) {
    const wind = input.wind.map((w) => w.trim().toLowerCase());
    const unknown = wind.find((w) => !(WIND_TYPES as readonly string[]).includes(w));
    if (wind.length === 0 || unknown !== undefined) throw new RuleError("not_one_of", `must be one or more of ${WIND_TYPES.join(", ")}${unknown === undefined ? "" : `, got "${unknown}"`}`, "wind");
    // Stored in one order, each once: two alerts allowing the same winds look the same.
    condition.wind = WIND_TYPES.filter((w) => wind.includes(w));
  }
  if (input.minConfidence !== undefined) {
    if (!(CONFIDENCE_LEVELS as readonly string[]).includes(input.minConfidence)) throw new RuleError("not_one_of", `must be ${CONFIDENCE_LEVELS.join(", ")}, got "${input.minConfidence}"`, "minConfidence");
    condition.minConfidence = input.minConfidence as ConfidenceLevel;
  }
  // Metric conditions are stored as they always were; a unit is recorded only when it is not the default.
  if (inUnits !== "metric") condition.units = inUnits;
  return condition;
}


/** Whether one hour meets the condition; `lit` tells whether the hour is in daylight (asked only when it matters). */
export function hourMatches(condition: AlertCondition, hour: ForecastHour, lit: () => boolean): boolean {
  if (hour.waveHeight < condition.minWave) return false;
  if (condition.maxWave !== undefined && hour.waveHeight > condition.maxWave) return false;
  if (condition.rating && hour.rating[condition.rating.level] < condition.rating.min) return false;
  if (condition.wind && (hour.windDirectionType === null || !condition.wind.includes(hour.windDirectionType))) return false;
  if (condition.minConfidence && confidenceScore(hour.confidence?.level) < CONFIDENCE_SCORE[condition.minConfidence]) return false;
  return !condition.daylight || lit();
}

/** The level a window's best hour is chosen by: the alert's own, else intermediate. */
export const levelOf = (condition: AlertCondition): Level => condition.rating?.level ?? "intermediate";

function bestHourOf(hour: ForecastHour, level: Level): BestHour {
  return { time: hour.time, waveHeight: hour.waveHeight, wavePeriod: hour.wavePeriod, windSpeed: hour.windSpeed, windDirectionType: hour.windDirectionType, rating: hour.rating[level] };
}

/** Whether `a` is a better hour than `b`: a higher rating for the level, then a bigger wave; the earlier one on a tie. */
const better = (a: ForecastHour, b: ForecastHour, level: Level) => a.rating[level] > b.rating[level] || (a.rating[level] === b.rating[level] && a.waveHeight > b.waveHeight);

/**
 * The windows of matching hours that have not ended at `from` (epoch ms), in time order. Hours are consecutive when
 * one hour apart; a gap in the document (a dropped hour) ends a window. `hours` are sorted by time, as documents hold them.
 */
export function findWindows(condition: AlertCondition, hours: readonly ForecastHour[], daily: readonly Pick<DailyWeather, "sunrise" | "sunset">[], from: number): AlertWindow[] {
  const days = daily.map(daylightOf).filter((light): light is [number, number] => light !== null);
  const level = levelOf(condition);
  const windows: AlertWindow[] = [];
  let run: { start: number; last: number; best: ForecastHour } | null = null;
  const close = () => {
    if (run) windows.push({ start: isoUtc(run.start), end: isoUtc(run.last + HOUR_MS), best: bestHourOf(run.best, level) });
    run = null;
  };
  for (const hour of hours) {
    const time = Date.parse(hour.time);
    if (time + HOUR_MS <= from) continue;
    if (!hourMatches(condition, hour, () => days.some((light) => inDaylight(time, light)))) {
      close();
      continue;
    }
    if (run && time === run.last + HOUR_MS) {
      run.last = time;
      if (better(hour, run.best, level)) run.best = hour;
    } else {
      close();
      run = { start: time, last: time, best: hour };
    }
  }
  close();
  return windows;
}

/** The part of a window the fire-once rule compares: start and end, ISO UTC. */
export interface Span {
  start: string;
  end: string;
}

/** Whether two spans share any time (ends are exclusive: one ending when the other starts does not overlap). */
export const overlaps = (a: Span, b: Span) => Date.parse(a.start) < Date.parse(b.end) && Date.parse(b.start) < Date.parse(a.end);

/**
 * The fire-once rule. `announced` are the windows of the alert's last evaluation (each sent, or the continuation of
 * one that was); `found` the windows now. A window fires when it overlaps none of them (the same start overlaps). Then
 * every window found now is what the next evaluation compares with: a window seen again — grown, shrunk or drifted,
 * as long as it overlaps what was there — sends nothing, and a window that disappeared is forgotten, so when it comes
 * back it is new.
 */
export function fireOnce<W extends Span>(announced: readonly Span[], found: readonly W[]): { fire: W[]; remember: Span[] } {
  return {
    fire: found.filter((w) => !announced.some((a) => overlaps(a, w))),
    remember: found.map((w) => ({ start: w.start, end: w.end })),
  };
}

/** A condition in a few words, in the unit it was made in, as listings show it: `wave ≥ 1.5 m, wind offshore or cross, daylight`. */
export function describeCondition(c: AlertCondition): string {
  const units = c.units ?? "metric";
  const [min, unit] = [waveIn(c.minWave, units), UNIT_LABELS[units].height];
  const parts = [c.maxWave === undefined ? `wave ≥ ${min} ${unit}` : `wave ${min}–${waveIn(c.maxWave, units)} ${unit}`];
  if (c.rating) parts.push(`${c.rating.level} rating ≥ ${c.rating.min}`);
  if (c.wind) parts.push(`wind ${c.wind.join(" or ")}`);
  if (c.daylight) parts.push("daylight");
  if (c.minConfidence) parts.push(`confidence ≥ ${c.minConfidence}`);
  return parts.join(", ");
}
