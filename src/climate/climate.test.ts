import { describe, expect, test } from "bun:test";
import { DAY_MS, HOUR_MS } from "../core/clock";
import { rateHour } from "../forecast/rating";
import { breakingSea } from "../forecast/surf";
import { bestMonths, cellCost, cellOf, climateYears, percentile, seaMonths, sectorOf, sharesOf, spotMonths, type CellHours } from "./climate";
import { packHours, unpackHours } from "./hours-codec";

describe("cellOf: the nearest 0.5° grid point", () => {
  test.each([
    [39.344, -9.363, "39.5,-9.5"],
    [39.24, -9.26, "39.0,-9.5"],
    [-8.815, 115.0867, "-9.0,115.0"],
    [0.2, -0.2, "0.0,0.0"],
    [10, 179.9, "10.0,-180.0"],
  ])("%p, %p → %p", (lat, lng, key) => expect(cellOf(lat, lng).key).toBe(key));
});

describe("climateYears: the last full years ERA5 covers", () => {
  test.each([
    ["2026-11-28T08:00:00Z", 10, { from: 2016, to: 2025 }],
    // Early January: last December is not in ERA5 yet.
    ["2026-01-03T00:00:00Z", 10, { from: 2015, to: 2024 }],
    ["2026-01-09T00:00:00Z", 10, { from: 2016, to: 2025 }],
    ["2026-06-01T00:00:00Z", 1, { from: 2025, to: 2025 }],
  ])("%p, %p years → %p", (now, count, years) => expect(climateYears(Date.parse(now), count)).toEqual(years));
});

test("cellCost: a year per request and API; the weight is max(1, variables / 10 × days / 14) each", () => {
  // 2016..2025: three leap years. Marine 3 variables, wind 2: 0.5 × days / 14 per year in all.
  expect(cellCost({ from: 2016, to: 2025 })).toEqual({ requests: 20, weight: Math.round(((0.5 * 3653) / 14) * 10) / 10 });
});

describe("percentile: linear between the closest ranks", () => {
  test.each([
    [[1, 2, 3, 4, 5], 50, 3],
    [[1, 2, 3, 4, 5], 10, 1.4],
    [[1, 2, 3, 4], 25, 1.75],
    [[7], 90, 7],
    [[0, 10], 90, 9],
  ])("%p p%p → %p", (values, p, expected) => expect(percentile(values, p)).toBeCloseTo(expected, 10));
});

describe("sharesOf: thousandths summing to exactly 1", () => {
  test.each([
    [[1, 1, 1], [0.334, 0.333, 0.333]],
    [[0, 0], [0, 0]],
    [[2, 0, 6], [0.25, 0, 0.75]],
    [[1, 1, 1, 1, 1, 1, 1], [0.143, 0.143, 0.143, 0.143, 0.143, 0.143, 0.142]],
  ])("%p → %p", (counts, shares) => {
    expect(sharesOf(counts)).toEqual(shares);
    if (counts.some((c) => c > 0)) expect(Math.round(sharesOf(counts).reduce((a, b) => a + b, 0) * 1000)).toBe(1000);
  });
});

test.each([
  [0, 0],
  [11.24, 0],
  [11.25, 1],
  [348.75, 0],
  [348.7, 15],
  [270, 12],
  [360, 0],
])("sectorOf(%p) → %p", (degrees, sector) => expect(sectorOf(degrees)).toBe(sector));

/** A year of hours from a function of the hour's instant. */
function yearOf(year: number, at: (ms: number) => { h: number | null; p: number; d: number; w: number; wd: number }): CellHours {
  const start = Date.UTC(year, 0, 1);
  const n = (Date.UTC(year + 1, 0, 1) - start) / HOUR_MS;
  const hours: CellHours = { start, waveHeight: [], wavePeriod: [], waveDirection: [], windSpeed: [], windDirection: [] };
  for (let i = 0; i < n; i++) {
    const v = at(start + i * HOUR_MS);
    hours.waveHeight.push(v.h);
    hours.wavePeriod.push(v.p);
    hours.waveDirection.push(v.d);
    hours.windSpeed.push(v.w);
    hours.windDirection.push(v.wd);
  }
  return hours;
}

/** Summer small, spring and autumn medium, winter big (the north's seasons), a west swell, light wind from the east. */
const seasonal = (ms: number) => {
  const month = new Date(ms).getUTCMonth() + 1;
  const base = [6, 7, 8].includes(month) ? 0.2 : [12, 1, 2].includes(month) ? 3 : 1;
  const wiggle = 1 + 0.05 * Math.sin(ms / HOUR_MS);
  return { h: Math.round(base * wiggle * 100) / 100, p: 11, d: 280, w: 4, wd: new Date(ms).getUTCHours() < 18 ? 90 : 270 };
};

describe("seaMonths: the cell's months", () => {
  test("percentiles, the median period and wind, the rose and its dominant sector", () => {
    const hours = yearOf(2025, seasonal);
    const months = seaMonths(hours)!;
    expect(months.map((m) => m.month)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const january = hours.waveHeight.slice(0, 31 * 24).map(Number).sort((a, b) => a - b);
    expect(months[0]!.waveHeight.p50).toBe(Math.round(percentile(january, 50) * 100) / 100);
    expect(months[0]!.waveHeight.p90).toBe(Math.round(percentile(january, 90) * 100) / 100);
    expect(months[6]!.waveHeight.p50).toBeCloseTo(0.2, 1);
    expect(months[3]!.wavePeriod.p50).toBe(11);
    expect(months[3]!.windSpeed.p50).toBe(4);
    // 280° lies in the west sector (270° ± 11.25°).
    expect(months[3]!.waveDirection.dominant).toBe(270);
    expect(months[3]!.waveDirection.rose[12]).toBe(1);
    expect(months[3]!.waveDirection.rose).toHaveLength(16);
  });

  test("a month without any wave height: no climate (no sea here)", () => {
    expect(seaMonths(yearOf(2025, (ms) => ({ ...seasonal(ms), h: new Date(ms).getUTCMonth() === 4 ? null : 1 })))).toBeNull();
  });
});

describe("spotMonths and bestMonths: the spot's own months", () => {
  const supertubos = { lat: 39.344, lng: -9.363, facing: 280 };

  test("the forecast's rating decides: small summer for beginners, medium seasons for intermediates, big ones for advanced", () => {
    const months = spotMonths(yearOf(2025, seasonal), supertubos);
    expect(months[6]!.goodDays).toEqual({ beginner: 1, intermediate: 0, advanced: 0 });
    expect(months[3]!.goodDays).toEqual({ beginner: 0, intermediate: 1, advanced: 1 });
    expect(months[0]!.goodDays).toEqual({ beginner: 0, intermediate: 0, advanced: 1 });
    expect(bestMonths(months)).toEqual({ beginner: [6, 7, 8], intermediate: [3, 4, 5, 9, 10, 11], advanced: [1, 2, 3, 4, 5, 9, 10, 11, 12] });
    // The same rating the forecast gives such an hour.
    const july = rateHour({ swellHeight: 0.2, wavePeriod: 11, waveDirection: 280, windSpeed: 4, windGust: 4, windDirection: 90, facing: 280, breaking: breakingSea([{ kind: "primary", height: 0.2, period: 11, direction: 280 }], 280) });
    expect(july).toEqual({ beginner: 5, intermediate: 2, advanced: 1 });
  });

  test("offshore share: the east wind until 18:00 UTC at a west-facing beach; null without a facing", () => {
    const hours = yearOf(2025, seasonal);
    expect(spotMonths(hours, supertubos).map((m) => m.offshoreShare)).toEqual(new Array(12).fill(0.75));
    expect(spotMonths(hours, { ...supertubos, facing: null })[0]!.offshoreShare).toBeNull();
  });

  test("a day needs two good daylight hours: one good hour a day is no good day", () => {
    // Rideable for beginners at 12:00 UTC only; flat otherwise.
    const hours = yearOf(2025, (ms) => ({ ...seasonal(ms), h: new Date(ms).getUTCHours() === 12 ? 0.2 : 0.01 }));
    expect(spotMonths(hours, supertubos)[6]!.goodDays.beginner).toBe(0);
    const two = yearOf(2025, (ms) => ({ ...seasonal(ms), h: [12, 13].includes(new Date(ms).getUTCHours()) ? 0.2 : 0.01 }));
    expect(spotMonths(two, supertubos)[6]!.goodDays.beginner).toBe(1);
  });

  test("good hours at night do not count", () => {
    const hours = yearOf(2025, (ms) => ({ ...seasonal(ms), h: [0, 1, 2, 3].includes(new Date(ms).getUTCHours()) ? 0.2 : 0.01 }));
    expect(spotMonths(hours, supertubos)[6]!.goodDays.beginner).toBe(0);
  });

  test("bestMonths: within 80 % of the best month; none when no day is good", () => {
    const months = [0.5, 0.41, 0.39, 0, 0, 0, 0, 0, 0, 0, 0, 0.4].map((share, i) => ({ month: i + 1, goodDays: { beginner: share, intermediate: 0, advanced: 0.1 } }));
    expect(bestMonths(months)).toEqual({ beginner: [1, 2, 12], intermediate: [], advanced: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] });
  });
});

test("the stored hours read back as the upstream wrote them", () => {
  const hours = yearOf(2024, (ms) => ({ h: ms % (7 * DAY_MS) === 0 ? null : 1.23, p: 9.87, d: 359, w: 27.4, wd: 3 }));
  const back = unpackHours(hours.start, packHours(hours));
  expect(back).toEqual(hours);
});
