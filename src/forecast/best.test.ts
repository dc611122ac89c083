/**
 * Best windows (forecast/best.ts): the rule on hand-made days — daylight edges, ties, gaps, all-flat days,
 * days without sunrise — with the reasoning per case.
 */
import { describe, expect, test } from "bun:test";
import { bestWindow, dayBest, inDaylight, type RatedHour } from "./best";

const H = 3_600_000;
const T0 = Date.parse("2026-11-21T00:00:00Z");
/** Hours from 00:00Z with the given intermediate ratings (beginner 1, advanced = intermediate). */
const day = (ratings: number[], skip: number[] = []): RatedHour[] =>
  ratings.flatMap((r, i) => (skip.includes(i) ? [] : [{ time: T0 + i * H, rating: { beginner: 1, intermediate: r, advanced: r } }]));
const at = (hour: number) => new Date(T0 + hour * H).toISOString().slice(0, 19) + "Z";
const light = { sunrise: "2026-11-21T07:10:00Z", sunset: "2026-11-21T17:20:00Z" };

describe("daylight", () => {
  test("an hour counts when its middle lies between sunrise and sunset", () => {
    const range = [Date.parse(light.sunrise), Date.parse(light.sunset)] as const;
    expect(inDaylight(T0 + 6 * H, range)).toBe(false); // 06:30 is before 07:10
    expect(inDaylight(T0 + 7 * H, range)).toBe(true); // 07:30: mostly light
    expect(inDaylight(T0 + 16 * H, range)).toBe(true); // 16:30
    expect(inDaylight(T0 + 17 * H, range)).toBe(false); // 17:30 is after 17:20
    expect(inDaylight(T0 + 17 * H, [range[0], T0 + 17.5 * H])).toBe(true); // exactly at sunset: included
  });
});

describe("dayBest", () => {
  test("the best rating's longest run in daylight; night hours never count", () => {
    // 5s at 02:00–04:00 (night), 4s 08:00–10:00 and 13:00–14:00 → the 3-hour 4 run in the morning.
    const r = Array(24).fill(2);
    for (const h of [2, 3, 4]) r[h] = 5;
    for (const h of [8, 9, 10, 13, 14]) r[h] = 4;
    const best = dayBest(day(r), light);
    expect(best.intermediate).toEqual({ start: at(8), end: at(11), rating: 4 });
    expect(best.beginner).toBeNull(); // beginner rates 1 all day
  });

  test("daylight edges: a top hour whose middle is before sunrise is left out, one ending at sunset kept", () => {
    const r = Array(24).fill(2);
    r[6] = 5; // 06:00–07:00, middle 06:30 < sunrise 07:10
    r[16] = 4; // 16:00–17:00, middle 16:30 < sunset
    expect(dayBest(day(r), light).intermediate).toEqual({ start: at(16), end: at(17), rating: 4 });
  });

  test("ties: equally long runs → the earliest", () => {
    const r = Array(24).fill(2);
    for (const h of [9, 10, 14, 15]) r[h] = 3;
    expect(dayBest(day(r), light).intermediate).toEqual({ start: at(9), end: at(11), rating: 3 });
  });

  test("a missing hour breaks a run (hours must be consecutive)", () => {
    const r = Array(24).fill(2);
    for (const h of [9, 10, 11, 14, 15]) r[h] = 3;
    expect(dayBest(day(r, [10]), light).intermediate).toEqual({ start: at(14), end: at(16), rating: 3 });
  });

  test("all flat (1 everywhere) → null for every level; no sunrise or sunset → null", () => {
    expect(dayBest(day(Array(24).fill(1)), light)).toEqual({ beginner: null, intermediate: null, advanced: null });
    expect(dayBest(day(Array(24).fill(4)), { sunrise: null, sunset: null })).toEqual({ beginner: null, intermediate: null, advanced: null });
    expect(bestWindow([], "advanced")).toBeNull();
  });

  test("a whole daylight at one rating is one window from the first to the last lit hour", () => {
    expect(dayBest(day(Array(24).fill(2)), light).advanced).toEqual({ start: at(7), end: at(17), rating: 2 });
  });
});
