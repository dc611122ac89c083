import { describe, expect, test } from "bun:test";
import { HOUR_MS } from "../core/clock";
import { longestWindow, nextAllowedAt, TEST_LIMITS, CONFIRMATION_LIMITS, whenAllowed } from "./limits";

const NOW = Date.parse("2026-11-28T02:00:00Z");
const limit = { max: 3, perMs: HOUR_MS };

describe("nextAllowedAt", () => {
  test("allowed while fewer than max fall within the window", () => {
    expect(nextAllowedAt([], limit, NOW)).toBeNull();
    expect(nextAllowedAt([NOW - 1000, NOW - 2000], limit, NOW)).toBeNull();
    // Older than the window: not counted.
    expect(nextAllowedAt([NOW - HOUR_MS, NOW - HOUR_MS - 5, NOW - 1000], limit, NOW)).toBeNull();
  });

  test("refused at max: allowed again when the oldest of the last max leaves the window", () => {
    const sent = [NOW - 50 * 60_000, NOW - 10 * 60_000, NOW - 20 * 60_000];
    expect(nextAllowedAt(sent, limit, NOW)).toBe(NOW + 10 * 60_000);
    // More than max (another server counted at once): the next is later.
    expect(nextAllowedAt([...sent, NOW - 5 * 60_000], limit, NOW)).toBe(NOW + 40 * 60_000);
  });
});

test("whenAllowed names the UTC minute and the wait", () => {
  expect(whenAllowed(NOW + 37 * 60_000 - 5_000, NOW)).toBe("2026-11-28 02:36 UTC (in 37 min)");
  expect(whenAllowed(NOW + 10, NOW)).toBe("2026-11-28 02:00 UTC (in 1 min)");
  expect(whenAllowed(NOW + 20 * HOUR_MS, NOW)).toBe("2026-11-28 22:00 UTC (in 20 h)");
});

test("the longest window of each set of limits", () => {
  expect(longestWindow(TEST_LIMITS)).toBe(HOUR_MS);
  expect(longestWindow(CONFIRMATION_LIMITS)).toBe(24 * HOUR_MS);
});
