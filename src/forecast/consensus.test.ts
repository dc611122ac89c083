/** Several wave models, one estimate per hour: the median, the agreement level and the models left out. */
import { describe, expect, test } from "bun:test";
import { chooseModels, circularMedian, confidenceLevel, estimateHour, median, seaLevelOf, spotModels } from "./consensus";
import type { ModelSeries } from "./openmeteo";

/** A model with one hour: total sea, optional primary swell and sea temperature. */
function model(name: string, hour: { wave: number | null; swell?: [number, number, number]; sst?: number; windSea?: [number, number, number] }): ModelSeries {
  const values: ModelSeries["values"] = {
    wave_height: [hour.wave],
    wave_period: [hour.wave === null ? null : 9],
    wave_direction: [hour.wave === null ? null : 280],
    sea_surface_temperature: [hour.sst ?? null],
  };
  if (hour.swell) [values.swell_wave_height, values.swell_wave_period, values.swell_wave_direction] = hour.swell.map((v) => [v]);
  if (hour.windSea) [values.wind_wave_height, values.wind_wave_period, values.wind_wave_direction] = hour.windSea.map((v) => [v]);
  return { model: name, values };
}

describe("median and circular median", () => {
  test.each([
    [[1], 1],
    [[3, 1, 2], 2],
    [[1, 2, 3, 10], 2.5],
    [[2, 2], 2],
  ])("median(%p) = %p", (values, expected) => expect(median(values)).toBe(expected));

  test.each([
    [[350, 10], 0],
    [[350, 10, 20], 10],
    [[90, 100, 110], 100],
    [[270, 280], 275],
    [[0], 0],
  ])("circularMedian(%p) = %p", (values, expected) => expect(Math.round(circularMedian(values)) % 360).toBe(expected));
});

describe("confidence level", () => {
  test.each([
    // min, median, max, models → level
    [1.0, 1.0, 1.0, 3, "high"],
    [1.0, 1.1, 1.24, 3, "high"],
    [1.0, 1.0, 1.25, 3, "medium"],
    [1.0, 1.0, 1.49, 2, "medium"],
    [1.0, 1.0, 1.5, 2, "low"],
    [1.0, 1.0, 1.9, 4, "low"],
    [1.2, 1.2, 1.2, 1, "medium"],
  ] as const)("(%p, %p, %p) over %p models → %p", (min, mid, max, models, level) => expect(confidenceLevel(min, mid, max, models)).toBe(level));
});

describe("models used at a spot", () => {
  const series = (name: string, heights: (number | null)[]): ModelSeries => ({ model: name, values: { wave_height: heights } });

  test("a model reading only zeros or only nulls where another sees sea is left out, named with why", () => {
    const use = chooseModels([series("a", [1.2, 1.3]), series("b", [0, 0]), series("c", [null, null]), series("d", [0, null])], ["a", "b", "c", "d"]);
    expect(use).toEqual({ used: ["a"], leftOut: { b: "zero series", c: "no data", d: "zero series" } });
  });

  test("a model missing its column is no data; one seeing sea only some hours is used", () => {
    expect(chooseModels([series("a", [0, 0.4]), { model: "b", values: {} }], ["a", "b"])).toEqual({ used: ["a"], leftOut: { b: "no data" } });
  });

  test("a model not counted (the sea-temperature source) is neither used nor left out", () => {
    expect(chooseModels([series("a", [1]), series("best_match", [1])], ["a"])).toEqual({ used: ["a"], leftOut: {} });
  });

  test("every model at zero: none is used", () => {
    expect(chooseModels([series("a", [0, 0])], ["a"])).toEqual({ used: [], leftOut: { a: "zero series" } });
  });
});

describe("one hour from several models", () => {
  const use = (...names: string[]) => ({ used: names, leftOut: {} });

  test("agreeing models: the median, high, the min and max of those with a value", () => {
    const models = [model("a", { wave: 1.5, sst: 15 }), model("b", { wave: 1.6 }), model("c", { wave: 1.7 })];
    const hour = estimateHour(spotModels(models, use("a", "b", "c")), 0)!;
    expect(hour.waveHeight).toBe(1.6);
    expect(hour.confidence).toEqual({ level: "high", models: 3, waveHeight: { min: 1.5, median: 1.6, max: 1.7 } });
    expect(hour.waterTemperature).toBe(15);
  });

  test("a model 1.9× the others: low; the median stays with the majority", () => {
    const hour = estimateHour(spotModels([model("a", { wave: 1 }), model("b", { wave: 1 }), model("c", { wave: 1.9 })], use("a", "b", "c")), 0)!;
    expect(hour.waveHeight).toBe(1);
    expect(hour.confidence.level).toBe("low");
  });

  test("with the bias correction's ratios, each model's height is scaled before the median; a model without one keeps its own", () => {
    const models = [model("a", { wave: 1.2 }), model("b", { wave: 1.5 }), model("c", { wave: 1.0 })];
    const hour = estimateHour(spotModels(models, use("a", "b", "c"), { a: 0.5, b: 0.8 }), 0)!;
    expect(hour.waveHeight).toBe(1.0); // 0.6, 1.2 and 1.0
    expect(hour.confidence.waveHeight).toEqual({ min: 0.6, median: 1.0, max: 1.2 });
    expect(hour.swell).toEqual(estimateHour(spotModels(models, use("a", "b", "c")), 0)!.swell); // the swell is not scaled
  });

  test("an even count: the mean of the middle two, rounded to the centimetre", () => {
    expect(estimateHour(spotModels([model("a", { wave: 1.21 }), model("b", { wave: 1.24 })], use("a", "b")), 0)!.waveHeight).toBe(1.23);
  });

  test("a model past its horizon (null) or reading 0 this hour does not count", () => {
    const hour = estimateHour(spotModels([model("a", { wave: 2 }), model("b", { wave: null }), model("c", { wave: 0 })], use("a", "b", "c")), 0)!;
    expect(hour.confidence).toEqual({ level: "medium", models: 1, waveHeight: { min: 2, median: 2, max: 2 } });
  });

  test("no model with a wave height: no hour (never 0 m)", () => {
    expect(estimateHour(spotModels([model("a", { wave: 0 }), model("b", { wave: null })], use("a", "b")), 0)).toBeNull();
  });

  test("swell components: the median of the models that carry them; the total sea where none has a primary swell", () => {
    const models = [
      model("a", { wave: 2, swell: [1.6, 12, 350], windSea: [0.5, 4, 90] }),
      model("b", { wave: 2.2, swell: [1.8, 14, 10] }),
      model("c", { wave: 2.1 }), // total sea only (ECMWF WAM)
    ];
    const hour = estimateHour(spotModels(models, use("a", "b", "c")), 0)!;
    expect(hour.swell).toEqual({ height: 1.7, period: 13, direction: 0 });
    expect(hour.components.map((c) => c.kind)).toEqual(["primary", "wind"]);
    expect(hour.components[1]).toEqual({ kind: "wind", height: 0.5, period: 4, direction: 90 });
    const totalOnly = estimateHour(spotModels([model("c", { wave: 2.1 })], use("c")), 0)!;
    expect(totalOnly.swell).toEqual({ height: 2.1, period: 9, direction: 280 });
    expect(totalOnly.components).toEqual([]);
  });

  test("the sea temperature comes from any model asked for when no used one carries it", () => {
    const hour = estimateHour(spotModels([model("a", { wave: 1 }), model("best_match", { wave: 1, sst: 14.2 })], use("a")), 0)!;
    expect(hour.waterTemperature).toBe(14.2);
    expect(hour.confidence.models).toBe(1);
  });

  test("sea level: the first model with any value; all-null when only such columns exist; undefined without any", () => {
    const with_ = (name: string, v: (number | null)[] | undefined): ModelSeries => ({ model: name, values: { sea_level_height_msl: v } });
    expect(seaLevelOf([with_("a", [null, null]), with_("b", [0.4, 0.5]), with_("c", [1, 1])])).toEqual([0.4, 0.5]);
    expect(seaLevelOf([with_("a", [null]), with_("b", undefined)])).toEqual([null]);
    expect(seaLevelOf([with_("a", undefined)])).toBeUndefined();
  });
});
