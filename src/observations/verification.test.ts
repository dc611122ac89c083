import { describe, expect, test } from "bun:test";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../core/clock";
import type { SpecRow } from "./ndbc";
import { mergeReadings, type Reading } from "./readings";
import { bestModel, fitCorrection, leadDayOf, pairUp, score, scoreByLeadDay, scoreModels, servedHeight, type LeadForecast, type ModelHours, type Pair } from "./verification";

const START = Date.parse("2026-10-01T00:00:00Z");

/** A deterministic noise in [-1, 1) (a linear congruential sequence), so every run measures the same. */
function noise(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return (state / 2 ** 30) - 1;
  };
}

/** The sea at hour i: a swell rising and falling over a day and a bit, around 1.5 m. */
const sea = (i: number) => 1.5 + 0.8 * Math.sin((2 * Math.PI * i) / 26) + 0.3 * Math.sin((2 * Math.PI * i) / 170);

/** A buoy reading at :50 before each hour (the wave row NDBC writes), its height rounded as the files write it. */
function buoyReadings(days: number, jitter = noise(7)): Reading[] {
  const rows: SpecRow[] = [];
  for (let i = 0; i < days * 24; i++) {
    const waveHeight = Math.round((sea(i) + 0.05 * jitter()) * 10) / 10;
    rows.push({ time: START + i * HOUR_MS - 10 * MINUTE_MS, waveHeight, swellHeight: null, swellPeriod: null, swellDirection: null, windWaveHeight: null, windWavePeriod: null, windWaveDirection: null, averagePeriod: null, waveDirection: null });
  }
  return mergeReadings([], rows.reverse());
}

/** Hourly model series: each model's height at hour i from `modelOf`. */
function modelHours(days: number, models: Record<string, (i: number) => number | null>): ModelHours {
  const time = Array.from({ length: days * 24 }, (_, i) => START + i * HOUR_MS);
  return { time, waveHeight: Object.fromEntries(Object.entries(models).map(([m, f]) => [m, time.map((_, i) => f(i))])) };
}

describe("the definitions", () => {
  test.each([
    ["a constant error", [[2, 1], [3, 2]], { n: 2, bias: 1, biasPercent: 66.7, rmse: 1, scatterIndex: 0 }],
    ["errors that cancel", [[1, 2], [3, 2]], { n: 2, bias: 0, biasPercent: 0, rmse: 1, scatterIndex: 0.5 }],
    ["a perfect model", [[1.2, 1.2], [0.8, 0.8]], { n: 2, bias: 0, biasPercent: 0, rmse: 0, scatterIndex: 0 }],
    ["nothing observed: no relative figures", [[0.5, 0]], { n: 1, bias: 0.5, biasPercent: null, rmse: 0.5, scatterIndex: null }],
    ["no pairs", [], { n: 0, bias: null, biasPercent: null, rmse: null, scatterIndex: null }],
  ])("%s", (_, couples, expected) => {
    expect(score(couples.map(([forecast, observed]) => ({ forecast: forecast!, observed: observed! })))).toEqual(expected);
  });

  test.each([
    [{ a: 1, b: 2, c: 4 }, {}, 2],
    [{ a: 1, b: 3 }, {}, 2],
    [{ a: 1, b: null, c: 3 }, {}, 2],
    [{ a: null }, {}, null],
    [{ a: 2, b: 4 }, { a: 0.5, b: 0.25 }, 1],
  ])("served of %j with ratios %j is %p", (models, ratios, expected) => {
    expect(servedHeight(models, ratios)).toBe(expected);
  });
});

describe("pairs", () => {
  test("each model hour beside the buoy reading nearest it within 30 minutes, inside the window only", () => {
    const readings = buoyReadings(2);
    const hours = modelHours(2, { a: () => 1 });
    const pairs = pairUp(readings, hours, START + 6 * HOUR_MS, START + DAY_MS);
    expect(pairs).toHaveLength(18);
    expect(pairs[0]).toEqual({ time: START + 6 * HOUR_MS, observed: readings.find((r) => r.time === START + 6 * HOUR_MS - 10 * MINUTE_MS)!.waveHeight!, models: { a: 1 } });
  });

  test("an hour without a reading near it has no pair", () => {
    const readings = buoyReadings(1).filter((r) => r.time !== START + 5 * HOUR_MS - 10 * MINUTE_MS);
    const pairs = pairUp(readings, modelHours(1, { a: () => 1 }), START, START + DAY_MS);
    expect(pairs.map((p) => p.time)).not.toContain(START + 5 * HOUR_MS);
    expect(pairs).toHaveLength(23);
  });
});

describe("a known bias is measured", () => {
  const jitter = noise(11);
  const readings = buoyReadings(30);
  const hours = modelHours(30, {
    high: (i) => Math.round(sea(i) * 1.2 * 100) / 100,
    low: (i) => Math.round(sea(i) * 0.9 * 100) / 100,
    noisy: (i) => Math.round((sea(i) + 0.25 * jitter()) * 100) / 100,
    // A model past its horizon half the time.
    gappy: (i) => (i % 48 < 24 ? sea(i) : null),
  });
  const pairs = pairUp(readings, hours, START, START + 30 * DAY_MS);
  const result = scoreModels(pairs, ["high", "low", "noisy", "gappy"]);
  const of = (model: string) => result.models.find((m) => m.model === model)!;

  test("a model 20 % high within a few percent, one 10 % low too", () => {
    expect(pairs).toHaveLength(30 * 24);
    expect(of("high").biasPercent!).toBeGreaterThan(18);
    expect(of("high").biasPercent!).toBeLessThan(22);
    expect(of("low").biasPercent!).toBeGreaterThan(-12);
    expect(of("low").biasPercent!).toBeLessThan(-8);
    expect(Math.abs(of("noisy").biasPercent!)).toBeLessThan(3);
  });

  test("the scatter index sees noise a scale does not remove, and the counts follow each model's hours", () => {
    expect(of("noisy").scatterIndex!).toBeGreaterThan(of("low").scatterIndex!);
    expect(of("gappy").n).toBe(15 * 24);
    expect(result.served.n).toBe(30 * 24);
  });

  test("best: the lowest scatter index among models with a week of pairs", () => {
    expect(bestModel(result.models)).toBe("gappy");
    expect(bestModel(result.models.filter((m) => m.model !== "gappy"))).toBe(of("low").scatterIndex! < of("high").scatterIndex! ? "low" : "high");
    const sixDays = scoreModels(pairs.slice(0, 6 * 24 + 23), ["high", "low"]);
    expect(bestModel(sixDays.models)).toBeNull();
    expect(bestModel(scoreModels(pairs.slice(0, 7 * 24), ["high"]).models)).toBe("high");
  });
});

describe("by lead day", () => {
  test.each([
    [0, 0, null],
    [0, HOUR_MS, 1],
    [0, DAY_MS, 1],
    [0, DAY_MS + HOUR_MS, 2],
    [0, 7 * DAY_MS, 7],
    [0, 7 * DAY_MS + HOUR_MS, null],
    [DAY_MS, 0, null],
  ])("issued %p for %p: lead day %p", (issuedAt, time, day) => {
    expect(leadDayOf(issuedAt, time)).toBe(day);
  });

  const readings = buoyReadings(10);
  /** A refresh each day at 00:00 issuing three days of `model` forecasts, off by `errorByDay` metres on lead day d. */
  const issued = (model: string, errorByDay: number[]): LeadForecast[] =>
    Array.from({ length: 7 }, (_, d) => START + d * DAY_MS).flatMap((issuedAt) =>
      Array.from({ length: 72 }, (_, h) => {
        const i = (issuedAt - START) / HOUR_MS + h + 1;
        return { model, issuedAt, time: START + i * HOUR_MS, waveHeight: sea(i) + errorByDay[Math.floor(h / 24)]! };
      }),
    );

  test("the error grows with the lead, as issued; days without forecasts are left out", () => {
    const days = scoreByLeadDay(readings, [...issued("a", [0.1, 0.2, 0.4]), ...issued("b", [0.1, 0.2, 0.4])], ["a", "b"], START, START + 10 * DAY_MS);
    expect(days.map((d) => d.day)).toEqual([1, 2, 3]);
    expect(days.map((d) => d.models[0]!.bias!)).toEqual([expect.closeTo(0.1, 1), expect.closeTo(0.2, 1), expect.closeTo(0.4, 1)]);
    expect(days[0]!.models[0]!.n).toBe(7 * 24);
    expect(days[2]!.served.bias!).toBeCloseTo(0.4, 1);
  });

  test("nothing issued yet: empty", () => {
    expect(scoreByLeadDay(readings, [], ["a"], START, START + 10 * DAY_MS)).toEqual([]);
  });
});

describe("the correction rule", () => {
  /** Pairs whose models read the sea × `scale(i)`. */
  const pairsOf = (days: number, scale: (i: number) => number): Pair[] => {
    const hours = modelHours(days, { a: (i) => sea(i) * scale(i) * 1.05, b: (i) => sea(i) * scale(i), c: (i) => sea(i) * scale(i) * 0.97 });
    return pairUp(buoyReadings(days), hours, START, START + days * DAY_MS);
  };

  test("every model 20 % high: the ratios bring them back, and lower the held-out RMSE", () => {
    const correction = fitCorrection(pairsOf(30, () => 1.2), ["a", "b", "c"], 12)!;
    expect(correction.applied).toBe(true);
    expect(correction.ratios.b!).toBeCloseTo(1 / 1.2, 1);
    expect(correction.ratios.a!).toBeLessThan(correction.ratios.c!);
    expect(correction.heldOutRmse.after).toBeLessThan(correction.heldOutRmse.before / 2);
  });

  test("a bias that turned in the newest third: the fitted ratios would do harm, so they are not applied", () => {
    const correction = fitCorrection(pairsOf(30, (i) => (i < 20 * 24 ? 1.2 : 0.9)), ["a", "b", "c"], 12)!;
    expect(correction.applied).toBe(false);
    expect(correction.heldOutRmse.after).toBeGreaterThan(correction.heldOutRmse.before);
  });

  test.each([
    ["a buoy farther than 50 km", 30, 51],
    ["fewer than 14 days of pairs", 13, 12],
  ])("none for %s", (_, days, distanceKm) => {
    expect(fitCorrection(pairsOf(days, () => 1.2), ["a", "b", "c"], distanceKm)).toBeNull();
  });
});
