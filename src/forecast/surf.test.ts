/**
 * The surf height model (docs/ratings.md, "Surf height"): a table of cases with the expected range and why.
 * Komar & Gaughan: Hb = 0.6157 · (T·H²)^0.4; exposure √cos θ (0 from 90° off); components add as energies
 * (√Σ Hb²); max = 1.27 × min (the highest tenth of a Rayleigh sea). West-facing beach (270°) unless noted.
 */
import { describe, expect, test } from "bun:test";
import { rateHour } from "./rating";
import { breakingSea, surfRange } from "./surf";
import type { SwellComponent, SwellKind } from "./types";

const c = (kind: SwellKind, height: number, period: number, direction: number): SwellComponent => ({ kind, height, period, direction });

describe("surfRange", () => {
  test.each([
    // [case, components, facing, expected, reasoning]
    ["1 m 10 s straight in", [c("primary", 1, 10, 270)], 270, { min: 1.5, max: 2.0 }, "Hb = 0.6157 · 10^0.4 = 1.55 m; sets 1.96 m"],
    ["1 m 14 s ground swell straight in", [c("primary", 1, 14, 270)], 270, { min: 1.8, max: 2.2 }, "the longer period shoals more: 14^0.4 → 1.77 m"],
    ["1 m 5 s wind sea straight in", [c("wind", 1, 5, 270)], 270, { min: 1.2, max: 1.5 }, "same height, short period: 5^0.4 → 1.17 m, well below the ground swell"],
    ["sheltered: 3 m 15 s from behind, 0.3 m 4 s wind sea onshore", [c("primary", 3, 15, 90), c("wind", 0.3, 4, 270)], 270, { min: 0.4, max: 0.5 }, "the big swell never reaches the beach; only the little wind sea breaks (0.41 m)"],
    ["the same 3 m 15 s swell straight in", [c("primary", 3, 15, 270)], 270, { min: 4.4, max: 5.6 }, "135^0.4 · 0.6157 = 4.38 m"],
    ["2 m 12 s arriving 60° off the facing", [c("primary", 2, 12, 330)], 270, { min: 2.0, max: 2.6 }, "2.90 m × √cos 60° (0.707) = 2.05 m"],
    ["two 1 m 10 s swells, one 20° off", [c("primary", 1, 10, 270), c("secondary", 1, 10, 250)], 270, { min: 2.2, max: 2.7 }, "energies add: √(1.55² + 1.50²) = 2.15 m, not 3.05 m"],
    ["swell exactly along the beach", [c("primary", 2, 12, 0)], 270, { min: 0, max: 0 }, "θ = 90°: nothing reaches the beach"],
    ["unknown facing: every direction counts", [c("primary", 3, 15, 90)], null, { min: 4.4, max: 5.6 }, "no exposure factor without a facing"],
    ["no component at all", [], 270, { min: 0, max: 0 }, "nothing to break"],
  ] as const)("%s", (_name, components, facing, expected, _why) => {
    expect(surfRange(components as readonly SwellComponent[], facing)).toEqual(expected);
  });

  test("long-period swell straight in shows more surf than the same height of wind sea", () => {
    for (const h of [0.5, 1, 2]) {
      expect(surfRange([c("primary", h, 14, 270)], 270).min).toBeGreaterThan(surfRange([c("wind", h, 5, 270)], 270).min);
    }
  });

  test("the rated period is that of the component breaking biggest at the beach, not the biggest offshore", () => {
    const sea = breakingSea([c("primary", 3, 15, 90), c("wind", 0.8, 6, 260)], 270);
    expect(sea.period).toBe(6);
    expect(breakingSea([], 270)).toEqual({ height: 0, period: 0 });
  });
});

describe("ratings on the breaking sea", () => {
  const calm = { swellHeight: 3, wavePeriod: 15, waveDirection: 90, windSpeed: 0, windGust: 0, windDirection: 90, facing: 270 };

  test("a big swell from behind rates flat; with a wind sea reaching the beach the rating follows that sea", () => {
    expect(rateHour(calm)).toEqual({ beginner: 1, intermediate: 1, advanced: 1 });
    const sheltered = breakingSea([c("primary", 3, 15, 90), c("wind", 0.5, 7, 270)], 270); // ≈ 0.74 m at 7 s
    expect(rateHour({ ...calm, breaking: sheltered })).toEqual({ beginner: 5, intermediate: 4, advanced: 2 });
  });

  test("with a single component the breaking sea rates exactly as the primary swell did", () => {
    for (const [h, t, dir] of [[0.5, 8, 270], [1, 10, 300], [2.5, 14, 250], [6, 18, 270]] as const) {
      const input = { ...calm, swellHeight: h, wavePeriod: t, waveDirection: dir, windSpeed: 10, windGust: 15 };
      expect(rateHour({ ...input, breaking: breakingSea([c("primary", h, t, dir)], 270) })).toEqual(rateHour(input));
    }
  });
});
