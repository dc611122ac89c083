import { afterAll, beforeEach, expect, test } from "bun:test";
import { startFakeOpenMeteo } from "../../test/support/fake-open-meteo";
import { hindcastQuery, openMeteoHindcast, parseHindcast } from "./hindcast";

const openMeteo = await startFakeOpenMeteo({ firstDay: "2026-11-21" });
afterAll(() => openMeteo.close());
beforeEach(() => openMeteo.reset());

const source = openMeteoHindcast({ marineUrl: openMeteo.url + "/", apiKey: undefined, fetch: (url, init) => fetch(url, init) });
/** Waimea Bay's buoy. */
const BUOY = { lat: 21.671, lng: -158.118 };

test("one request: wave_height only, the models, past_days, unixtime", () => {
  expect(Object.fromEntries(hindcastQuery({ ...BUOY, models: ["ecmwf_wam025", "ncep_gfswave025"], pastDays: 45, forecastDays: 1 }, "k"))).toEqual({
    latitude: "21.671",
    longitude: "-158.118",
    hourly: "wave_height",
    models: "ecmwf_wam025,ncep_gfswave025",
    past_days: "45",
    forecast_days: "1",
    cell_selection: "sea",
    timezone: "GMT",
    timeformat: "unixtime",
    apikey: "k",
  });
});

test("several models: each one's column, epoch ms times", async () => {
  openMeteo.setModel("ecmwf_wam025", { scale: 1.2 });
  const hours = await source({ ...BUOY, models: ["meteofrance_wave", "ecmwf_wam025"], pastDays: 45, forecastDays: 1 });
  expect(openMeteo.requests).toMatchObject([{ endpoint: "marine", models: ["meteofrance_wave", "ecmwf_wam025"], variables: 1, locations: 1 }]);
  expect(hours.time[0]).toBe(Date.parse("2026-10-07T00:00:00Z")); // 45 past days before the first forecast day
  const [a, b] = [hours.waveHeight.meteofrance_wave!, hours.waveHeight.ecmwf_wam025!];
  expect(a).toHaveLength(hours.time.length);
  expect(b[0]!).toBeCloseTo(a[0]! * 1.2, 1);
});

test("one model: the plain column; a model's nulls stay null", async () => {
  const hours = await source({ ...BUOY, models: ["gwam"], pastDays: 45, forecastDays: 1 });
  // DWD GWAM stops 96 hours after the forecast's start, which comes after 45 past days.
  const start = 45 * 24;
  expect(hours.time[start]).toBe(Date.parse("2026-11-21T00:00:00Z"));
  expect(hours.waveHeight.gwam![start + 95]).not.toBeNull();
  expect(hours.waveHeight.gwam![start + 96]).toBeNull();
});

test("an error answer or a body that is not one throws, with the server's reason", async () => {
  await expect(source({ ...BUOY, models: ["no_such_model"], pastDays: 45, forecastDays: 1 })).rejects.toThrow("Cannot initialize MultiDomains");
  openMeteo.inject("truncated");
  await expect(source({ ...BUOY, models: ["ecmwf_wam025"], pastDays: 45, forecastDays: 1 })).rejects.toThrow("not JSON");
  expect(() => parseHindcast({ hourly: { time: [1], wave_height: [] } }, ["ecmwf_wam025"])).toThrow("no wave heights of ecmwf_wam025");
  expect(() => parseHindcast(null, ["ecmwf_wam025"])).toThrow("no hourly unixtime series");
});
