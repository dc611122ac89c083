/**
 * A spot's climate from a decade of ERA5 hours: pure functions, table-tested in climate.test.ts. The rules (the
 * cell, the years, the percentiles, the rose, good days and best months) are told in docs/climate.md.
 */
import { DAY_MS, HOUR_MS } from "../core/clock";
import { inDaylight, LEVELS } from "../forecast/best";
import { rateHour, windDirectionType } from "../forecast/rating";
import { sunTimes } from "../forecast/sun";
import { breakingSea } from "../forecast/surf";
import type { Level } from "../forecast/types";

/** ERA5-Ocean's grid step, degrees. */
export const CELL_DEGREES = 0.5;

/** The ERA5-Ocean grid point nearest a position, and its key: every spot near the same point shares one climate. */
export function cellOf(lat: number, lng: number): { key: string; lat: number; lng: number } {
  const snap = (x: number) => Math.round(x / CELL_DEGREES) * CELL_DEGREES + 0;
  const cellLat = Math.min(90, Math.max(-90, snap(lat)));
  // -180 and 180 are one meridian.
  const cellLng = snap(lng) === 180 ? -180 : snap(lng);
  return { key: `${cellLat.toFixed(1)},${cellLng.toFixed(1)}`, lat: cellLat, lng: cellLng };
}

/** ERA5 reaches the present about five days late: a year counts as complete once its last day is this far behind. */
export const ERA5_LAG_MS = 7 * DAY_MS;

export interface Years {
  from: number;
  to: number;
}

/** The last `count` full years that ERA5 covers at `now`. */
export function climateYears(now: number, count: number): Years {
  const to = new Date(now - ERA5_LAG_MS).getUTCFullYear() - 1;
  return { from: to - count + 1, to };
}

export const sameYears = (a: Years, b: Years) => a.from === b.from && a.to === b.to;

/** What the climate asks each upstream for, hourly: the total sea (ERA5-Ocean has no swell partitions) and the wind. */
export const MARINE_VARIABLES = ["wave_height", "wave_direction", "wave_period"] as const;
export const WIND_VARIABLES = ["wind_speed_10m", "wind_direction_10m"] as const;

/** One request's dates, inclusive, `YYYY-MM-DD`. */
export interface DateRange {
  year: number;
  start: string;
  end: string;
}

/**
 * A calendar year per request and upstream: each answer is one year's 8,760 (or 8,784) hours, about 250 KB of JSON,
 * and weighs under 8 of the free tier's 600 a minute, so a failure costs one year again, not the decade.
 */
export function yearRanges(years: Years): DateRange[] {
  const out: DateRange[] = [];
  for (let year = years.from; year <= years.to; year++) out.push({ year, start: `${year}-01-01`, end: `${year}-12-31` });
  return out;
}

export const daysOf = (year: number) => (Date.UTC(year + 1, 0, 1) - Date.UTC(year, 0, 1)) / DAY_MS;

/** Open-Meteo's call weight of one location: max(1, variables / 10 × days / 14) (../shared/data/open-meteo/README.md). */
export const requestWeight = (variables: number, days: number) => Math.max(1, (variables / 10) * (days / 14));

/** What one cell's climate costs upstream: requests and call weight over both APIs. */
export function cellCost(years: Years): { requests: number; weight: number } {
  const ranges = yearRanges(years);
  const weight = ranges.reduce((sum, r) => sum + requestWeight(MARINE_VARIABLES.length, daysOf(r.year)) + requestWeight(WIND_VARIABLES.length, daysOf(r.year)), 0);
  return { requests: 2 * ranges.length, weight: Math.round(weight * 10) / 10 };
}

/** A cell's hours, one value per hour from `start` (epoch ms, 00:00 UTC of the first year's 1 January); null where missing. */
export interface CellHours {
  start: number;
  waveHeight: (number | null)[];
  wavePeriod: (number | null)[];
  waveDirection: (number | null)[];
  windSpeed: (number | null)[];
  windDirection: (number | null)[];
}

export const HOUR_FIELDS = ["waveHeight", "wavePeriod", "waveDirection", "windSpeed", "windDirection"] as const satisfies readonly (keyof CellHours)[];

/** The `p`-th percentile (0..100) of ascending values, linearly interpolated between the closest ranks (NumPy's default). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = (p / 100) * (sorted.length - 1);
  const below = Math.floor(rank);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below]! + (rank - below) * (sorted[above]! - sorted[below]!);
}

const round = (value: number, decimals: number) => {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
};

/** Shares in thousandths that sum to exactly 1: each count's share rounded down, the thousandths left over going to the largest remainders. */
export function sharesOf(counts: readonly number[]): number[] {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return counts.map(() => 0);
  const exact = counts.map((c) => (c * 1000) / total);
  const floors = exact.map(Math.floor);
  let left = 1000 - floors.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, rest: e - floors[i]! })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order) {
    if (left-- <= 0) break;
    floors[i]!++;
  }
  return floors.map((f) => f / 1000);
}

export const ROSE_SECTORS = 16;
const SECTOR = 360 / ROSE_SECTORS;

/** The rose's sector (0 = N, clockwise) of a direction the sea comes from; each sector is centred on its bearing. */
export const sectorOf = (degrees: number) => Math.floor((((degrees % 360) + 360 + SECTOR / 2) % 360) / SECTOR);

/** The cell's month as the sea and the wind make it, the same for every spot in the cell. */
export interface SeaMonth {
  month: number;
  waveHeight: { p10: number; p25: number; p50: number; p75: number; p90: number };
  wavePeriod: { p50: number };
  waveDirection: { dominant: number; rose: number[] };
  windSpeed: { p50: number };
}

const monthOf = (ms: number) => new Date(ms).getUTCMonth();

/** Each hour's month (0..11), walking the month boundaries: a date per hour would be most of the work. */
function monthsOfHours(hours: CellHours): Uint8Array {
  const count = hours.waveHeight.length;
  const months = new Uint8Array(count);
  const first = new Date(hours.start);
  for (let year = first.getUTCFullYear(), month = first.getUTCMonth(), i = 0; i < count; month = (month + 1) % 12, year += month === 0 ? 1 : 0) {
    const end = Math.min(count, Math.ceil((Date.UTC(year, month + 1, 1) - hours.start) / HOUR_MS));
    months.fill(month, i, end);
    i = end;
  }
  return months;
}

/** Twelve months of the cell's hours, January first; null when some month has no wave height at all. */
export function seaMonths(hours: CellHours): SeaMonth[] | null {
  const heights: number[][] = Array.from({ length: 12 }, () => []);
  const periods: number[][] = Array.from({ length: 12 }, () => []);
  const winds: number[][] = Array.from({ length: 12 }, () => []);
  const roses: number[][] = Array.from({ length: 12 }, () => new Array<number>(ROSE_SECTORS).fill(0));
  const monthOfHour = monthsOfHours(hours);
  hours.waveHeight.forEach((height, i) => {
    const m = monthOfHour[i]!;
    if (height !== null) heights[m]!.push(height);
    const period = hours.wavePeriod[i];
    if (period != null) periods[m]!.push(period);
    const wind = hours.windSpeed[i];
    if (wind != null) winds[m]!.push(wind);
    const direction = hours.waveDirection[i];
    if (direction != null) roses[m]![sectorOf(direction)]!++;
  });
  if (heights.some((h) => h.length === 0)) return null;
  const ascending = (values: number[]) => values.sort((a, b) => a - b);
  return heights.map((h, m) => {
    const height = ascending(h);
    const at = (p: number) => round(percentile(height, p), 2);
    const rose = sharesOf(roses[m]!);
    return {
      month: m + 1,
      waveHeight: { p10: at(10), p25: at(25), p50: at(50), p75: at(75), p90: at(90) },
      wavePeriod: { p50: round(percentile(ascending(periods[m]!), 50), 2) },
      waveDirection: { dominant: rose.indexOf(Math.max(...rose)) * SECTOR, rose },
      windSpeed: { p50: round(percentile(ascending(winds[m]!), 50), 1) },
    };
  });
}

export type GoodDays = Record<Level, number>;

/** The spot's own month: its offshore wind and its good days. */
export interface SpotMonth {
  month: number;
  /** Share of the month's hours with the wind offshore at the spot; null without a facing. */
  offshoreShare: number | null;
  goodDays: GoodDays;
}

export interface ClimateSpot {
  lat: number;
  lng: number;
  facing: number | null;
}

/** An hour's ratings from the total sea and the wind, as the forecast rates an hour of a model without swell partitions. */
function rateAt(hours: CellHours, i: number, facing: number | null) {
  const height = hours.waveHeight[i];
  const period = hours.wavePeriod[i];
  const direction = hours.waveDirection[i];
  const wind = hours.windSpeed[i];
  const windFrom = hours.windDirection[i];
  if (height == null || period == null || direction == null || wind == null || windFrom == null) return null;
  return rateHour({
    swellHeight: height,
    wavePeriod: period,
    waveDirection: direction,
    windSpeed: wind,
    // ERA5's hourly wind comes without gusts here: the mean wind stands for them.
    windGust: wind,
    windDirection: windFrom,
    facing,
    breaking: breakingSea([{ kind: "primary", height, period, direction }], facing),
  });
}

/** A day is good for a level with at least this many daylight hours rated 3 or more. */
export const GOOD_HOURS = 2;
export const GOOD_RATING = 3;

/**
 * Per month, the share of the spot's days that are good for each level, and the share of hours with offshore wind.
 * A day is the UTC date's daylight at the spot (sunrise to sunset, an hour counting when its middle is in it); days
 * without a sunrise or sunset (polar day or night) or without a rated daylight hour are left out.
 */
export function spotMonths(hours: CellHours, spot: ClimateSpot): SpotMonth[] {
  const days = Array.from({ length: 12 }, () => 0);
  const good = Array.from({ length: 12 }, (): GoodDays => ({ beginner: 0, intermediate: 0, advanced: 0 }));
  const count = hours.waveHeight.length;
  const end = hours.start + count * HOUR_MS;
  for (let day = hours.start; day < end; day += DAY_MS) {
    const { sunrise, sunset } = sunTimes(spot.lat, spot.lng, day);
    if (sunrise === null || sunset === null) continue;
    const first = Math.max(0, Math.ceil((sunrise - HOUR_MS / 2 - hours.start) / HOUR_MS));
    const last = Math.min(count - 1, Math.floor((sunset - HOUR_MS / 2 - hours.start) / HOUR_MS));
    const rated: GoodDays = { beginner: 0, intermediate: 0, advanced: 0 };
    let any = false;
    for (let i = first; i <= last; i++) {
      if (!inDaylight(hours.start + i * HOUR_MS, [sunrise, sunset])) continue;
      const rating = rateAt(hours, i, spot.facing);
      if (!rating) continue;
      any = true;
      for (const level of LEVELS) if (rating[level] >= GOOD_RATING) rated[level]++;
    }
    if (!any) continue;
    const m = monthOf(day);
    days[m]!++;
    for (const level of LEVELS) if (rated[level] >= GOOD_HOURS) good[m]![level]++;
  }
  const offshore = offshoreShares(hours, spot.facing);
  return days.map((n, m) => ({
    month: m + 1,
    offshoreShare: offshore?.[m] ?? null,
    goodDays: { beginner: share(good[m]!.beginner, n), intermediate: share(good[m]!.intermediate, n), advanced: share(good[m]!.advanced, n) },
  }));
}

const share = (part: number, whole: number) => (whole === 0 ? 0 : round(part / whole, 3));

/** Per month, the share of hours whose wind blows offshore at a beach facing `facing`; null without a facing. */
function offshoreShares(hours: CellHours, facing: number | null): number[] | null {
  if (facing === null) return null;
  const offshore = Array.from({ length: 12 }, () => 0);
  const all = Array.from({ length: 12 }, () => 0);
  const monthOfHour = monthsOfHours(hours);
  hours.windDirection.forEach((from, i) => {
    if (from === null) return;
    const m = monthOfHour[i]!;
    all[m]!++;
    if (windDirectionType(from, facing) === "offshore") offshore[m]!++;
  });
  return all.map((n, m) => share(offshore[m]!, n));
}

/** A month is among a level's best when its good days are at least this share of the level's best month's. */
export const BEST_SHARE = 0.8;

/** Per level, the months (1..12, in calendar order) whose good days are within 80 % of the best; none when no day is good. */
export function bestMonths(months: readonly Pick<SpotMonth, "month" | "goodDays">[]): Record<Level, number[]> {
  const best = (level: Level) => {
    const top = Math.max(...months.map((m) => m.goodDays[level]));
    return top > 0 ? months.filter((m) => m.goodDays[level] >= BEST_SHARE * top).map((m) => m.month) : [];
  };
  return { beginner: best("beginner"), intermediate: best("intermediate"), advanced: best("advanced") };
}
