/**
 * Tides from the model: the extreme finder on every regime of the fake's synthetic tide (checked against the
 * same tide sampled every minute), and the per-spot source and tideless rules (pure, table-tested).
 */
import { describe, expect, test } from "bun:test";
import { findExtremes, largestRange, MIN_WIGGLE_M } from "./extremes";
import { decideSource, MODEL_NEGLIGIBLE_RANGE_M, NEAR_STATION_KM, rangesAgree, type ModelReading, type StationVerdict, type TideSourceKind } from "./source";
import { regimeAt, seaLevelAt, seaLevelSeries, type Amplitudes } from "../../test/support/fake-sea-level";

const HOUR = 3_600_000;
const START = Date.UTC(2026, 10, 21);

/** Extremes of the tide sampled every minute: the truth the hourly finder is judged against. */
function minuteTruth(amplitudes: Amplitudes, lng: number, from: number, to: number) {
  const out: { time: number; type: "high" | "low"; height: number }[] = [];
  let prev = seaLevelAt(amplitudes, lng, from - 60_000);
  let here = seaLevelAt(amplitudes, lng, from);
  for (let t = from; t < to; t += 60_000) {
    const next = seaLevelAt(amplitudes, lng, t + 60_000);
    if (here > prev && here >= next) out.push({ time: t, type: "high", height: here });
    if (here < prev && here <= next) out.push({ time: t, type: "low", height: here });
    [prev, here] = [here, next];
  }
  return out;
}

const hours = (n: number) => Array.from({ length: n }, (_, i) => START + i * HOUR);

describe("extreme finder: every regime of a week of hourly sea levels (rounded to the centimetre like the API)", () => {
  const cases = [
    { regime: "semi-diurnal (Morocco)", lat: 30.5, lng: -9.8, perDay: [3.8, 4.2] },
    { regime: "macro-tidal (Brittany)", lat: 48.4, lng: -4.8, perDay: [3.8, 4.2] },
    { regime: "mixed (California)", lat: 33.6, lng: -118, perDay: [3, 4.2] },
    { regime: "mixed (Hawaii)", lat: 21.66, lng: -158.05, perDay: [2, 4.2] },
    { regime: "diurnal (Gulf of Mexico)", lat: 29.3, lng: -94.8, perDay: [1.5, 2.6] },
    { regime: "diurnal (South China Sea)", lat: 10.5, lng: 107.2, perDay: [1.5, 4.2] },
  ];
  for (const c of cases) {
    test(c.regime, () => {
      const times = hours(168);
      const levels = seaLevelSeries(c.lat, c.lng, times);
      const found = findExtremes(times, levels);
      const perDay = found.length / 7;
      expect(perDay).toBeGreaterThanOrEqual(c.perDay[0]!);
      expect(perDay).toBeLessThanOrEqual(c.perDay[1]!);
      for (let i = 1; i < found.length; i++) expect(found[i]!.type).not.toBe(found[i - 1]!.type);
      // Every found extreme is a true one (minute sampling) within 3 cm, and within 12 minutes where the tide turns
      // sharply (a rise or fall of 0.4 m or more on both sides), 30 minutes at a flat (neap, diurnal) turn; every
      // true extreme with a rise or fall of at least 10 cm on both sides is found.
      const truth = minuteTruth(regimeAt(c.lat, c.lng).amplitudes, c.lng, times[0]! - HOUR, times.at(-1)! + HOUR);
      const step = (list: { height: number }[], i: number) => Math.min(Math.abs(list[i]!.height - (list[i - 1]?.height ?? Infinity)), Math.abs(list[i]!.height - (list[i + 1]?.height ?? Infinity)));
      for (const [i, e] of found.entries()) {
        const tolerance = (step(found, i) >= 0.4 ? 12 : 30) * 60_000;
        const match = truth.find((t) => t.type === e.type && Math.abs(t.time - e.time) <= tolerance);
        expect(match, `${e.type} at ${new Date(e.time).toISOString()}`).toBeDefined();
        expect(Math.abs(match!.height - e.height)).toBeLessThanOrEqual(0.03);
      }
      const inside = (t: { time: number }) => t.time > times[0]! + HOUR && t.time < times.at(-1)! - HOUR;
      const significant = truth.filter((t, i) => inside(t) && step(truth, i) >= 0.1);
      for (const t of significant) expect(found.some((e) => e.type === t.type && Math.abs(e.time - t.time) <= 30 * 60_000), `${t.type} at ${new Date(t.time).toISOString()}`).toBe(true);
    });
  }

  test("sub-hour timing: a cosine turning between two samples is placed between them, not on a sample", () => {
    const period = 12.42 * HOUR;
    const peak = START + 5 * HOUR + 25 * 60_000;
    const times = hours(24);
    const found = findExtremes(times, times.map((t) => Math.cos((2 * Math.PI * (t - peak)) / period)));
    expect(found[0]!.time).toBe(peak);
    expect(found[0]!.height).toBeCloseTo(1, 2);
  });

  test("a slack water repeated by centimetre rounding is one turning point, in the middle of the repeats", () => {
    const times = hours(7);
    const [slack, ...rest] = findExtremes(times, [0.5, 0.8, 0.9, 0.9, 0.8, 0.5, 0.1]);
    expect(rest).toEqual([]);
    expect(slack!.time).toBe(START + 2.5 * HOUR);
    expect(slack!.height).toBeCloseTo(0.91, 2);
  });

  test("nulls split the series: no extreme is found across or at the edge of a gap", () => {
    const times = hours(8);
    expect(findExtremes(times, [0.1, 0.5, 0.9, null, 0.9, 0.5, 0.1, 0.1])).toEqual([]);
    expect(findExtremes(times, times.map(() => null))).toEqual([]);
  });

  test(`wiggles below ${MIN_WIGGLE_M} m are dropped in pairs; highs and lows alternate`, () => {
    const times = hours(10);
    const found = findExtremes(times, [0.5, 0.9, 0.99, 0.985, 0.99, 0.9, 0.5, 0.1, 0.05, 0.1]);
    expect(found.map((e) => e.type)).toEqual(["high", "low"]);
    expect(largestRange(found)).toBeGreaterThan(0.9);
    expect(largestRange([])).toBe(0);
  });

  test("lakes have no data; enclosed seas a negligible range", () => {
    const times = hours(168);
    expect(seaLevelSeries(41.89, -87.61, times).every((v) => v === null)).toBe(true); // Lake Michigan, Chicago
    expect(seaLevelSeries(48.1435, 11.5878, times).every((v) => v === null)).toBe(true); // Eisbach, Munich
    expect(largestRange(findExtremes(times, seaLevelSeries(43.62, 51.19, times)))).toBeLessThan(0.1); // Caspian
    expect(largestRange(findExtremes(times, seaLevelSeries(30.5, -9.8, times)))).toBeGreaterThan(2); // Morocco
  });
});

describe("source rule: station, model or none", () => {
  const station = (distanceKm = 12): StationVerdict => ({ tideless: false, stationId: "noaa/1", stationName: "Pier", distanceKm, reason: "chose Pier" });
  const noStation: StationVerdict = { tideless: true, stationId: null, stationName: null, distanceKm: null, reason: "no tide station within 200 km (nearest: Far, 412.0 km)" };
  const negligibleStations: StationVerdict = { tideless: true, stationId: null, stationName: null, distanceKm: null, reason: "negligible tide: largest spring range 0.06 m < 0.20 m among 4 stations within 200 km" };
  const model = (rangeM: number, stationRangeM: number | null = null, hasData = true): ModelReading => ({ hasData, rangeM, windowRangeM: rangeM, stationRangeM });
  const cases: [string, StationVerdict, ModelReading | null, boolean | null, TideSourceKind, RegExp][] = [
    ["import says tideless: always none", station(), model(2, 2), true, "none", /^override: tideless/],
    ["import says tidal, no station: the model", noStation, model(0.05), false, "model", /^override: tidal/],
    ["station, model not fetched yet: the station", station(), null, null, "station", /model not fetched yet/],
    ["station in reach, but no sea level at the spot (a lake, a pool): none — a lake never gets a tide", station(), model(0, null, false), null, "none", /^no sea-level data .* not used$/],
    ["…unless the import says tidal (a tidal bore up a river): the station", station(), model(0, null, false), false, "station", /^override: tidal/],
    ["station agrees with the model (1.9 vs 2.1 m): the station", station(150), model(2.1, 1.9), null, "station", /agrees/],
    ["small ranges agree within 0.3 m (0.25 vs 0.5 m)", station(60), model(0.5, 0.25), null, "station", /agrees/],
    ["station disagrees (lagoon gauge 0.3 m vs 1.4 m): the model", station(5), model(1.4, 0.3), null, "model", /disagrees/],
    [`station within ${NEAR_STATION_KM} km, not damped (1.0 vs 2.2 m): the station although the ranges disagree`, station(NEAR_STATION_KM), model(2.2, 1.1), null, "station", /near, and not damped/],
    [`station just beyond ${NEAR_STATION_KM} km with the same ranges: the model`, station(NEAR_STATION_KM + 1), model(2.2, 1.1), null, "model", /disagrees/],
    ["station disagrees and the model sees no tide: the station (a tidal coast never loses its tide)", station(80), model(0.05, 1.2), null, "station", /but the model sees no tide/],
    ["no station in reach, not fetched yet: pending (never tideless by accident)", noStation, null, null, "pending", /waiting for the model/],
    ["no station in reach, model tidal: the model", noStation, model(3.2), null, "model", /^model range 3.20 m/],
    [`no station in reach, model below ${MODEL_NEGLIGIBLE_RANGE_M} m: none`, noStation, model(MODEL_NEGLIGIBLE_RANGE_M - 0.01), null, "none", /^negligible tide/],
    [`model at exactly ${MODEL_NEGLIGIBLE_RANGE_M} m: tidal`, noStation, model(MODEL_NEGLIGIBLE_RANGE_M), null, "model", /^model range/],
    ["no station, no sea-level data (lake, river, pool): none", noStation, model(0, null, false), null, "none", /^no sea-level data/],
    ["stations negligible, model not fetched: none (the stations' evidence)", negligibleStations, null, null, "none", /^negligible tide: largest spring range/],
    ["stations negligible but the model sees a tide: the model", negligibleStations, model(0.4), null, "model", /^model range/],
  ];
  for (const [name, verdict, reading, override, source, reason] of cases) {
    test(name, () => {
      const decision = decideSource(verdict, reading, override);
      expect(decision.source).toBe(source);
      expect(decision.reason).toMatch(reason);
    });
  }

  test("agreement: within 0.3 m, or within 35 % of the larger range", () => {
    expect(rangesAgree(0.1, 0.4)).toBe(true);
    expect(rangesAgree(0.1, 0.41)).toBe(false);
    expect(rangesAgree(3, 4.6)).toBe(true);
    expect(rangesAgree(2, 4)).toBe(false);
  });
});
