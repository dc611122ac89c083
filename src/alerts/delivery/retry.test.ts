import { describe, expect, test } from "bun:test";
import { HOUR_MS, ManualClock } from "../../core/clock";
import { GIVE_UP_AFTER_MS, nextAttemptAt } from "./retry";

const FIRST = new Date("2026-11-26T06:00:00Z");
const at = (ms: number) => new Date(FIRST.getTime() + ms);

describe("nextAttemptAt", () => {
  test.each([
    // attempts so far, now (ms after the first attempt), expected wait from now
    [1, 0, 30_000],
    [2, 30_000, 120_000],
    [3, 150_000, 600_000],
    [4, 750_000, 1_800_000],
    [5, 2_550_000, HOUR_MS],
    [6, 2_550_000 + HOUR_MS, 2 * HOUR_MS],
    [7, 2_550_000 + 3 * HOUR_MS, 4 * HOUR_MS],
    [8, 2_550_000 + 7 * HOUR_MS, 8 * HOUR_MS],
    [9, 2_550_000 + 15 * HOUR_MS, 8 * HOUR_MS], // the last wait repeats
    [1, 5_000, 30_000], // from the failure, not from the first attempt
  ])("after %i failed attempts at +%i ms: wait %i ms", (attempts, now, wait) => {
    expect(nextAttemptAt(FIRST, attempts, at(now))).toEqual(at(now + wait));
  });

  test("the first retry is within 30 s of the first attempt", () => {
    expect(nextAttemptAt(FIRST, 1, FIRST)!.getTime() - FIRST.getTime()).toBeLessThanOrEqual(30_000);
  });

  test("no attempt yet: due now", () => {
    expect(nextAttemptAt(FIRST, 0, FIRST)).toEqual(FIRST);
  });

  test("gives up when the next attempt would fall more than a day after the first", () => {
    expect(nextAttemptAt(FIRST, 9, at(GIVE_UP_AFTER_MS - 8 * HOUR_MS))).toEqual(at(GIVE_UP_AFTER_MS));
    expect(nextAttemptAt(FIRST, 9, at(GIVE_UP_AFTER_MS - 8 * HOUR_MS + 1))).toBeNull();
    expect(nextAttemptAt(FIRST, 3, at(GIVE_UP_AFTER_MS))).toBeNull();
  });

  test("a receiver that always fails: the schedule on a fake clock ends within a day, attempts growing apart", () => {
    const clock = new ManualClock(FIRST.getTime());
    const waits: number[] = [];
    for (let attempts = 1; ; attempts++) {
      const next = nextAttemptAt(FIRST, attempts, new Date(clock.now()));
      if (next === null) break;
      waits.push(next.getTime() - clock.now());
      clock.set(next);
    }
    expect(waits.length).toBe(9);
    expect(waits).toEqual([...waits].sort((a, b) => a - b));
    expect(clock.now() - FIRST.getTime()).toBeLessThanOrEqual(GIVE_UP_AFTER_MS);
  });
});
