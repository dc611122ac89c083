import type { ForecastHour } from "../forecast/types";
import { describe, expect, test } from "bun:test";
import { RuleError, type RuleField } from "../core/errors";
import { describeCondition, findWindows, fireOnce, hourMatches, parseCondition, type AlertCondition, type ConditionInput, type Span } from "./condition";

const T0 = Date.parse("2026-11-26T00:00:00Z");
const H = 3_600_000;
const iso = (hour: number) => new Date(T0 + hour * H).toISOString().slice(0, 19) + "Z";

/** An hour `h` hours after midnight UTC on the test day; fields default to a plain 1 m, 10 s, offshore, all-3 hour. */
/** How far the models agree, as the refresh stores it. */
const agreement = (level: "low" | "high") => ({ level, models: 3, waveHeight: { min: 1, median: 1, max: 1 } });

function hour(h: number, fields: Partial<ForecastHour> = {}): ForecastHour {
  return {
    time: iso(h),
    waveHeight: 1,
    swellHeight: 1,
    wavePeriod: 10,
    waveDirection: 270,
    windSpeed: 10,
    windDirection: 90,
    windGust: 15,
    windDirectionType: "offshore",
    airTemperature: 15,
    waterTemperature: 15,
    weatherCode: 0,
    tide: null,
    rating: { beginner: 3, intermediate: 3, advanced: 3 },
    ...fields,
  };
}

const cond = (fields: Partial<AlertCondition> = {}): AlertCondition => ({ minWave: 0, daylight: false, ...fields });
const DAY = [{ sunrise: iso(7), sunset: iso(17) }];

describe("parseCondition", () => {
  const ok: [string, ConditionInput, AlertCondition][] = [
    ["nothing given: any hour", {}, { minWave: 0, daylight: false }],
    ["waves and daylight", { minWave: 1.5, maxWave: 3, daylight: true }, { minWave: 1.5, maxWave: 3, daylight: true }],
    ["rating with its level", { minRating: 4, level: "advanced" }, { minWave: 0, daylight: false, rating: { min: 4, level: "advanced" } }],
    ["wind types in one order, each once", { wind: ["Cross", "offshore", "cross"] }, { minWave: 0, daylight: false, wind: ["offshore", "cross"] }],
    ["confidence", { minConfidence: "high" }, { minWave: 0, daylight: false, minConfidence: "high" }],
    ["max equal to min", { minWave: 2, maxWave: 2 }, { minWave: 2, maxWave: 2, daylight: false }],
    ["feet: stored in metres, the unit kept", { minWave: 4, maxWave: 10, units: "imperial" }, { minWave: 1.2192, maxWave: 3.048, daylight: false, units: "imperial" }],
    ["metric said: stored as without units", { minWave: 1.5, units: "metric" }, { minWave: 1.5, daylight: false }],
  ];
  for (const [name, input, expected] of ok) test(name, () => expect(parseCondition(input)).toEqual(expected));

  const refused: [string, ConditionInput, RuleField, string][] = [
    ["negative wave", { minWave: -1 }, "minWave", "must be a number of metres from 0 to 30"],
    ["not a number", { minWave: Number.NaN }, "minWave", "must be a number of metres from 0 to 30"],
    ["max below min", { minWave: 2, maxWave: 1 }, "maxWave", "must be at least the minimum wave height (2 m)"],
    ["feet above the bound", { minWave: 99, units: "imperial" }, "minWave", "must be a number of feet from 0 to 98.43"],
    ["max below min in feet", { minWave: 4, maxWave: 3, units: "imperial" }, "maxWave", "must be at least the minimum wave height (4 ft)"],
    ["unknown units", { minWave: 4, units: "furlongs" }, "units", 'must be metric or imperial, got "furlongs"'],
    ["rating without level", { minRating: 3 }, "level", "goes with a minimum rating: give both or neither"],
    ["level without rating", { level: "beginner" }, "minRating", "goes with a level: give both or neither"],
    ["rating out of range", { minRating: 6, level: "beginner" }, "minRating", "must be an integer from 1 to 5"],
    ["rating not whole", { minRating: 2.5, level: "beginner" }, "minRating", "must be an integer from 1 to 5"],
    ["unknown level", { minRating: 3, level: "pro" }, "level", 'must be beginner, intermediate, advanced, got "pro"'],
    ["unknown wind", { wind: ["offshore", "side"] }, "wind", 'must be one or more of offshore, cross, onshore, got "side"'],
    ["no wind at all", { wind: [] }, "wind", "must be one or more of offshore, cross, onshore"],
    ["unknown confidence", { minConfidence: "certain" }, "minConfidence", 'must be low, medium, high, got "certain"'],
  ];
  for (const [name, input, field, rest] of refused) {
    test(`refuses: ${name}`, () => {
      let caught: unknown;
      try {
        parseCondition(input);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(RuleError);
      expect({ field: (caught as RuleError).field, rest: (caught as RuleError).rest }).toEqual({ field, rest });
    });
  }
});

describe("hourMatches", () => {
  const lit = () => true;
  const dark = () => false;
  const rows: [string, AlertCondition, ForecastHour, () => boolean, boolean][] = [
    ["min wave met exactly", cond({ minWave: 1 }), hour(10), lit, true],
    ["min wave missed", cond({ minWave: 1.1 }), hour(10), lit, false],
    ["max wave exceeded", cond({ maxWave: 0.9 }), hour(10), lit, false],
    ["rating for its level", cond({ rating: { min: 4, level: "advanced" } }), hour(10, { rating: { beginner: 1, intermediate: 2, advanced: 4 } }), lit, true],
    ["rating of another level does not count", cond({ rating: { min: 4, level: "beginner" } }), hour(10, { rating: { beginner: 1, intermediate: 2, advanced: 4 } }), lit, false],
    ["wind allowed", cond({ wind: ["offshore", "cross"] }), hour(10, { windDirectionType: "cross" }), lit, true],
    ["wind not allowed", cond({ wind: ["offshore"] }), hour(10, { windDirectionType: "onshore" }), lit, false],
    ["unknown wind with a wind filter", cond({ wind: ["offshore", "cross", "onshore"] }), hour(10, { windDirectionType: null }), lit, false],
    ["unknown wind without one", cond(), hour(10, { windDirectionType: null }), lit, true],
    ["night with daylight only", cond({ daylight: true }), hour(2), dark, false],
    ["night without daylight only", cond(), hour(2), dark, true],
    ["no confidence counts as medium: medium asked", cond({ minConfidence: "medium" }), hour(10), lit, true],
    ["no confidence counts as medium: high asked", cond({ minConfidence: "high" }), hour(10), lit, false],
    ["low confidence, medium asked", cond({ minConfidence: "medium" }), hour(10, { confidence: agreement("low") }), lit, false],
    ["high confidence, high asked", cond({ minConfidence: "high" }), hour(10, { confidence: agreement("high") }), lit, true],
  ];
  for (const [name, condition, h, light, expected] of rows) test(name, () => expect(hourMatches(condition, h, light)).toBe(expected));
});

describe("findWindows", () => {
  const day = (heights: number[], fields: (h: number) => Partial<ForecastHour> = () => ({})) => heights.map((waveHeight, h) => hour(h, { waveHeight, ...fields(h) }));

  test("consecutive matching hours form one window; its end is exclusive", () => {
    const hours = day([0, 0, 2, 2, 2, 0, 2]);
    expect(findWindows(cond({ minWave: 1.5 }), hours, DAY, T0).map((w) => [w.start, w.end])).toEqual([
      [iso(2), iso(5)],
      [iso(6), iso(7)],
    ]);
  });

  test("a gap in the document ends a window", () => {
    const hours = [hour(1), hour(2), hour(4), hour(5)];
    expect(findWindows(cond(), hours, DAY, T0).map((w) => [w.start, w.end])).toEqual([
      [iso(1), iso(3)],
      [iso(4), iso(6)],
    ]);
  });

  test("daylight only: between the day's sunrise and sunset", () => {
    const hours = day(Array<number>(24).fill(1));
    expect(findWindows(cond({ daylight: true }), hours, DAY, T0).map((w) => [w.start, w.end])).toEqual([[iso(7), iso(17)]]);
    // A day without sunrise or sunset (polar night) has no daylight hours.
    expect(findWindows(cond({ daylight: true }), hours, [{ sunrise: null, sunset: null }], T0)).toEqual([]);
  });

  test("hours over by `from` are left out; the hour holding it stays", () => {
    const hours = day([1, 1, 1, 1]);
    expect(findWindows(cond(), hours, DAY, T0 + 2 * H + 60_000).map((w) => [w.start, w.end])).toEqual([[iso(2), iso(4)]]);
  });

  test("the best hour: highest rating for the alert's level, then the bigger wave, then the earlier", () => {
    const ratings = [2, 4, 4, 4, 3];
    const heights = [3, 1, 1.5, 1.5, 2];
    const hours = ratings.map((r, h) => hour(h, { waveHeight: heights[h]!, rating: { beginner: 5 - r, intermediate: r, advanced: 1 }, windSpeed: 10 + h }));
    const [window] = findWindows(cond(), hours, DAY, T0);
    expect(window!.best).toEqual({ time: iso(2), waveHeight: 1.5, wavePeriod: 10, windSpeed: 12, windDirectionType: "offshore", rating: 4 });
    const [forBeginners] = findWindows(cond({ rating: { min: 1, level: "beginner" } }), hours, DAY, T0);
    expect(forBeginners!.best).toMatchObject({ time: iso(0), rating: 3 });
  });

  test("nothing matches: no window", () => {
    expect(findWindows(cond({ minWave: 5 }), day([1, 2, 3]), DAY, T0)).toEqual([]);
  });
});

describe("fireOnce", () => {
  const span = (from: number, to: number): Span => ({ start: iso(from), end: iso(to) });
  const rows: [string, Span[], Span[], Span[]][] = [
    ["first sight fires", [], [span(8, 12)], [span(8, 12)]],
    ["the same window again sends nothing", [span(8, 12)], [span(8, 12)], []],
    ["the same start, grown, sends nothing", [span(8, 12)], [span(8, 15)], []],
    ["a new start overlapping what was sent sends nothing", [span(8, 12)], [span(10, 14)], []],
    ["a window touching the end of a sent one is new", [span(8, 12)], [span(12, 14)], [span(12, 14)]],
    ["only the new of several fires", [span(8, 12)], [span(9, 11), span(20, 22)], [span(20, 22)]],
    ["two sent windows merged into one send nothing", [span(8, 10), span(11, 13)], [span(8, 13)], []],
  ];
  for (const [name, announced, found, fired] of rows) test(name, () => expect(fireOnce(announced, found).fire).toEqual(fired));

  test("what is remembered is what was found now: a window that disappears and comes back is new", () => {
    const first = fireOnce([], [span(8, 12)]);
    const gone = fireOnce(first.remember, []);
    expect(gone).toEqual({ fire: [], remember: [] });
    expect(fireOnce(gone.remember, [span(8, 12)]).fire).toEqual([span(8, 12)]);
  });

  test("a window drifting a little at each refresh stays the same window", () => {
    let remembered: Span[] = [];
    const fired: Span[] = [];
    for (const seen of [span(8, 12), span(10, 14), span(13, 17), span(16, 19)]) {
      const step = fireOnce(remembered, [seen]);
      fired.push(...step.fire);
      remembered = step.remember;
    }
    expect(fired).toEqual([span(8, 12)]);
  });
});

describe("describeCondition", () => {
  test("names every filter given, nothing else", () => {
    expect(describeCondition(cond({ minWave: 1.5 }))).toBe("wave ≥ 1.5 m");
    expect(describeCondition({ minWave: 1, maxWave: 2.5, rating: { min: 4, level: "advanced" }, wind: ["offshore", "cross"], daylight: true, minConfidence: "high" })).toBe(
      "wave 1–2.5 m, advanced rating ≥ 4, wind offshore or cross, daylight, confidence ≥ high",
    );
  });

  test("in the unit it was made in: feet given come back as the same feet", () => {
    for (const ft of [1, 2.5, 3, 4, 6.5, 10, 15, 33]) expect(describeCondition(parseCondition({ minWave: ft, units: "imperial" }))).toBe(`wave ≥ ${ft} ft`);
    expect(describeCondition(parseCondition({ minWave: 3, maxWave: 8, units: "imperial" }))).toBe("wave 3–8 ft");
  });

  test("a condition made in feet matches the same hours as its metric twin", () => {
    const hours = [0.9, 1.2, 1.2192, 1.22, 1.5, 3.04, 3.048, 3.06].map((waveHeight, i) => hour(i, { waveHeight }));
    const matching = (c: AlertCondition) => hours.filter((h) => hourMatches(c, h, () => true)).map((h) => h.time);
    const feet = parseCondition({ minWave: 4, maxWave: 10, units: "imperial" });
    const metric = parseCondition({ minWave: 4 * 0.3048, maxWave: 10 * 0.3048 });
    expect(matching(feet)).toEqual(matching(metric));
    expect(matching(feet)).toEqual([iso(2), iso(3), iso(4), iso(5), iso(6)]);
  });
});
