/**
 * The tide at a minute (src/tides/now.ts), table-tested on a hand-made semi-diurnal day: rising and falling
 * between extremes, at an extreme, the minute of a turn, the clamp to the surrounding extremes, and a window that
 * ends before the next extreme.
 */
import { describe, expect, test } from "bun:test";
import { MINUTE_MS } from "../core/clock";
import { cosineLevel, tideState, withTurnBefore } from "./now";
import type { PredictedExtreme } from "./prediction";

const at = (hhmm: string) => Date.parse(`2026-11-21T${hhmm}:00Z`);
const X = (type: "high" | "low", hhmm: string, height: number): PredictedExtreme => ({ type, time: at(hhmm), height });

// A semi-diurnal day: low 00:40 0.5 m, high 06:52 3.1 m, low 13:05 0.6 m, high 19:18 3.0 m (the table tests add a low at 23:59).
const DAY = [X("low", "00:40", 0.5), X("high", "06:52", 3.1), X("low", "13:05", 0.6), X("high", "19:18", 3.0)];
/** A straight line between the table's extremes: enough to see which value the function reads. */
const linear = (t: number) => {
  const i = DAY.findIndex((e) => e.time >= t);
  const a = DAY[i - 1]!;
  const b = DAY[i]!;
  return a.height + ((t - a.time) / (b.time - a.time)) * (b.height - a.height);
};

describe("tideState", () => {
  const cases: { name: string; minute: string; state: "rising" | "falling"; next: string; minutesUntil: number; high: string; low: string }[] = [
    { name: "rising between a low and a high", minute: "03:00", state: "rising", next: "06:52", minutesUntil: 232, high: "06:52", low: "13:05" },
    { name: "falling between a high and a low", minute: "10:00", state: "falling", next: "13:05", minutesUntil: 185, high: "19:18", low: "13:05" },
    { name: "the minute of a high: the high is still next, 0 minutes away", minute: "06:52", state: "rising", next: "06:52", minutesUntil: 0, high: "06:52", low: "13:05" },
    { name: "the minute after a high: falling toward the low", minute: "06:53", state: "falling", next: "13:05", minutesUntil: 372, high: "19:18", low: "13:05" },
    { name: "the minute before a low", minute: "13:04", state: "falling", next: "13:05", minutesUntil: 1, high: "19:18", low: "13:05" },
    { name: "the minute of a low", minute: "13:05", state: "falling", next: "13:05", minutesUntil: 0, high: "19:18", low: "13:05" },
    { name: "the minute after a low: rising", minute: "13:06", state: "rising", next: "19:18", minutesUntil: 372, high: "19:18", low: "23:59" },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const extremes = [...DAY, X("low", "23:59", 0.4)];
      const s = tideState(extremes, at(c.minute), linear)!;
      expect(s.state).toBe(c.state);
      expect(s.nextEvent.time).toBe(at(c.next));
      expect(s.nextEvent.minutesUntil).toBe(c.minutesUntil);
      expect(s.nextHigh.time).toBe(at(c.high));
      expect(s.nextLow.time).toBe(at(c.low));
      expect(s.nextHigh.type).toBe("high");
      expect(s.nextLow.type).toBe("low");
    });
  }

  test("the height is the curve's, rounded to the millimetre; at a turn it is the turn's height", () => {
    expect(tideState(DAY, at("03:00"), () => 1.23456)!.height).toBe(1.235);
    expect(tideState(DAY, at("06:52"), () => 3.0)!.height).toBe(3.1);
  });

  test("the height never leaves the range of the extremes around it (the curve can overshoot by millimetres)", () => {
    expect(tideState(DAY, at("06:50"), () => 3.104)!.height).toBe(3.1);
    expect(tideState(DAY, at("12:59"), () => 0.597)!.height).toBe(0.6);
    for (let t = at("00:41"); t < at("19:18"); t += 7 * MINUTE_MS) {
      const s = tideState(DAY, t, linear);
      if (!s) continue; // past the last low: no next low in this short table
      const prev = DAY.filter((e) => e.time < t).at(-1)!;
      expect(s.height).toBeGreaterThanOrEqual(Math.min(prev.height, s.nextEvent.height));
      expect(s.height).toBeLessThanOrEqual(Math.max(prev.height, s.nextEvent.height));
    }
  });

  test("null when the next high or low lies beyond the stored extremes, or nothing precedes the minute", () => {
    expect(tideState(DAY, at("14:00"), linear)).toBeNull(); // next high 19:18 is there, no low after it
    expect(tideState(DAY, at("20:00"), linear)).toBeNull(); // past the last extreme
    expect(tideState(DAY, at("00:10"), linear)).toBeNull(); // no extreme before the minute
    expect(tideState([], at("12:00"), linear)).toBeNull(); // a tideless spot stores none
  });

  test("a high followed by a high (a mixed tide's merged wiggle) still finds the next low", () => {
    const mixed = [X("low", "00:40", 0.5), X("high", "06:52", 3.1), X("high", "09:00", 2.9), X("low", "13:05", 0.6)];
    const s = tideState(mixed, at("07:00"), () => 3.0)!;
    expect(s.nextEvent.time).toBe(at("09:00"));
    expect(s.nextLow.time).toBe(at("13:05"));
  });
});

describe("cosineLevel (model-served spots keep only their extremes)", () => {
  const H = 3_600_000;
  const extremes: PredictedExtreme[] = [
    { type: "low", time: 0, height: -1 },
    { type: "high", time: 6 * H, height: 1.5 },
    { type: "low", time: 12 * H, height: -0.5 },
    { type: "high", time: 18 * H, height: 1.2 },
    { type: "low", time: 24 * H, height: -0.8 },
  ];
  test("passes through the extremes, halfway at mid-time, monotonic between them, flat outside", () => {
    const cases: [number, number][] = [
      [0, -1],
      [3 * H, 0.25],
      [6 * H, 1.5],
      [9 * H, 0.5],
      [12 * H, -0.5],
      [-H, -1],
      [15 * H, 0.35],
      [30 * H, -0.8],
    ];
    for (const [t, expected] of cases) expect([t, cosineLevel(extremes, t)]).toEqual([t, expect.closeTo(expected, 9)] as never);
    let last = -Infinity;
    for (let t = 0; t <= 6 * H; t += 10 * MINUTE_MS) {
      const level = cosineLevel(extremes, t);
      expect(level).toBeGreaterThanOrEqual(last);
      last = level;
    }
  });

  test("tideState over model extremes with cosineLevel stays between the extremes around now", () => {
    for (let t = MINUTE_MS; t < 12 * H; t += 37 * MINUTE_MS) {
      const state = tideState(extremes, t, (x) => cosineLevel(extremes, x))!;
      const [low, high] = t < 6 * H ? [-1, 1.5] : [-0.5, 1.5];
      expect(state.height).toBeGreaterThanOrEqual(low);
      expect(state.height).toBeLessThanOrEqual(high);
      expect(state.state).toBe(t < 6 * H ? "rising" : "falling");
    }
  });
});

describe("withTurnBefore (a model window that starts after the last turn)", () => {
  const window = DAY.slice(1); // starts at 01:00: its first turn is the high at 06:52
  const level = (rows: readonly PredictedExtreme[]) => (t: number) => cosineLevel(rows, t);

  test("no turn stored before the minute: the one before the first is mirrored, so the tide has a height and a state", () => {
    expect(tideState(window, at("02:00"), level(window))).toBeNull();
    const rows = withTurnBefore(window, at("02:00"));
    expect(rows[0]).toEqual(X("low", "00:39", 0.6));
    const state = tideState(rows, at("02:00"), level(rows))!;
    expect(state.state).toBe("rising");
    expect(state.nextEvent).toMatchObject({ type: "high", time: at("06:52"), minutesUntil: 292 });
    expect(state.height).toBeGreaterThan(0.6);
    expect(state.height).toBeLessThan(3.1);
  });

  test("a mirrored turn never lands at or after the minute (a short interval after a long one)", () => {
    const rows = withTurnBefore([X("high", "10:00", 2), X("low", "11:00", 1), X("high", "17:00", 2)], at("08:00"));
    expect(rows[0]).toEqual(X("low", "07:59", 1));
    expect(tideState(rows, at("08:00"), level(rows))!.state).toBe("rising");
  });

  test("a turn stored before the minute, or fewer than two after it: the extremes as given", () => {
    expect(withTurnBefore(DAY, at("02:00"))).toBe(DAY);
    expect(withTurnBefore(DAY.slice(3), at("12:00"))).toEqual(DAY.slice(3));
    expect(withTurnBefore([], at("12:00"))).toEqual([]);
  });
});
