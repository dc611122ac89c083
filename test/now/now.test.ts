/**
 * GET /v1/spots/{id}/now and GET /v1/now end to end (in-process server, injected clock, fake Open-Meteo; every
 * response checked against the served OpenAPI document by apiFetch): agreement with /tides and /forecast, the
 * tide state, tideless and forecast-less spots, units, the 1.5 KB bound, ETag/304, the multi-spot form and its
 * counting, and a stored tide window that ends before the next extreme.
 */
import { sqliteDb } from "../support/inprocess";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock, startTestServer, type TestServer } from "../support/inprocess";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { startFakeNdbc, type FakeNdbc } from "../support/fake-ndbc";
import { refreshForecasts } from "../../src/server/refresh";
import type { ForecastResponse } from "../../src/forecast/types";
import type { TidesResponse } from "../../src/tides/types";
import type { NowManyResponse, NowResponse } from "../../src/now/types";
import { fahrenheit, feet, mph } from "../../src/core/units";
import { HOUR_UNITS } from "../../src/forecast/units";
import { sunAt } from "../../src/forecast/sun";
import { NOW_ATTRIBUTION } from "../../src/now/service";
import { writeDocuments, readDocument } from "../../src/forecast/sqlite-store";
import type { Spot } from "../../src/spots/types";

type Json = Record<string, any>;

const START = Date.parse("2026-11-21T13:25:00Z");
const clock = new ManualClock(START);
let fake: FakeOpenMeteo;
let ndbc: FakeNdbc;
/** A wave buoy near the longest-named spot, with a name as long as NDBC's longest, far and high: the largest `observation`. */
const LONG_BUOY = { id: "46012", name: "SD 1077 - 24 NM SSW of San Francisco, CA (Site of 46012)", waveHeight: () => 12.3, ageMinutes: 100 };
let server: TestServer;
let key: string;
/** Supertubos (Portugal, LAT), Pipeline (Hawaii, NOAA), a Great Lakes spot (tideless), the longest-named spot. */
let tidal: Spot;
let hawaii: Spot;
let lake: Spot;
let longest: Spot;
/** A tidal spot left without a forecast document. */
let bare: Spot;

beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: "2026-11-21" }); // the day of the tests' clock
  // The buoy is placed once the longest-named spot is known (the station table is read at the first answer).
  ndbc = await startFakeNdbc({ stations: [{ ...LONG_BUOY, lat: 0, lng: 0 }], now: () => clock.now() });
  server = await startTestServer({ clock, env: { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_NDBC_URL: ndbc.url } });
  key = await server.key("pro");
  const nearest = (lat: number, lng: number) => server.app.spots.nearby({ lat, lng, radius: 50, limit: 1 })[0]!;
  tidal = nearest(39.344, -9.363);
  hawaii = server.app.spots.get("pipeline");
  lake = server.app.spots.search({ q: "Sheboygan", limit: 50 }).find((s) => /Great Lakes/.test(`${s.country}, ${s.region}`))!;
  longest = [...server.app.spots.all()].sort((a, b) => b.name.length - a.name.length || a.id.localeCompare(b.id))[0]!;
  bare = nearest(43.48, -1.56);
  ndbc.setStation(LONG_BUOY.id, { lat: longest.lat + 99.4 / 111.2, lng: longest.lng });
  const summary = await refreshForecasts(server.app, { spots: [tidal, hawaii, lake, longest] });
  expect(summary.failedBatches).toBe(0);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await fake?.close();
  await ndbc?.close();
});

const bytes = (text: string) => new TextEncoder().encode(text).length;

/** At most 1.5 KB, and the buoy's reading at most 0.25 KB more when there is one. */
function expectWithinBound(body: string) {
  const { observation } = JSON.parse(body) as NowResponse;
  const observationBytes = observation ? bytes(`,"observation":${JSON.stringify(observation)}`) : 0;
  expect(observationBytes).toBeLessThanOrEqual(256);
  expect(bytes(body) - observationBytes).toBeLessThanOrEqual(1536);
}

async function now(path: string, headers: Record<string, string> = {}): Promise<{ res: Response; body: NowResponse }> {
  const res = await server.get(path, key, headers);
  expect(res.status).toBe(200);
  return { res, body: (await res.clone().json()) as NowResponse };
}

const storedExtremes = (spotId: string) =>
  sqliteDb(server.app).$client.query<{ time: number; type: string; height: number }, [string]>("SELECT time, type, height FROM tide_extremes WHERE spot_id = ? ORDER BY time").all(spotId);

describe("sunAt (pure)", () => {
  // Bali under timezone=GMT: the row of 21 Nov has its sunrise on 20 Nov (UTC).
  const day = (date: string, sunrise: string | null, sunset: string | null) => ({ date, sunrise, sunset, uvIndexMax: 5 });
  const daily = [
    day("2026-11-21", "2026-11-20T21:49:00Z", "2026-11-21T10:21:00Z"),
    day("2026-11-22", "2026-11-21T21:49:00Z", "2026-11-22T10:22:00Z"),
    day("2026-11-23", null, null),
  ];
  const cases: [string, string, ReturnType<typeof sunAt>][] = [
    ["before the first sunrise", "2026-11-20T20:00:00Z", { sunrise: "2026-11-20T21:49:00Z", sunset: "2026-11-21T10:21:00Z", daylight: false }],
    ["at sunrise", "2026-11-20T21:49:00Z", { sunrise: "2026-11-20T21:49:00Z", sunset: "2026-11-21T10:21:00Z", daylight: true }],
    ["in daylight, on the next UTC date", "2026-11-21T03:00:00Z", { sunrise: "2026-11-20T21:49:00Z", sunset: "2026-11-21T10:21:00Z", daylight: true }],
    ["at sunset: the night belongs to the next daylight", "2026-11-21T10:21:00Z", { sunrise: "2026-11-21T21:49:00Z", sunset: "2026-11-22T10:22:00Z", daylight: false }],
    ["a day without sunrise or sunset (polar)", "2026-11-22T12:00:00Z", { sunrise: null, sunset: null, daylight: null }],
  ];
  for (const [name, at, expected] of cases) test(name, () => expect(sunAt(daily, Date.parse(at))).toEqual(expected));
  test("no rows left: null", () => expect(sunAt(daily.slice(0, 2), Date.parse("2026-11-23T00:00:00Z"))).toBeNull());
});

describe("GET /v1/spots/{id}/now", () => {
  test("agrees with /tides and /forecast: next high and low, height between the extremes, the current hour, datum, sun", async () => {
    for (const spot of [tidal, hawaii]) {
      const { body } = await now(`/v1/spots/${spot.id}/now`);
      const tides = (await (await server.get(`/v1/spots/${spot.id}/tides?days=2`, key)).json()) as TidesResponse;
      const forecast = (await (await server.get(`/v1/spots/${spot.id}/forecast?days=1`, key)).json()) as ForecastResponse;
      expect(body.spot).toEqual({ id: spot.id, name: spot.name, country: spot.country, timezone: spot === tidal ? "Europe/Lisbon" : "Pacific/Honolulu" });
      expect(body.time).toBe("2026-11-21T13:25:00Z");
      expect(body.units).toBe("metric");
      expect(body.updatedAt).toBe(forecast.updatedAt);
      expect(body.attribution).toBe(NOW_ATTRIBUTION);
      for (const credit of ["Open-Meteo.com", "CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/"]) expect(forecast.attribution).toContain(credit);
      expect(body.conditions).toEqual(forecast.hours[0]!);

      const tide = body.tide!;
      const firstHigh = tides.extremes.find((e) => e.type === "high")!;
      const firstLow = tides.extremes.find((e) => e.type === "low")!;
      expect(tide.nextHigh).toEqual({ time: firstHigh.time, height: firstHigh.height });
      expect(tide.nextLow).toEqual({ time: firstLow.time, height: firstLow.height });
      expect(tide.nextEvent).toMatchObject(tides.extremes[0]!);
      expect(tide.nextEvent.minutesUntil).toBe((Date.parse(tides.extremes[0]!.time) - START) / 60_000);
      expect(tide.state).toBe(tides.extremes[0]!.type === "high" ? "rising" : "falling");
      expect(tide.datum).toBe(tides.datum);
      expect(tide.station).toEqual(tides.station);
      const previous = storedExtremes(spot.id).filter((e) => e.time < START).at(-1)!;
      expect(tide.height).toBeGreaterThanOrEqual(Math.min(previous.height, tide.nextEvent.height));
      expect(tide.height).toBeLessThanOrEqual(Math.max(previous.height, tide.nextEvent.height));

      const day = forecast.daily.find((d) => d.sunset && Date.parse(d.sunset) > START)!;
      expect(body.sun).toEqual({ sunrise: day.sunrise, sunset: day.sunset, daylight: Date.parse(day.sunrise!) <= START });
    }
    // 13:25 UTC is afternoon in Lisbon, before dawn in Hawaii.
    expect((await now(`/v1/spots/${tidal.id}/now`)).body.sun!.daylight).toBe(true);
    expect((await now(`/v1/spots/${hawaii.id}/now`)).body.sun!.daylight).toBe(false);
  });

  test("at the start of an hour the tide height is the forecast hour's (the same predicted curve)", async () => {
    clock.set("2026-11-21T15:00:00Z");
    try {
      const { body } = await now(`/v1/spots/${tidal.id}/now`);
      expect(body.conditions!.time).toBe("2026-11-21T15:00:00Z");
      expect(body.tide!.height).toBe(body.conditions!.tide!.height);
      expect(body.tide!.state).toBe(body.conditions!.tide!.state);
    } finally {
      clock.set(START);
    }
  });

  test("a tideless spot: tide null; a spot without a forecast: conditions, sun and updatedAt null, the tide still there", async () => {
    const still = (await now(`/v1/spots/${lake.id}/now`)).body;
    expect(still.tide).toBeNull();
    expect(still.conditions!.tide).toBeNull();
    const none = (await now(`/v1/spots/${bare.id}/now`)).body;
    expect(none).toMatchObject({ conditions: null, sun: null, updatedAt: null });
    expect(none.tide!.nextHigh.time).toMatch(/Z$/);
  });

  test("units=imperial: feet, mph and °F in every unit-bearing field; anything else is a 400", async () => {
    const metric = (await now(`/v1/spots/${tidal.id}/now`)).body;
    const imperial = (await now(`/v1/spots/${tidal.id}/now?units=imperial`)).body;
    const m = metric.conditions!;
    const i = imperial.conditions!;
    expect(imperial.units).toBe("imperial");
    expect(i).toEqual({
      ...m,
      waveHeight: feet(m.waveHeight),
      swellHeight: feet(m.swellHeight),
      windSpeed: mph(m.windSpeed),
      windGust: mph(m.windGust),
      airTemperature: fahrenheit(m.airTemperature),
      waterTemperature: fahrenheit(m.waterTemperature),
      tide: { ...m.tide!, height: feet(m.tide!.height) },
      // The surf range and the swell components of issue #16 convert too.
      ...(m.surf ? { surf: { min: feet(m.surf.min), max: feet(m.surf.max) } } : {}),
      ...(m.swells ? { swells: m.swells.map((c) => ({ ...c, height: feet(c.height) })) } : {}),
      ...(m.confidence ? { confidence: { ...m.confidence, waveHeight: { min: feet(m.confidence.waveHeight.min), median: feet(m.confidence.waveHeight.median), max: feet(m.confidence.waveHeight.max) } } } : {}),
    });
    expect(m.surf).toBeDefined();
    expect(feet(1)).toBe(3.28);
    expect(mph(100)).toBe(62.1);
    expect(fahrenheit(20)).toBe(68);
    const t = metric.tide!;
    expect(imperial.tide).toEqual({
      ...t,
      height: feet(t.height),
      nextHigh: { ...t.nextHigh, height: feet(t.nextHigh.height) },
      nextLow: { ...t.nextLow, height: feet(t.nextLow.height) },
      nextEvent: { ...t.nextEvent, height: feet(t.nextEvent.height) },
    });
    expect((await now(`/v1/spots/${tidal.id}/now?units=metric`)).body).toEqual(metric);
    for (const bad of ["Imperial", "feet", "", "metric&units=metric"]) {
      const res = await server.get(`/v1/spots/${tidal.id}/now?units=${bad}`, key);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    }
  });

  test("every numeric field of the served ForecastHour is either converted for imperial or has no unit to convert", async () => {
    const doc = (await (await fetch(server.url + "/openapi.json")).json()) as { components: { schemas: Record<string, any> } };
    const schemas = doc.components.schemas;
    const UNITLESS = ["wavePeriod", "waveDirection", "windDirection", "weatherCode", "rating", "swells[].period", "swells[].direction", "confidence.models"];
    const leaves: string[] = [];
    const walk = (schema: any, path: string) => {
      if (schema.$ref) return walk(schemas[schema.$ref.split("/").pop()], path);
      for (const branch of schema.anyOf ?? schema.oneOf ?? []) walk(branch, path);
      if (schema.items) walk(schema.items, `${path}[]`);
      for (const [name, inner] of Object.entries<any>(schema.properties ?? {})) walk(inner, path ? `${path}.${name}` : name);
      const types = [schema.type].flat();
      if (types.includes("number") || types.includes("integer")) leaves.push(path);
    };
    walk(schemas.ForecastHour, "");
    const converted = (path: string) => {
      let rule: unknown = HOUR_UNITS;
      for (const part of path.split(".")) {
        const name = part.replace("[]", "");
        rule = (rule as Record<string, unknown>)?.[name];
        if (Array.isArray(rule) && part.endsWith("[]")) rule = rule[0];
      }
      return typeof rule === "function";
    };
    const unclassified = leaves.filter((p) => !converted(p) && !UNITLESS.some((u) => p === u || p.startsWith(`${u}.`)));
    expect(unclassified).toEqual([]);
    expect(leaves.length).toBeGreaterThan(10);
  });

  test("a kept answer is served until the forecast documents may have changed (a refresh wrote, another process did)", async () => {
    const first = await server.app.now.get(hawaii.id, "metric");
    expect((await server.app.now.get(hawaii.id, "metric")).response).toBe(first.response); // kept
    server.app.forecasts.invalidate(); // what a refresh does after writing documents
    const after = await server.app.now.get(hawaii.id, "metric");
    expect(after.response).not.toBe(first.response); // rebuilt from the documents as they are now
    expect(after.body).toBe(first.body); // the same documents: the same answer
  });

  test("at most 1.5 KB (and a buoy reading of at most 0.25 KB), metric and imperial, the longest spot name included", async () => {
    for (const spot of [tidal, hawaii, lake, longest, bare]) {
      for (const units of ["metric", "imperial"]) {
        const res = await server.get(`/v1/spots/${spot.id}/now?units=${units}`, key);
        expect(res.status).toBe(200);
        expectWithinBound(await res.text());
      }
    }
  });

  test("fields stored in forecast hours beyond the spec (surf, swells, confidence) pass through, converted, within 1.5 KB", async () => {
    const swell = (kind: string, height: number) => ({ kind, height, period: 13.25, direction: 287 });
    for (const spot of [longest, tidal, hawaii]) {
      const row = readDocument(sqliteDb(server.app), spot.id)!;
      const stored = JSON.parse(row.body) as { hours: Json[] };
      for (const hour of stored.hours) {
        hour.surf = { min: 1.25, max: 1.75 };
        // The three components the refresh asks for (forecast/swells.ts) and the models' agreement, at their widest.
        hour.swells = [swell("primary", 2.25), swell("secondary", 1.05), swell("wind", 0.85)];
        hour.confidence = { level: "medium", models: 4, waveHeight: { min: 10.25, median: 11.25, max: 12.75 } };
      }
      try {
        writeDocuments(sqliteDb(server.app), row.updatedAt + 1, [{ spotId: spot.id, body: JSON.stringify(stored) }]);
        server.app.forecasts.invalidate();
        const metric = await server.app.now.get(spot.id, "metric");
        const imperial = await server.app.now.get(spot.id, "imperial");
        expect((metric.response.conditions as unknown as Json).surf).toEqual({ min: 1.25, max: 1.75 });
        expect((imperial.response.conditions as unknown as Json).surf).toEqual({ min: feet(1.25), max: feet(1.75) });
        expect((imperial.response.conditions as unknown as Json).swells[0]).toEqual({ kind: "primary", height: feet(2.25), period: 13.25, direction: 287 });
        expect((imperial.response.conditions as unknown as Json).confidence).toEqual({ level: "medium", models: 4, waveHeight: { min: feet(10.25), median: feet(11.25), max: feet(12.75) } });
        if (spot === longest) expect([metric.response.observation?.buoy.distanceKm, imperial.response.observation?.waveHeight]).toEqual([99.4, feet(12.3)]);
        for (const served of [metric, imperial]) expectWithinBound(served.body);
      } finally {
        writeDocuments(sqliteDb(server.app), row.updatedAt, [{ spotId: spot.id, body: row.body }]);
        server.app.forecasts.invalidate();
      }
    }
  });

  test("ETag: the same content keeps its ETag (304 with If-None-Match), new content gets a new one; max-age until the minute ends", async () => {
    clock.set(START + 20_000);
    try {
      const first = await now(`/v1/spots/${tidal.id}/now`);
      const etag = first.res.headers.get("etag")!;
      expect(first.res.headers.get("cache-control")).toBe("private, max-age=40");
      clock.advance(30_000);
      const again = await server.get(`/v1/spots/${tidal.id}/now`, key, { "If-None-Match": etag });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      clock.advance(20_000); // the next minute: the tide moved on
      const later = await now(`/v1/spots/${tidal.id}/now`, { "If-None-Match": etag });
      expect(later.res.headers.get("etag")).not.toBe(etag);
      expect(later.body.tide!.nextEvent.minutesUntil).toBe(first.body.tide!.nextEvent.minutesUntil - 1);
      clock.set(START + 5_000); // the first minute again: the same content, so the same ETag
      expect((await now(`/v1/spots/${tidal.id}/now`)).res.headers.get("etag")).toBe(etag);
      const imperial = await now(`/v1/spots/${tidal.id}/now?units=imperial`);
      expect(imperial.res.headers.get("etag")).not.toBe(etag);
    } finally {
      clock.set(START);
    }
  });

  test("the stored window ends before the next extreme: the missing days are predicted, the answer still agrees with /tides", async () => {
    const at = Date.parse("2026-11-21T18:40:00Z");
    clock.set(at);
    try {
      const before = storedExtremes(hawaii.id).length;
      sqliteDb(server.app).$client.query("DELETE FROM tide_extremes WHERE spot_id = ? AND time > ?").run(hawaii.id, at);
      expect(storedExtremes(hawaii.id).length).toBeLessThan(before);
      const { body } = await now(`/v1/spots/${hawaii.id}/now`);
      expect(storedExtremes(hawaii.id).length).toBe(before);
      const tides = (await (await server.get(`/v1/spots/${hawaii.id}/tides?days=2`, key)).json()) as TidesResponse;
      expect(body.tide!.nextEvent).toMatchObject(tides.extremes[0]!);
      expect(body.tide!.nextHigh.time).toBe(tides.extremes.find((e) => e.type === "high")!.time);
      expect(body.tide!.nextLow.time).toBe(tides.extremes.find((e) => e.type === "low")!.time);
    } finally {
      clock.set(START);
    }
  });

  test("errors: unknown spot 404, no key 401", async () => {
    const missing = await server.get("/v1/spots/no-such-spot-anywhere/now", key);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect((await server.get(`/v1/spots/${tidal.id}/now`, null)).status).toBe(401);
  });
});

describe("GET /v1/now", () => {
  test("the single answers in the order asked, ids or hex ids; ETag and 304 too", async () => {
    const ids = [hawaii.id, lake.id, tidal.hexId];
    const res = await server.get(`/v1/now?spots=${ids.join(",")}&units=imperial`, key);
    expect(res.status).toBe(200);
    const body = (await res.json()) as NowManyResponse;
    expect(body.spots.map((s) => s.spot.id)).toEqual([hawaii.id, lake.id, tidal.id]);
    for (const [i, id] of ids.entries()) expect(body.spots[i]).toEqual((await now(`/v1/spots/${id}/now?units=imperial`)).body);
    const etag = res.headers.get("etag")!;
    expect((await server.get(`/v1/now?spots=${ids.join(",")}&units=imperial`, key, { "If-None-Match": etag })).status).toBe(304);
  });

  test("counted once per spot as `now`; refused whole when the quota has fewer left than it asks for", async () => {
    const small = await server.key("starter", { dailyLimit: 5 });
    expect((await server.get(`/v1/now?spots=${tidal.id},${hawaii.id},${lake.id}`, small)).status).toBe(200);
    const refused = await server.get(`/v1/now?spots=${tidal.id},${hawaii.id},${lake.id}`, small);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await server.get(`/v1/spots/${tidal.id}/now`, small)).status).toBe(200);
    const usage = (await (await server.get("/v1/usage", small)).json()) as { today: number; days: { byEndpoint: Record<string, number> }[] };
    expect(usage.today).toBe(4);
    expect(usage.days.at(-1)!.byEndpoint.now).toBe(4);
  });

  test("404 names every unknown id; strict 400s for the list", async () => {
    const res = await server.get(`/v1/now?spots=${tidal.id},nowhere-one,nowhere-two`, key);
    expect(res.status).toBe(404);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("not_found");
    expect(error.message).toContain("'nowhere-one', 'nowhere-two'");
    const many = Array.from({ length: 21 }, () => tidal.id).map((id, i) => `${id}${i}`).join(",");
    for (const bad of ["", `${tidal.id},`, `${tidal.id},${tidal.id}`, many, `${tidal.id}&spots=${hawaii.id}`, `${tidal.id}&units=si`]) {
      const r = await server.get(`/v1/now?spots=${bad}`, key);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    }
    expect((await server.get("/v1/now", key)).status).toBe(400);
  });
});
