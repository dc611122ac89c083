/** The rating model (docs/ratings.md): table tests on the documented scenarios, invariants and bad input. */
import { describe, expect, test } from "bun:test";
import { rateHour, breakingHeight, exposureFactor, type RatingInput } from "./rating";

/** A west-facing beach, swell straight in, calm. */
const base: RatingInput = {
  swellHeight: 1,
  wavePeriod: 10,
  waveDirection: 270,
  windSpeed: 0,
  windGust: 0,
  windDirection: 90,
  facing: 270,
};
const rate = (overrides: Partial<RatingInput>) => rateHour({ ...base, ...overrides });
const levels = (r: { beginner: number; intermediate: number; advanced: number }) => [r.beginner, r.intermediate, r.advanced];

describe("breaking height and exposure", () => {
  test("Komar & Gaughan: 1 m at 10 s breaks at about 1.55 m; longer period breaks bigger", () => {
    expect(breakingHeight(1, 10)).toBeCloseTo(1.548, 2);
    expect(breakingHeight(1, 16)).toBeGreaterThan(breakingHeight(1, 10));
    expect(breakingHeight(0, 10)).toBe(0);
  });

  test("exposure: 1 straight in, √cos θ at an angle, 0 from behind, 1 when the facing is unknown", () => {
    expect(exposureFactor(270, 270)).toBe(1);
    expect(exposureFactor(330, 270)).toBeCloseTo(Math.sqrt(0.5), 6);
    expect(exposureFactor(90, 270)).toBe(0);
    expect(exposureFactor(0, 270)).toBe(0); // exactly side-on
    expect(exposureFactor(90, null)).toBe(1);
  });
});

describe("rateHour scenarios (facing 270°)", () => {
  test.each([
    ["flat sea", { swellHeight: 0.1, wavePeriod: 5 }, [1, 1, 1]],
    ["no swell at all", { swellHeight: 0, wavePeriod: 0 }, [1, 1, 1]],
    ["0.5 m 8 s light offshore", { swellHeight: 0.5, wavePeriod: 8, windSpeed: 8, windGust: 12, windDirection: 90 }, [5, 5, 2]],
    ["0.5 m 8 s, 25 km/h onshore", { swellHeight: 0.5, wavePeriod: 8, windSpeed: 25, windGust: 30, windDirection: 270 }, [2, 2, 1]],
    ["1.0 m 10 s offshore", { swellHeight: 1, wavePeriod: 10, windSpeed: 10, windGust: 15, windDirection: 90 }, [1, 5, 5]],
    ["2.5 m 14 s offshore", { swellHeight: 2.5, wavePeriod: 14, windSpeed: 10, windGust: 15, windDirection: 90 }, [1, 1, 5]],
    ["2.5 m 14 s from behind the beach", { swellHeight: 2.5, wavePeriod: 14, waveDirection: 90 }, [1, 1, 1]],
    ["6 m 18 s (breaking over 8 m): too big for every level", { swellHeight: 6, wavePeriod: 18 }, [1, 1, 1]],
  ] as const)("%s", (_name, overrides, expected) => {
    expect(levels(rate(overrides))).toEqual([...expected]);
  });

  test("0.5 m 8 s light offshore is a good beginner day (≥ 4)", () => {
    expect(rate({ swellHeight: 0.5, wavePeriod: 8, windSpeed: 5, windGust: 8, windDirection: 90 }).beginner).toBeGreaterThanOrEqual(4);
  });

  test("strong onshore lowers every level", () => {
    const calm = rate({ swellHeight: 0.7, wavePeriod: 10 });
    const onshore = rate({ swellHeight: 0.7, wavePeriod: 10, windSpeed: 35, windGust: 45, windDirection: 260 });
    for (const level of ["beginner", "intermediate", "advanced"] as const) {
      expect(calm[level]).toBeGreaterThan(1);
      expect(onshore[level]).toBeLessThan(calm[level]);
    }
  });

  test("wind type ordering: offshore ≥ cross ≥ onshore at the same speed", () => {
    for (const speed of [5, 10, 15, 25, 33, 45]) {
      const [off, cross, on] = [90, 0, 270].map((dir) => rate({ windSpeed: speed, windGust: speed, windDirection: dir }));
      for (const level of ["beginner", "intermediate", "advanced"] as const) {
        expect(off![level]).toBeGreaterThanOrEqual(cross![level]);
        expect(cross![level]).toBeGreaterThanOrEqual(on![level]);
      }
    }
  });

  test("beginners: wind ≥ 20 km/h or gusts ≥ 40 km/h cap the rating at 2", () => {
    const small = { swellHeight: 0.5, wavePeriod: 8, windDirection: 90 };
    expect(rate({ ...small, windSpeed: 10, windGust: 15 }).beginner).toBe(5);
    expect(rate({ ...small, windSpeed: 20, windGust: 25 }).beginner).toBeLessThanOrEqual(2);
    expect(rate({ ...small, windSpeed: 10, windGust: 40 }).beginner).toBeLessThanOrEqual(2);
  });

  test("swell at an angle is smaller at the beach than swell straight in", () => {
    const straight = rate({ swellHeight: 3, wavePeriod: 12 });
    const angled = rate({ swellHeight: 3, wavePeriod: 12, waveDirection: 345 });
    expect(angled.intermediate).toBeGreaterThan(straight.intermediate); // 3 m straight in is too big for them
  });

  test("unknown facing: no exposure factor, wind rated as cross-shore", () => {
    const unknown = { facing: null, swellHeight: 0.9, wavePeriod: 11, windSpeed: 15, windGust: 20 };
    const asCross = rate({ ...unknown, facing: 270, windDirection: 0 });
    expect(rate({ ...unknown, waveDirection: 90, windDirection: 90 })).toEqual(asCross);
    expect(rate({ ...unknown, waveDirection: 90, windDirection: 270 })).toEqual(asCross);
  });
});

describe("rateHour invariants", () => {
  const isRating = (r: Record<string, number>) =>
    Object.values(r).every((v) => Number.isInteger(v) && v >= 1 && v <= 5) && Object.keys(r).length === 3;

  test("integers 1..5 over a grid of inputs, deterministic", () => {
    for (const swellHeight of [0, 0.3, 0.6, 1, 1.5, 2, 3, 5, 8, 15])
      for (const wavePeriod of [3, 6, 8, 10, 12, 14, 18, 25])
        for (const waveDirection of [0, 45, 90, 200, 270, 300])
          for (const windSpeed of [0, 7, 15, 22, 30, 45, 80])
            for (const windDirection of [0, 90, 180, 270]) {
              const input = { swellHeight, wavePeriod, waveDirection, windSpeed, windGust: windSpeed * 1.4, windDirection, facing: 270 };
              const r = rateHour(input);
              expect(isRating(r as unknown as Record<string, number>)).toBe(true);
              expect(rateHour(input)).toEqual(r);
            }
  });

  test("non-finite or negative inputs never produce NaN or out-of-range values", () => {
    const bad = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -3];
    for (const key of ["swellHeight", "wavePeriod", "waveDirection", "windSpeed", "windGust", "windDirection", "facing"] as const) {
      for (const value of bad) {
        const r = rate({ [key]: value });
        expect(isRating(r as unknown as Record<string, number>)).toBe(true);
      }
    }
    expect(levels(rate({ swellHeight: Number.NaN }))).toEqual([1, 1, 1]);
    expect(levels(rate({ wavePeriod: Number.POSITIVE_INFINITY }))).toEqual([1, 1, 1]);
  });
});
