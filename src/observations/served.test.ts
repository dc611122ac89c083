import { describe, expect, test } from "bun:test";
import type { HourObservation, ObservationsAnswer } from "./service";
import { ServedObservations } from "./served";

const SPOT = { id: "pipeline", name: "Pipeline", timezone: "Pacific/Honolulu", lat: 21.66, lng: -158.05 };
const HOURS: HourObservation[] = [];

function answerWith(change: Partial<ObservationsAnswer> = {}): ObservationsAnswer {
  return {
    spot: { id: SPOT.id, name: SPOT.name, timezone: SPOT.timezone },
    buoy: { id: "51201", name: "Waimea Bay", lat: 21.67, lng: -158.12, distanceKm: 7, owner: "CDIP" },
    latest: null,
    forecast: { time: "2026-11-21T12:00:00Z", waveHeight: 2 },
    hours: HOURS,
    reason: "stale",
    attribution: "NDBC",
    ...change,
  };
}

describe("ServedObservations", () => {
  let answer = answerWith();
  let built = 0;
  const served = new ServedObservations({
    observations: async () => {
      built++;
      return answer;
    },
  });

  test("the same bytes while nothing in the answer changes; written again when something does", async () => {
    const first = await served.body(SPOT, "metric");
    expect(JSON.parse(first)).toMatchObject({ units: "metric", forecast: { waveHeight: 2 } });
    answer = answerWith(); // a new object with the same content and the same hours
    expect(await served.body(SPOT, "metric")).toBe(first);
    // Kept, not written again: the service's hours are one array while they stay the same, so it is not read again.
    HOURS.push({ time: "2026-11-21T11:00:00Z" } as HourObservation);
    expect(await served.body(SPOT, "metric")).toBe(first);
    answer = answerWith({ forecast: { time: "2026-11-21T12:00:00Z", waveHeight: 2.5 } });
    expect(JSON.parse(await served.body(SPOT, "metric")).forecast.waveHeight).toBe(2.5);
    answer = answerWith({ forecast: { time: "2026-11-21T12:00:00Z", waveHeight: 2.5 }, hours: [] }); // new hours
    const again = await served.body(SPOT, "metric");
    expect(JSON.parse(again).hours).toEqual([]);
    expect(JSON.parse(await served.body(SPOT, "imperial"))).toMatchObject({ units: "imperial", forecast: { waveHeight: 8.2 } });
    expect(built).toBe(6);
  });
});
