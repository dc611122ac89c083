/**
 * Wave components: reading the four Open-Meteo components (nulls, missing series, order by energy) and the
 * fake upstream serving them in Open-Meteo's format, through the real client and document assembly.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assembleDocument } from "../../src/forecast/document";
import { OpenMeteoClient } from "../../src/forecast/openmeteo";
import { estimateHour } from "../../src/forecast/consensus";
import { swellEnergy, SWELL_COMPONENT_VARIABLES } from "../../src/forecast/swells";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";

const series = (values: Record<string, (number | null)[]>) => values;

/** The components one model gives hour `i`, as a document reads them (its total sea counts the model: 1 m, 8 s, 270°). */
function swellsAt(values: Record<string, (number | null)[]>, i: number) {
  const model = [{ model: "one", values: { wave_height: [1, 1], wave_period: [8, 8], wave_direction: [270, 270], ...values } }];
  return estimateHour({ all: model, used: model, ratios: {} }, i)!.components;
}

describe("one model's wave components", () => {
  test("all four components, largest energy (H²·T) first; direction rounded to 0..359", () => {
    const s = series({
      swell_wave_height: [1.0], swell_wave_period: [8], swell_wave_direction: [280.4],
      secondary_swell_wave_height: [0.8], secondary_swell_wave_period: [16], secondary_swell_wave_direction: [359.6],
      tertiary_swell_wave_height: [0.3], tertiary_swell_wave_period: [12], tertiary_swell_wave_direction: [200],
      wind_wave_height: [1.2], wind_wave_period: [4], wind_wave_direction: [90],
    });
    // energies: primary 8, secondary 10.24, tertiary 1.08, wind 5.76
    expect(swellsAt(s, 0)).toEqual([
      { kind: "secondary", height: 0.8, period: 16, direction: 0 },
      { kind: "primary", height: 1.0, period: 8, direction: 280 },
      { kind: "wind", height: 1.2, period: 4, direction: 90 },
      { kind: "tertiary", height: 0.3, period: 12, direction: 200 },
    ]);
  });

  test("a component with any null value, or whose series are absent, is left out", () => {
    const s = series({
      swell_wave_height: [1, 1], swell_wave_period: [10, null], swell_wave_direction: [270, 270],
      wind_wave_height: [null, 0.5], wind_wave_period: [3, 3], wind_wave_direction: [250, 250],
    });
    expect(swellsAt(s, 0)).toEqual([{ kind: "primary", height: 1, period: 10, direction: 270 }]);
    expect(swellsAt(s, 1)).toEqual([{ kind: "wind", height: 0.5, period: 3, direction: 250 }]);
    expect(swellsAt({}, 0)).toEqual([]);
  });

  test("equal energies keep the order primary, secondary, tertiary, wind", () => {
    const s = series({
      wind_wave_height: [1], wind_wave_period: [9], wind_wave_direction: [10],
      swell_wave_height: [1], swell_wave_period: [9], swell_wave_direction: [20],
    });
    expect(swellsAt(s, 0).map((c) => c.kind)).toEqual(["primary", "wind"]);
    expect(swellEnergy({ height: 2, period: 10 })).toBe(40);
  });
});

describe("the fake upstream serves the components", () => {
  let fake: FakeOpenMeteo;
  beforeAll(async () => {
    fake = await startFakeOpenMeteo({ firstDay: "2026-11-21" });
  });
  afterAll(() => fake.close());

  test("Open-Meteo's format: units, series lengths, null tails and a whole null series", async () => {
    const variables = [...SWELL_COMPONENT_VARIABLES, "tertiary_swell_wave_height", "tertiary_swell_wave_period", "tertiary_swell_wave_direction"];
    const hourly = ["wave_height", ...variables].join(",");
    const res = await fetch(`${fake.url}/v1/marine?latitude=39.344,21.665&longitude=-9.363,-158.053&hourly=${hourly}&timezone=GMT&forecast_days=7`);
    const [peniche, pipeline] = (await res.json()) as { hourly_units: Record<string, string>; hourly: Record<string, unknown[]>; location_id?: number }[];
    expect(Object.keys(peniche!.hourly_units)).toEqual(["time", "wave_height", ...variables]);
    expect(peniche!.hourly_units.wind_wave_height).toBe("m");
    expect(peniche!.hourly_units.secondary_swell_wave_period).toBe("s");
    expect(peniche!.hourly_units.tertiary_swell_wave_direction).toBe("°");
    expect(pipeline!.location_id).toBe(1);
    for (const name of variables) expect(peniche!.hourly[name]).toHaveLength(168);
    // The null tail of the fixture's total sea (last 2 hours at Peniche) carries over; Pipeline has no tertiary swell.
    expect(peniche!.hourly.wind_wave_height!.slice(-3).map((v) => v === null)).toEqual([false, true, true]);
    expect(pipeline!.hourly.tertiary_swell_wave_height!.every((v) => v === null)).toBe(true);
    expect(pipeline!.hourly.secondary_swell_wave_height!.some((v) => v !== null)).toBe(true);
    expect(fake.requests.at(-1)!.variables).toBe(10);
  });

  test("through the client into documents: components per hour, none from a null series", async () => {
    const client = new OpenMeteoClient({ marineUrl: fake.url, forecastUrl: fake.url, apiKey: undefined, timeoutMs: 5000, retries: 0 });
    const points = [{ lat: 39.344, lng: -9.363 }, { lat: 21.665, lng: -158.053 }];
    const [marine, forecast] = await Promise.all([client.fetch("marine", points), client.fetch("forecast", points)]);
    const doc = (i: number) => assembleDocument(marine.locations[i]!, forecast.locations[i]!, 270, (t) => t.map(() => null));
    const peniche = doc(0).hours[0]!;
    // The tertiary swell is not requested (the call-weight budget: forecast/swells.ts).
    expect(peniche.swells!.map((c) => c.kind).sort()).toEqual(["primary", "secondary", "wind"]);
    const energies = peniche.swells!.map(swellEnergy);
    expect(energies).toEqual([...energies].sort((a, b) => b - a));
    expect(doc(1).hours.every((h) => h.swells!.every((c) => c.kind !== "tertiary"))).toBe(true);
    expect(marine.weight).toBeCloseTo(2 * 1.4, 9);
  });
});
