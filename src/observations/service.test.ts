import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { DAY_MS, HOUR_MS, MINUTE_MS, ManualClock, isoUtc } from "../core/clock";
import { startFakeNdbc, type FakeStation } from "../../test/support/fake-ndbc";
import { NdbcFetcher } from "./fetcher";
import { MemoryObservationStore } from "./memory-store";
import { ObservationsService, type ForecastPoint, type ObservedSpot } from "./service";
import type { ModelHours } from "./verification";
import { VerificationService, type HindcastRequest } from "./verification-service";

const T0 = Date.parse("2026-11-21T13:05:00Z");
/** The sea the buoys measure: a swell around 1.6 m rising and falling over 13 hours, and a slower one over 5 days. */
const sea = (time: number) => 1.6 + 0.5 * Math.sin((2 * Math.PI * time) / (13 * HOUR_MS)) + 0.3 * Math.sin((2 * Math.PI * time) / (5 * DAY_MS));

const WAIMEA: FakeStation = { id: "51201", name: "Waimea Bay, HI (106)", lat: 21.671, lng: -158.118, owner: "Pacific Islands Ocean Observing System", waveHeight: sea };
const LIGHT: FakeStation = { id: "LITE1", name: "Kaena Light", lat: 21.66, lng: -158.06, type: "fixed", files: "no_waves" };
/** Off Santa Cruz, 60 km from the spot there: in reach, too far for a correction. */
const FAR: FakeStation = { id: "46092", name: "Monterey Bay far", lat: 36.5, lng: -122.5, waveHeight: sea };

const PIPELINE: ObservedSpot = { id: "banzai-pipeline", name: "Banzai Pipeline", timezone: "Pacific/Honolulu", lat: 21.665, lng: -158.053 };
const SANTA_CRUZ: ObservedSpot = { id: "steamer-lane", name: "Steamer Lane", timezone: "America/Los_Angeles", lat: 36.951, lng: -122.026 };
const PENICHE: ObservedSpot = { id: "supertubos", name: "Supertubos", timezone: "Europe/Lisbon", lat: 39.344, lng: -9.363 };

let fakeNow = T0;
const ndbc = await startFakeNdbc({ stations: [LIGHT, WAIMEA, FAR], now: () => fakeNow });
afterAll(() => ndbc.close());
beforeEach(() => {
  ndbc.reset();
  fakeNow = T0;
});

/** Each model's hourly heights at a buoy: the sea × its scale, the days asked back and ahead of the clock's day. */
function hindcastOf(clock: ManualClock, scales: Record<string, number>) {
  const calls: HindcastRequest[] = [];
  /** While set, every request fails as an Open-Meteo outage does. */
  const outage = { on: false };
  const source = async (request: HindcastRequest): Promise<ModelHours> => {
    calls.push(request);
    if (outage.on) throw new Error("Open-Meteo: http 503, not JSON");
    const first = Math.floor(clock.now() / DAY_MS) * DAY_MS - request.pastDays * DAY_MS;
    const time = Array.from({ length: (request.pastDays + request.forecastDays) * 24 }, (_, i) => first + i * HOUR_MS);
    return { time, waveHeight: Object.fromEntries(request.models.map((m) => [m, time.map((t) => Math.round(sea(t) * scales[m]! * 100) / 100)])) };
  };
  return { calls, source, outage };
}

function setUp(options: { enabled?: boolean; scales?: Record<string, number> } = {}) {
  const clock = new ManualClock(T0);
  const store = new MemoryObservationStore();
  const warnings: string[] = [];
  const logger = { info: () => {}, warn: (message: string) => warnings.push(message) };
  const fetcher = new NdbcFetcher({ baseUrl: ndbc.url, publicUrl: "https://surf.example", fetch: (url, init) => fetch(url, init), clock, store, logger });
  const forecastAsked: number[] = [];
  const observations = new ObservationsService({
    fetcher,
    clock,
    enabled: options.enabled ?? true,
    forecastAt: (_spot, hour): ForecastPoint => {
      forecastAsked.push(hour);
      return { time: isoUtc(hour), waveHeight: 1.9 };
    },
  });
  const scales = options.scales ?? { meteofrance_wave: 1.2, ecmwf_wam025: 1, ncep_gfswave025: 0.9 };
  const hindcast = hindcastOf(clock, scales);
  const verification = new VerificationService({ observations, store, clock, models: Object.keys(scales), hindcast: hindcast.source, logger });
  const advance = (ms: number) => {
    clock.advance(ms);
    fakeNow = clock.now();
  };
  return { clock, store, observations, verification, hindcast, forecastAsked, warnings, advance };
}

describe("observations at a spot", () => {
  test("a spot with a buoy: the nearest with waves, its latest reading beside the forecast, its last 24 hours", async () => {
    const { observations, forecastAsked } = setUp();
    const answer = await observations.observations(PIPELINE);
    expect(answer.spot).toEqual({ id: "banzai-pipeline", name: "Banzai Pipeline", timezone: "Pacific/Honolulu" });
    expect(answer.buoy).toEqual({ id: "51201", name: "Waimea Bay, HI (106)", lat: 21.671, lng: -158.118, distanceKm: 6.8, owner: "Pacific Islands Ocean Observing System" });
    expect(Object.keys(answer.latest!)).toEqual([
      ...["time", "ageMinutes", "waveHeight", "dominantPeriod", "averagePeriod", "waveDirection", "swellHeight", "swellPeriod", "swellDirection"],
      ...["windWaveHeight", "windWavePeriod", "windSpeed", "windGust", "windDirection", "waterTemperature", "airTemperature", "pressure"],
    ]);
    expect(answer.latest).toMatchObject({ time: "2026-11-21T12:50:00Z", ageMinutes: 15, waveHeight: Math.round(sea(Date.parse("2026-11-21T12:50:00Z")) * 10) / 10, dominantPeriod: 12, windSpeed: 25.2, swellDirection: 293, pressure: 1015.2 });
    expect(forecastAsked).toEqual([Date.parse("2026-11-21T13:00:00Z")]);
    expect(answer.forecast).toEqual({ time: "2026-11-21T13:00:00Z", waveHeight: 1.9 });
    expect(answer.hours).toHaveLength(24);
    expect(answer.hours[0]!.time).toBe("2026-11-20T14:00:00Z");
    expect(answer.hours[23]).toMatchObject({ time: "2026-11-21T13:00:00Z", waveHeight: answer.latest!.waveHeight });
    expect(answer.reason).toBeNull();
    expect(answer.attribution).toContain("National Data Buoy Center");
  });

  test("the hours move on with the clock and the buoy's new rows", async () => {
    const { observations, advance } = setUp();
    const first = await observations.observations(PIPELINE);
    expect((await observations.observations(PIPELINE)).hours).toEqual(first.hours);
    advance(HOUR_MS);
    const later = await observations.observations(PIPELINE);
    expect(later.hours.map((h) => h.time)).toEqual([...first.hours.slice(1).map((h) => h.time), "2026-11-21T14:00:00Z"]);
    expect(later.latest!.time).toBe("2026-11-21T13:50:00Z");
  });

  test("none in reach", async () => {
    const { observations } = setUp();
    expect(await observations.observations(PENICHE)).toMatchObject({ buoy: null, latest: null, forecast: null, hours: [], reason: "no_buoy_in_reach" });
  });

  test("a stale buoy: shown, with its hours, but no latest", async () => {
    const { observations } = setUp();
    ndbc.setStation("51201", { ageMinutes: 4 * 60 });
    const answer = await observations.observations(PIPELINE);
    expect(answer).toMatchObject({ buoy: { id: "51201" }, latest: null, forecast: null, reason: "stale" });
    expect(answer.hours.length).toBeGreaterThan(18);
  });

  test("the files fail: the stored reading while fresh, then source_unavailable", async () => {
    const { observations, advance } = setUp();
    await observations.observations(PIPELINE);
    ndbc.setStation("51201", { files: "html" });
    advance(HOUR_MS);
    expect(await observations.observations(PIPELINE)).toMatchObject({ latest: { time: "2026-11-21T12:50:00Z", ageMinutes: 75 }, reason: null });
    advance(3 * HOUR_MS);
    expect(await observations.observations(PIPELINE)).toMatchObject({ buoy: { id: "51201" }, latest: null, reason: "source_unavailable" });
  });

  for (const bad of ["html", "all_mm", "missing", "unavailable"] as const) {
    test(`a good reading survives a later bad file (${bad}), in /now's brief too, and after a restart`, async () => {
      const { observations, store, clock, advance } = setUp();
      const good = await observations.observations(PIPELINE);
      expect(good.latest).toMatchObject({ time: "2026-11-21T12:50:00Z", ageMinutes: 15 });
      ndbc.setStation("51201", { files: bad });
      advance(40 * MINUTE_MS); // past the buoy's half hour: its files are asked for again, and answer badly
      const before = ndbc.requestsFor("/data/realtime2/51201.txt").length;
      const after = await observations.observations(PIPELINE);
      expect(ndbc.requestsFor("/data/realtime2/51201.txt").length).toBe(before + 1);
      expect(after).toMatchObject({ buoy: { id: "51201" }, latest: { ...good.latest, ageMinutes: 55 }, reason: null });
      expect(await observations.current(PIPELINE)).toMatchObject({ buoy: { id: "51201" }, time: "2026-11-21T12:50:00Z", ageMinutes: 55 });
      // A server started again on the same store serves the good reading it kept, not the bad file.
      const fetcher = new NdbcFetcher({ baseUrl: ndbc.url, publicUrl: "https://surf.example", fetch: (url, init) => fetch(url, init), clock, store, logger: { info: () => {}, warn: () => {} } });
      const restarted = new ObservationsService({ fetcher, clock, enabled: true, forecastAt: () => null });
      expect((await restarted.observations(PIPELINE)).latest).toEqual(after.latest);
    });
  }

  test("a buoy whose only file is of MM: the source is unavailable", async () => {
    const { observations } = setUp();
    ndbc.setStation("51201", { files: "all_mm" });
    expect(await observations.observations(PIPELINE)).toMatchObject({ buoy: null, latest: null, reason: "source_unavailable" });
  });

  test("observations off: NDBC is never called", async () => {
    const { observations } = setUp({ enabled: false });
    expect(await observations.observations(PIPELINE)).toMatchObject({ buoy: null, latest: null, hours: [], reason: "observations_off" });
    expect(ndbc.requests).toEqual([]);
  });
});

describe("verification", () => {
  test("a model 20 % high is measured within a few percent; the best has the lowest scatter index", async () => {
    const { verification } = setUp();
    const answer = await verification.verification(PIPELINE);
    expect(answer).toMatchObject({ buoy: { id: "51201" }, from: "2026-10-22T13:00:00Z", to: "2026-11-21T13:00:00Z", reason: null, byLeadDay: [] });
    const of = (model: string) => answer.models.find((m) => m.model === model)!;
    expect(answer.models.map((m) => m.model)).toEqual(["meteofrance_wave", "ecmwf_wam025", "ncep_gfswave025"]);
    expect(of("meteofrance_wave").n).toBe(30 * 24);
    expect(Math.abs(of("meteofrance_wave").biasPercent! - 20)).toBeLessThan(3);
    expect(Math.abs(of("ncep_gfswave025").biasPercent! + 10)).toBeLessThan(3);
    expect(Math.abs(of("ecmwf_wam025").biasPercent!)).toBeLessThan(3);
    expect(answer.best).toBe("ecmwf_wam025");
    expect(answer.served.n).toBe(30 * 24);
  });

  test("one hindcast request a day per buoy, at the buoy, with the configured models and 45 past days", async () => {
    const { verification, hindcast, advance } = setUp();
    await verification.verification(PIPELINE, 7);
    await Promise.all([verification.verification(PIPELINE, 45), verification.verification(PIPELINE)]);
    expect(hindcast.calls).toEqual([{ lat: 21.671, lng: -158.118, models: ["meteofrance_wave", "ecmwf_wam025", "ncep_gfswave025"], pastDays: 45, forecastDays: 1 }]);
    advance(DAY_MS);
    await verification.verification(PIPELINE);
    expect(hindcast.calls).toHaveLength(2);
  });

  test("no buoy, or no hindcast: every model without pairs, and the reason", async () => {
    const { verification } = setUp();
    const none = await verification.verification(PENICHE);
    expect(none).toMatchObject({ buoy: null, best: null, byLeadDay: [], reason: "no_buoy_in_reach", served: { n: 0, bias: null } });
    expect(none.models.map((m) => m.n)).toEqual([0, 0, 0]);

    const failing = setUp();
    const warnings: string[] = [];
    const broken = new VerificationService({
      observations: failing.observations,
      store: failing.store,
      clock: failing.clock,
      models: ["ecmwf_wam025"],
      hindcast: async () => {
        throw new Error("http 503");
      },
      logger: { info: () => {}, warn: (message) => warnings.push(message) },
    });
    expect(await broken.verification(PIPELINE)).toMatchObject({ buoy: { id: "51201" }, reason: "source_unavailable", models: [{ model: "ecmwf_wam025", n: 0 }] });
    await broken.verification(PIPELINE);
    expect(warnings).toHaveLength(1);
  });

  test("days outside 7..45 are refused", () => {
    const { verification } = setUp();
    expect(() => verification.windowOf(6)).toThrow(RangeError);
    expect(() => verification.windowOf(46)).toThrow(RangeError);
    expect(() => verification.windowOf(7.5)).toThrow(RangeError);
  });

  test("forecasts kept by lead day meet their readings", async () => {
    const { verification } = setUp();
    const start = T0 - 10 * DAY_MS;
    for (let d = 0; d < 8; d++) {
      const issuedAt = Math.floor(start / DAY_MS) * DAY_MS + d * DAY_MS;
      const time = Array.from({ length: 7 * 24 }, (_, i) => issuedAt + (i + 1) * HOUR_MS);
      // Wrong by 5 % more each lead day.
      const height = (t: number) => sea(t) * (1 + 0.05 * Math.ceil((t - issuedAt) / DAY_MS));
      await verification.keepIssuedForecasts("51201", issuedAt, { time, waveHeight: { ecmwf_wam025: time.map(height), meteofrance_wave: time.map(() => null) } });
    }
    const answer = await verification.verification(PIPELINE);
    expect(answer.byLeadDay.map((d) => d.day)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const percent = answer.byLeadDay.map((d) => d.models.find((m) => m.model === "ecmwf_wam025")!.biasPercent!);
    expect(percent.every((p, i) => Math.abs(p - 5 * (i + 1)) < 2)).toBe(true);
    expect(answer.byLeadDay[0]!.models.find((m) => m.model === "meteofrance_wave")!.n).toBe(0);
  });
});

describe("issued forecasts from each refresh", () => {
  test("kept at the buoys in use only; byLeadDay fills as the days pass", async () => {
    const { verification, hindcast, advance } = setUp();
    expect(await verification.keepForecastsAtBuoys()).toEqual({ kept: 0, failed: 0 }); // no verification asked yet
    expect(hindcast.calls).toHaveLength(0);
    expect((await verification.verification(PIPELINE, 7)).byLeadDay).toEqual([]);
    // A refresh a day, the clock and the buoy moving on between them.
    for (let day = 0; day < 3; day++) {
      expect(await verification.keepForecastsAtBuoys()).toEqual({ kept: 1, failed: 0 });
      advance(DAY_MS);
    }
    expect(hindcast.calls.filter((c) => c.pastDays === 0)).toEqual(Array(3).fill({ lat: 21.671, lng: -158.118, models: ["meteofrance_wave", "ecmwf_wam025", "ncep_gfswave025"], pastDays: 0, forecastDays: 8 }));
    const { byLeadDay } = await verification.verification(PIPELINE, 7);
    // Lead day 1 of three issues has met its readings, day 2 of two, day 3 of one.
    expect(byLeadDay.map((d) => d.day)).toEqual([1, 2, 3]);
    expect(byLeadDay.map((d) => d.models[0]!.n)).toEqual([3 * 24, 2 * 24, 24].map((n) => expect.closeTo(n, -1)));
    for (const d of byLeadDay) {
      expect(d.models.map((m) => m.model)).toEqual(["meteofrance_wave", "ecmwf_wam025", "ncep_gfswave025"]);
      expect(d.models[0]!.biasPercent!).toBeGreaterThan(17); // meteofrance_wave 20 % high
      expect(d.models[0]!.biasPercent!).toBeLessThan(23);
    }
  });

  test("a buoy whose forecast request fails is skipped, with a warning, and kept at the next refresh", async () => {
    const { verification, hindcast, warnings } = setUp();
    await verification.verification(PIPELINE, 7);
    hindcast.outage.on = true;
    expect(await verification.keepForecastsAtBuoys()).toEqual({ kept: 0, failed: 1 });
    expect(warnings).toEqual(["the models' forecast at a buoy could not be kept for verification by lead day"]);
    hindcast.outage.on = false;
    expect(await verification.keepForecastsAtBuoys()).toEqual({ kept: 1, failed: 0 });
  });
});

describe("the correction", () => {
  test("every model 20 % high at a buoy 7 km away: ratios fitted, applied where they lower the held-out RMSE", async () => {
    const { verification } = setUp({ scales: { meteofrance_wave: 1.2, ecmwf_wam025: 1.25, ncep_gfswave025: 1.15 } });
    const correction = (await verification.correction(PIPELINE))!;
    expect(correction.buoy.id).toBe("51201");
    expect(correction.applied).toBe(true);
    expect(correction.ratios.meteofrance_wave!).toBeCloseTo(1 / 1.2, 1);
    expect(correction.heldOutRmse.after).toBeLessThan(correction.heldOutRmse.before);
  });

  test("unbiased models: nothing to gain, not applied", async () => {
    const { verification } = setUp({ scales: { meteofrance_wave: 1, ecmwf_wam025: 1 } });
    expect(await verification.correction(PIPELINE)).toMatchObject({ applied: false });
  });

  test("a buoy farther than 50 km, or none: no correction", async () => {
    const { verification } = setUp();
    expect(await verification.correction(SANTA_CRUZ)).toBeNull();
    expect(await verification.correction(PENICHE)).toBeNull();
  });
});
