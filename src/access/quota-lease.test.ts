import { describe, expect, test } from "bun:test";
import { LIFETIME_MS, Slices, SLICE_RULE } from "./quota-lease";

const big = { dailyLimit: 100_000, minuteLimit: 10_000 };
const noon = Date.parse("2026-11-26T12:00:00.250Z");

describe("slices of a key's limits", () => {
  test("each unit of a slice reports the counts it was reserved as, one after another", () => {
    const slices = new Slices();
    // Redis counted the leading request (101) and a slice of 4 behind it (102 … 105).
    slices.grant("k", big, 4, 105, 9, noon);
    const taken = [1, 2, 3, 4].map((i) => slices.take("k", big, 1, noon + i));
    expect(taken.map((t) => t?.usedToday)).toEqual([102, 103, 104, 105]);
    expect(taken.map((t) => t?.windowUsed)).toEqual([6, 7, 8, 9]);
    // The window empties 60 s after the second the slice was counted in.
    expect(taken[0]?.burstResetSeconds).toBe(60);
    expect(slices.take("k", big, 1, noon + 5)).toBeNull();
    expect(slices.takeEnded(noon + 5, true)).toEqual([]);
  });

  test("a weight larger than what is left is not admitted from the slice, which stays for lighter requests", () => {
    const slices = new Slices();
    slices.grant("k", big, 4, 105, 9, noon);
    expect(slices.take("k", big, 3, noon)?.usedToday).toBe(104);
    expect(slices.take("k", big, 2, noon)).toBeNull();
    expect(slices.take("k", big, 1, noon)?.usedToday).toBe(105);
  });

  test("a slice ends with its lifetime, a new UTC day or new limits, and its unused units are given back once", () => {
    const evening = Date.parse("2026-11-26T23:59:59.900Z");
    const cases: [string, number, number, typeof big][] = [
      ["lifetime", noon, noon + LIFETIME_MS, big],
      ["new day", evening, Date.parse("2026-11-27T00:00:00.100Z"), big],
      ["new limits", noon, noon + 1, { ...big, minuteLimit: 20_000 }],
    ];
    for (const [why, grantedAt, at, limits] of cases) {
      const slices = new Slices();
      slices.grant("k", big, 10, 110, 10, grantedAt);
      slices.take("k", big, 3, grantedAt);
      expect(slices.take("k", limits, 1, at), why).toBeNull();
      expect(slices.takeEnded(at), why).toEqual([{ keyId: "k", day: "2026-11-26", second: Math.floor(grantedAt / 1000), units: 7 }]);
      expect(slices.takeEnded(at, true), why).toEqual([]);
    }
  });

  test("a new slice ends the one still held; a stop ends them all", () => {
    const slices = new Slices();
    slices.grant("a", big, 8, 108, 8, noon);
    slices.grant("b", big, 5, 5, 5, noon);
    slices.grant("a", big, 6, 200, 20, noon + 10);
    expect(slices.takeEnded(noon + 20)).toEqual([{ keyId: "a", day: "2026-11-26", second: Math.floor(noon / 1000), units: 8 }]);
    expect(slices.takeEnded(noon + 20, true)).toEqual([
      { keyId: "b", day: "2026-11-26", second: Math.floor(noon / 1000), units: 5 },
      { keyId: "a", day: "2026-11-26", second: Math.floor((noon + 10) / 1000), units: 6 },
    ]);
    // Given back once: restored after a failed give-back, handed over again.
    const failed = [{ keyId: "a", day: "2026-11-26", second: 1, units: 2 }];
    slices.restore(failed);
    expect(slices.takeEnded(noon + 30)).toEqual(failed);
  });

  test("a slice is asked for only where limits can grant one, and not again for a lifetime after none was granted", () => {
    const slices = new Slices();
    expect(slices.worthAsking("k", big, noon)).toBe(true);
    expect(slices.worthAsking("k", { dailyLimit: SLICE_RULE.dailyFloor - 1, minuteLimit: 10_000 }, noon)).toBe(false);
    expect(slices.worthAsking("k", { dailyLimit: 100_000, minuteLimit: SLICE_RULE.burstFloor - 1 }, noon)).toBe(false);
    slices.grant("k", big, 0, 99_990, 50, noon);
    expect(slices.worthAsking("k", big, noon + LIFETIME_MS - 1)).toBe(false);
    expect(slices.worthAsking("k", big, noon + LIFETIME_MS)).toBe(true);
  });
});
