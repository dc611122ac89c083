/**
 * GET /v1/spots/{id}/tides for each tide source, through the in-process server and a refresh against the fake
 * Open-Meteo (every response checked against the served OpenAPI document): a station that agrees with the model,
 * the model where no station is in reach, a lake (no sea-level data), an enclosed sea (negligible range), a spot
 * the model has not been fetched for yet, and a model week that has run out.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock, startTestServer, type TestServer } from "../support/inprocess";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { refreshForecasts } from "../../src/server/refresh";
import type { ForecastResponse } from "../../src/forecast/types";
import type { TidesResponse } from "../../src/tides/types";
import type { Spot } from "../../src/spots/types";

const clock = new ManualClock(Date.parse("2026-11-21T13:25:00Z"));
let fake: FakeOpenMeteo;
let server: TestServer;
let key: string;
const spots: Record<"station" | "model" | "lake" | "enclosed" | "unfetched", Spot> = {} as never;

beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: "2026-11-21" }); // the day of the tests' clock
  server = await startTestServer({ clock, env: { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url } });
  key = await server.key("pro");
  const find = (name: string, country: string) => server.app.spots.all().find((s) => s.name === name && s.country === country)!;
  spots.station = find("Supertubos", "Portugal");
  spots.model = find("Anchor point", "Morocco");
  spots.lake = find("Sheboygan", "USA");
  spots.enclosed = server.app.spots.all().find((s) => s.country === "Bulgaria")!;
  spots.unfetched = find("Boilers", "Morocco");
  for (const [kind, spot] of Object.entries(spots)) if (!spot) throw new Error(`no catalog spot for ${kind}`);
  const { station, model, lake, enclosed } = spots;
  const summary = await refreshForecasts(server.app, { spots: [station, model, lake, enclosed] });
  expect(summary.failedBatches).toBe(0);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await fake?.close();
});

const tides = async (spot: Spot, days = 7) => {
  const res = await server.get(`/v1/spots/${spot.id}/tides?days=${days}`, key);
  expect(res.status).toBe(200);
  return (await res.json()) as TidesResponse;
};

test("the refresh asked the Marine API for the sea level", async () => {
  expect(fake.requests.some((r) => r.endpoint === "marine")).toBe(true);
  expect((await server.app.tides.sourceOf(spots.model.id)).source).toBe("model");
});

test("station: a station in reach whose range agrees with the model's serves the spot (chart datum)", async () => {
  const body = await tides(spots.station);
  expect(body).toMatchObject({ tideless: false, tidelessReason: null, unavailable: null, source: { type: "station" } });
  expect(body.source).toEqual({ type: "station", id: body.station!.id, name: body.station!.name, distanceKm: body.station!.distanceKm, provider: body.station!.source });
  expect(body.datum).not.toBe("MSL");
  expect(body.extremes.length).toBeGreaterThanOrEqual(24);
  expect((await server.app.tides.sourceOf(spots.station.id)).reason).toContain("agrees with the model");
});

test("model: no station in reach; extremes from the model's series above MSL, and the forecast's hourly tide from the same series", async () => {
  const body = await tides(spots.model);
  expect(body).toMatchObject({ tideless: false, datum: "MSL", station: null, unavailable: null });
  expect(body.source).toEqual({ type: "model", name: expect.stringContaining("Open-Meteo Marine"), variable: "sea_level_height_msl", fetchedAt: "2026-11-21T13:25:00Z" });
  expect(body.extremes.length).toBeGreaterThanOrEqual(18);
  for (let i = 1; i < body.extremes.length; i++) expect(body.extremes[i]!.type).not.toBe(body.extremes[i - 1]!.type);
  expect(Date.parse(body.extremes[0]!.time)).toBeGreaterThanOrEqual(clock.now());
  // Sub-hour timing: not every extreme sits on a full hour.
  expect(body.extremes.some((e) => !e.time.endsWith(":00:00Z"))).toBe(true);

  const forecast = (await (await server.get(`/v1/spots/${spots.model.id}/forecast?days=7`, key)).json()) as ForecastResponse;
  const hours = forecast.hours.filter((h) => h.tide !== null);
  expect(hours.length).toBe(forecast.hours.length);
  // Each high water lies between a rising hour and a falling one, and no hour is above it.
  const high = body.extremes.find((e) => e.type === "high" && Date.parse(e.time) < Date.parse(forecast.hours.at(-2)!.time))!;
  const before = forecast.hours.findLast((h) => Date.parse(h.time) <= Date.parse(high.time))!;
  const after = forecast.hours.find((h) => Date.parse(h.time) > Date.parse(high.time))!;
  expect(before.tide!.state).toBe("rising");
  expect(after.tide!.state).toBe("falling");
  expect(Math.max(before.tide!.height, after.tide!.height)).toBeLessThanOrEqual(high.height + 0.005);
});

test("lake: no sea-level data and no station → tideless, saying why", async () => {
  const body = await tides(spots.lake);
  expect(body).toMatchObject({ tideless: true, extremes: [], datum: null, station: null, source: null, unavailable: null });
  expect(body.tidelessReason).toStartWith("no sea-level data");
  const forecast = (await (await server.get(`/v1/spots/${spots.lake.id}/forecast?days=1`, key)).json()) as ForecastResponse;
  expect(forecast.hours.every((h) => h.tide === null)).toBe(true);
});

test("enclosed sea: the model's range is below the threshold → tideless (negligible tide)", async () => {
  const body = await tides(spots.enclosed);
  expect(body).toMatchObject({ tideless: true, extremes: [], source: null });
  expect(body.tidelessReason).toStartWith("negligible tide: model range");
});

test("not fetched yet: tidal-or-not unknown → not tideless, empty, unavailable: awaiting_model", async () => {
  expect(await tides(spots.unfetched)).toMatchObject({ tideless: false, extremes: [], source: null, unavailable: "awaiting_model" });
});

test("outage: the stored model week runs out → the last stored extremes, then an empty list with unavailable: model_expired", async () => {
  clock.set(Date.parse("2026-11-27T12:00:00Z"));
  const late = await tides(spots.model);
  expect(late).toMatchObject({ tideless: false, unavailable: null, source: { type: "model" } });
  expect(late.extremes.length).toBeGreaterThan(0);
  expect(late.extremes.length).toBeLessThan(6);
  clock.set(Date.parse("2026-11-29T00:00:00Z"));
  expect(await tides(spots.model)).toMatchObject({ tideless: false, extremes: [], datum: "MSL", unavailable: "model_expired", source: { type: "model" } });
  // The station keeps predicting; the lake stays tideless.
  expect((await tides(spots.station)).extremes.length).toBeGreaterThan(10);
  expect((await tides(spots.lake)).tideless).toBe(true);
});
