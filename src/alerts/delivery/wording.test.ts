import { describe, expect, test } from "bun:test";
import { bestHourFigures, windowSpan } from "./wording";

describe("wording of a window", () => {
  test.each([
    ["2026-11-27T16:00:00Z", "2026-11-27T20:00:00Z", "Pacific/Honolulu", "Fri 27 Nov 06:00–10:00 HST"],
    ["2026-11-28T08:00:00Z", "2026-11-28T11:00:00Z", "Pacific/Honolulu", "Fri 27 Nov 22:00–Sat 28 Nov 01:00 HST"],
    ["2026-11-27T23:00:00Z", "2026-11-28T02:00:00Z", "UTC", "Fri 27 Nov 23:00–Sat 28 Nov 02:00 UTC"],
    ["2026-11-27T23:00:00Z", "2026-11-28T02:00:00Z", "Europe/Paris", "Sat 28 Nov 00:00–03:00 CET"],
  ])("%s to %s at %s: %s", (start, end, tz, expected) => {
    expect(windowSpan(start, end, tz)).toBe(expected);
  });

  test("the figures an hour has, worded", () => {
    expect(bestHourFigures({ time: "", waveHeight: 1.63, wavePeriod: 12.4, windSpeed: 8.6, windDirectionType: "cross", rating: 4 })).toEqual([
      "waves 1.6 m",
      "period 12 s",
      "wind 9 km/h cross",
      "rating 4 of 5",
    ]);
    expect(bestHourFigures({ time: "", waveHeight: null, wavePeriod: null, windSpeed: 12, windDirectionType: null, rating: null })).toEqual(["wind 12 km/h"]);
  });
});
