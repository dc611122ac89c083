import { describe, expect, test } from "bun:test";
import { buoyPhrase } from "./summary";
import type { CurrentObservation } from "./types";

const reading: CurrentObservation = {
  buoy: { id: "51201", name: "Waimea Bay, HI (106)", distanceKm: 6.8 },
  time: "2026-11-21T12:50:00Z",
  ageMinutes: 25,
  waveHeight: 2.1,
  dominantPeriod: 14,
  waveDirection: 310,
};

describe("a buoy's reading in words", () => {
  const cases: [string, CurrentObservation, number | null, "m" | "ft", string][] = [
    ["every figure, beside the forecast", reading, 1.9, "m", "buoy 51201 Waimea Bay, HI (106), 6.8 km: 2.1 m at 14 s from 310°, 25 min ago; forecast 1.9 m"],
    ["in feet, without a forecast", { ...reading, waveHeight: 6.89 }, null, "ft", "buoy 51201 Waimea Bay, HI (106), 6.8 km: 6.89 ft at 14 s from 310°, 25 min ago"],
    ["a row without period or direction", { ...reading, dominantPeriod: null, waveDirection: null }, 1.9, "m", "buoy 51201 Waimea Bay, HI (106), 6.8 km: 2.1 m, 25 min ago; forecast 1.9 m"],
  ];
  for (const [name, observation, forecast, length, phrase] of cases) test(name, () => expect(buoyPhrase(observation, forecast, length)).toBe(phrase));
});
