/**
 * Forecast domain without a network: Open-Meteo request building and parsing (single, multi, unixtime,
 * null tails, broken bodies), document assembly, and serving from stored documents (window, days, daily,
 * ETag, caching, errors).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { OPEN_METEO_FIXTURES, tempDir } from "../../test/support/env";
import { ManualClock } from "../core/clock";
import { ApiError } from "../core/errors";
import { openDatabase } from "../db";
import { assembleDocument } from "./document";
import { isoUtc } from "../core/clock";
import { callWeight, parseResponse, requestParams, UpstreamError, WEIGHT_PER_LOCATION, type LocationSeries } from "./openmeteo";
import { ForecastService } from "./service";
import { sqliteForecastStore } from "./sqlite-store";
import { changeCheck } from "../db/changes";
import { writeDocuments } from "./sqlite-store";
import { SWELL_COMPONENT_VARIABLES } from "./swells";
import { ATTRIBUTION, type ForecastResponse } from "./types";
import { waitFor } from "../../test/support/wait";

const fixture = (name: string) => readFileSync(join(OPEN_METEO_FIXTURES, name), "utf8");
const README = fixture("README.md");
const noTides = (times: number[]) => times.map(() => null);

function parsedMulti(): { marine: LocationSeries[]; forecast: LocationSeries[] } {
  return { marine: parseResponse(fixture("marine_multi.json"), "marine", 3), forecast: parseResponse(fixture("forecast_multi.json"), "forecast", 3) };
}

/** A fixture body with every time turned into epoch seconds, as `timeformat=unixtime` answers. */
function toUnixtime(text: string): string {
  const toSeconds = (v: unknown) => (typeof v === "string" ? Date.parse(v.length === 10 ? `${v}T00:00:00Z` : `${v}:00Z`) / 1000 : v);
  const convert = (loc: Record<string, any>) => {
    loc.hourly_units.time = "unixtime";
    loc.hourly.time = loc.hourly.time.map(toSeconds);
    if (loc.daily) {
      for (const k of ["time", "sunrise", "sunset"]) loc.daily[k] = loc.daily[k].map(toSeconds);
      loc.daily_units.time = loc.daily_units.sunrise = loc.daily_units.sunset = "unixtime";
    }
    return loc;
  };
  const json = JSON.parse(text);
  return JSON.stringify(Array.isArray(json) ? json.map(convert) : convert(json));
}

describe("Open-Meteo requests", () => {
  test("parameters are exactly the documented requests (GET query of the fixtures' README)", () => {
    const points = [
      { lat: 39.344, lng: -9.363 },
      { lat: -8.815, lng: 115.0867 },
      { lat: 21.665, lng: -158.053 },
    ];
    const readmeQuery = (path: string) => {
      const line = README.split("\n").find((l) => l.startsWith("GET ") && l.includes(path) && l.includes("latitude=39.344,-8.815"))!;
      return decodeURIComponent(line.slice(line.indexOf("?") + 1));
    };
    // The marine request asks for the README's variables plus the other wave components (forecast/swells.ts) and the
    // sea level (the model tide, docs/tides.md).
    const marine = readmeQuery("/v1/marine").replace(/hourly=([^&]*)/, (_, list) => `hourly=${list},${SWELL_COMPONENT_VARIABLES.join(",")},sea_level_height_msl`);
    expect(decodeURIComponent(requestParams("marine", points, "iso8601").toString())).toBe(marine);
    expect(decodeURIComponent(requestParams("forecast", points, "iso8601").toString())).toBe(readmeQuery("/v1/forecast"));
    expect(requestParams("forecast", points, "unixtime", "k3y").get("apikey")).toBe("k3y");
    expect(requestParams("forecast", points, "unixtime").get("timeformat")).toBe("unixtime");
  });

  test("call weight: 1.4 per marine location (14 variables), 1.0 per forecast location; more variables or days weigh more", () => {
    expect(WEIGHT_PER_LOCATION).toEqual({ marine: 1.4, forecast: 1 });
    expect(callWeight(20, 7)).toBe(2);
    expect(callWeight(10, 28)).toBe(2);
    expect(callWeight(3, 16)).toBe(1);
  });
});

describe("Open-Meteo parsing", () => {
  test("single location: a bare object with 168 GMT hours and the null tail kept as null", () => {
    const [loc] = parseResponse(fixture("marine_single.json"), "marine", 1);
    expect(loc!.hourly.time).toHaveLength(168);
    expect(isoUtc(loc!.hourly.time[0]!)).toBe("2026-11-21T00:00:00Z");
    expect(isoUtc(loc!.hourly.time[167]!)).toBe("2026-11-27T23:00:00Z");
    expect(loc!.hourly.values.wave_height!.slice(-3)).toEqual([2.54, null, null]);
    expect(loc!.hourly.values.sea_surface_temperature!.at(-1)).toBe(15.9);
    expect(loc!.lat).toBe(39.375);
  });

  test("a value that is not a finite number reads as null; the other values of its series are kept", () => {
    const text = fixture("marine_single.json").replace(/"wave_height":\s*\[\s*([-\d.]+)/, '"wave_height": [1e999').replace(/"wave_period":\s*\[\s*([-\d.]+)/, '"wave_period": ["8"');
    const [clean] = parseResponse(fixture("marine_single.json"), "marine", 1);
    const [loc] = parseResponse(text, "marine", 1);
    expect(loc!.hourly.values.wave_height![0]).toBeNull();
    expect(loc!.hourly.values.wave_period![0]).toBeNull();
    expect(loc!.hourly.values.wave_height!.slice(1)).toEqual(clean!.hourly.values.wave_height!.slice(1));
    expect(loc!.hourly.values.wave_direction).toEqual(clean!.hourly.values.wave_direction);
  });

  test("multi location: order follows location_id, whatever the array order", () => {
    const body = JSON.parse(fixture("forecast_multi.json")) as unknown[];
    const reversed = parseResponse(JSON.stringify([...body].reverse()), "forecast", 3);
    const inOrder = parseResponse(JSON.stringify(body), "forecast", 3);
    expect(reversed).toEqual(inOrder);
    expect(inOrder.map((l) => l.daily!.uvIndexMax[0])).toEqual([2.45, 11.85, 7.35]);
    expect(inOrder[1]!.daily!.sunrise[0]).toBe(Date.parse("2026-11-20T21:49:00Z"));
    expect(inOrder[2]!.daily!.sunset[0]).toBe(Date.parse("2026-11-22T03:49:00Z"));
  });

  test("unixtime and iso8601 parse to the same series", () => {
    for (const [name, endpoint] of [
      ["marine_multi.json", "marine"],
      ["forecast_multi.json", "forecast"],
    ] as const) {
      expect(parseResponse(toUnixtime(fixture(name)), endpoint, 3)).toEqual(parseResponse(fixture(name), endpoint, 3));
    }
  });

  test("truncated, invalid, short, wrong-length and all-null bodies are retryable upstream errors", () => {
    const multi = fixture("marine_multi.json");
    const cases: [string, number][] = [
      [multi.slice(0, multi.length / 2), 3],
      ["<html>502 Bad Gateway</html>", 3],
      [multi, 4],
      [JSON.stringify(JSON.parse(multi).map((l: any) => ({ ...l, hourly: { ...l.hourly, wave_height: l.hourly.wave_height.slice(1) } }))), 3],
      [JSON.stringify(JSON.parse(multi).map((l: any) => ({ ...l, hourly: Object.fromEntries(Object.entries(l.hourly).map(([k, v]: [string, any]) => [k, k === "time" ? v : v.map(() => null)])) }))), 3],
    ];
    for (const [body, count] of cases) {
      let caught: unknown;
      try {
        parseResponse(body, "marine", count);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(UpstreamError);
      expect((caught as UpstreamError).retryable).toBe(true);
    }
  });
});

describe("document assembly", () => {
  const { marine, forecast } = parsedMulti();

  test("Supertubos: fields mapped as the spec says; hours without waves are dropped", () => {
    const doc = assembleDocument(marine[0]!, forecast[0]!, 300, noTides);
    expect(doc.hours).toHaveLength(166);
    const h = doc.hours[0]!;
    expect(h.time).toBe("2026-11-21T00:00:00Z");
    expect(h.waveHeight).toBe(marine[0]!.hourly.values.wave_height![0]!);
    expect(h.swellHeight).toBe(marine[0]!.hourly.values.swell_wave_height![0]!);
    expect(h.wavePeriod).toBe(marine[0]!.hourly.values.swell_wave_period![0]!);
    expect(h.waveDirection).toBe(marine[0]!.hourly.values.swell_wave_direction![0]!);
    expect(h.waterTemperature).toBe(marine[0]!.hourly.values.sea_surface_temperature![0]!);
    expect(h.windSpeed).toBe(forecast[0]!.hourly.values.wind_speed_10m![0]!);
    expect(h.windGust).toBe(forecast[0]!.hourly.values.wind_gusts_10m![0]!);
    expect(h.airTemperature).toBe(forecast[0]!.hourly.values.temperature_2m![0]!);
    expect(h.tide).toBeNull();
    for (const hour of doc.hours) {
      expect(Number.isInteger(hour.waveDirection) && Number.isInteger(hour.windDirection) && Number.isInteger(hour.weatherCode)).toBe(true);
      expect(hour.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/);
      expect(Object.keys(hour.rating).sort()).toEqual(["advanced", "beginner", "intermediate"]);
      expect(hour.windDirectionType === null || ["offshore", "onshore", "cross"].includes(hour.windDirectionType)).toBe(true);
    }
    expect(doc.hours.at(-1)!.time).toBe("2026-11-27T21:00:00Z");
    expect(assembleDocument(marine[0]!, forecast[0]!, null, noTides).hours.every((x) => x.windDirectionType === null)).toBe(true);
  });

  test("Pipeline: null swell falls back to the total sea for that hour; hours with neither are dropped", () => {
    const doc = assembleDocument(marine[2]!, forecast[2]!, 0, noTides);
    const m = marine[2]!.hourly.values;
    expect(doc.hours).toHaveLength(166);
    const at = (iso: string) => doc.hours.find((x) => x.time === iso)!;
    expect(at("2026-11-27T18:00:00Z").swellHeight).toBe(m.swell_wave_height![162]!);
    for (const i of [163, 164, 165]) {
      const hour = at(isoUtc(marine[2]!.hourly.time[i]!));
      expect(hour.swellHeight).toBe(m.wave_height![i]!);
      expect(hour.wavePeriod).toBe(m.wave_period![i]!);
      expect(hour.waveDirection).toBe(m.wave_direction![i]!);
    }
  });

  test("tides are asked once, for the kept hours, and copied per hour", () => {
    const asked: number[][] = [];
    const doc = assembleDocument(marine[1]!, forecast[1]!, 200, (times) => {
      asked.push(times);
      return times.map((t, i) => ({ height: i / 10, state: i % 2 ? "falling" : "rising" }));
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toHaveLength(168);
    expect(doc.hours[3]!.tide).toEqual({ height: 0.3, state: "falling" });
  });

  test("daily: dates, sunrise/sunset as UTC instants (may fall on the neighbouring date), UV", () => {
    const uluwatu = assembleDocument(marine[1]!, forecast[1]!, null, noTides).daily;
    expect(uluwatu).toHaveLength(7);
    expect(uluwatu[0]).toEqual({ date: "2026-11-21", sunrise: "2026-11-20T21:49:00Z", sunset: "2026-11-21T10:22:00Z", uvIndexMax: 11.85 });
    expect(assembleDocument(marine[2]!, forecast[2]!, null, noTides).daily[0]!.sunset).toBe("2026-11-22T03:49:00Z");
  });
});

describe("serving stored documents", () => {
  const { marine, forecast } = parsedMulti();
  const doc = assembleDocument(marine[0]!, forecast[0]!, 300, noTides);
  const spot = { id: "test-supertubos", name: "Supertubos", country: "Portugal", region: null, lat: 39.344, lng: -9.363, hexId: "ffff000000000001", facing: null, tideless: null, timezone: "Europe/Lisbon" };
  const spots = {
    get(id: string) {
      if (id === spot.id || id === spot.hexId) return spot;
      throw new ApiError("not_found", `No spot with id '${id}'.`);
    },
  };

  function setup() {
    const db = openDatabase(tempDir("forecast-serve"));
    db.$client.prepare("INSERT INTO spots (id, hex_id, name, country, region, lat, lng) VALUES (?, ?, ?, ?, ?, ?, ?)").run(spot.id, spot.hexId, spot.name, spot.country, spot.region, spot.lat, spot.lng);
    const clock = new ManualClock(Date.parse("2026-11-21T13:25:00Z"));
    return { db, clock, service: new ForecastService(sqliteForecastStore(db), clock, spots, changeCheck(db)) };
  }

  const code = async (fn: () => unknown) => {
    try {
      await fn();
    } catch (err) {
      return (err as ApiError).code;
    }
    return "none";
  };

  test("unknown spot → not_found; no document yet → no_forecast", async () => {
    const { service } = setup();
    expect(await code(() => service.get("nowhere", 7))).toBe("not_found");
    expect(await code(() => service.get(spot.id, 7))).toBe("no_forecast");
  });

  test("hours from the current UTC hour, at most days×24; daily covers the same dates; fixed fields", async () => {
    const { db, service } = setup();
    writeDocuments(db, Date.parse("2026-11-21T07:00:00Z"), [{ spotId: spot.id, body: JSON.stringify(doc) }]);
    service.invalidate();
    const one = JSON.parse((await service.get(spot.id, 1)).body) as ForecastResponse;
    // The spec's members, and the wave models behind the hours (beyond the spec).
    expect(Object.keys(one)).toEqual(["spot", "units", "updatedAt", "attribution", "models", "hours", "daily"]);
    expect(one.models).toEqual({ used: ["best_match"], leftOut: {} });
    expect(one.spot).toEqual({ id: spot.id, name: "Supertubos", country: "Portugal" });
    expect(one.units).toBe("metric");
    expect(one.updatedAt).toBe("2026-11-21T07:00:00Z");
    expect(one.attribution).toBe(ATTRIBUTION);
    expect(one.hours).toHaveLength(24);
    expect(one.hours[0]!.time).toBe("2026-11-21T13:00:00Z");
    expect(one.hours.at(-1)!.time).toBe("2026-11-22T12:00:00Z");
    expect(one.daily.map((d) => d.date)).toEqual(["2026-11-21", "2026-11-22"]);
    const seven = JSON.parse((await service.get(spot.id, 7)).body) as ForecastResponse;
    // The stored horizon ends at 2026-11-27T21:00 (the null tail was dropped).
    expect(seven.hours).toHaveLength(166 - 13);
    expect(seven.daily).toHaveLength(7);
  });

  test("the window moves with the clock; the hex id serves the same body; ETag per version, hour and days", async () => {
    const { db, clock, service } = setup();
    writeDocuments(db, Date.parse("2026-11-21T07:00:00Z"), [{ spotId: spot.id, body: JSON.stringify(doc) }]);
    service.invalidate();
    const first = await service.get(spot.id, 2);
    expect(first.maxAgeSeconds).toBe(35 * 60);
    expect((await service.get(spot.hexId, 2)).body).toBe(first.body);
    expect((await service.get(spot.id, 3)).etag).not.toBe(first.etag);
    clock.advance(40 * 60_000);
    const later = await service.get(spot.id, 2);
    expect(later.etag).not.toBe(first.etag);
    expect(later.maxAgeSeconds).toBe(55 * 60);
    expect((JSON.parse(later.body) as ForecastResponse).hours[0]!.time).toBe("2026-11-21T14:00:00Z");
    writeDocuments(db, Date.parse("2026-11-21T13:50:00Z"), [{ spotId: spot.id, body: JSON.stringify(doc) }]);
    service.invalidate();
    const refreshed = await service.get(spot.id, 2);
    expect(refreshed.etag).not.toBe(later.etag);
    expect((JSON.parse(refreshed.body) as ForecastResponse).updatedAt).toBe("2026-11-21T13:50:00Z");
  });

  test("cache hit returns the prebuilt string; a write by another connection is noticed", async () => {
    const { db, service } = setup();
    writeDocuments(db, Date.parse("2026-11-21T07:00:00Z"), [{ spotId: spot.id, body: JSON.stringify(doc) }]);
    const a = await service.get(spot.id, 7);
    expect((await service.get(spot.id, 7)).body).toBe(a.body);
    // Another process (e.g. `surfcast refresh`) writes through its own connection.
    const other = openDatabase(db.$client.filename.replace(/\/surfcast\.db$/, ""));
    writeDocuments(other, Date.parse("2026-11-21T12:00:00Z"), [{ spotId: spot.id, body: JSON.stringify(doc) }]);
    other.$client.close();
    const updatedAt = async () => (JSON.parse((await service.get(spot.id, 7)).body) as ForecastResponse).updatedAt;
    await waitFor("the other connection's document to be served", async () => (await updatedAt()) === "2026-11-21T12:00:00Z", 5_000);
  });

  test("a document whose horizon has passed is no_forecast, not an empty 200", async () => {
    const { db, clock, service } = setup();
    writeDocuments(db, Date.parse("2026-11-21T07:00:00Z"), [{ spotId: spot.id, body: JSON.stringify(doc) }]);
    clock.set("2026-11-29T00:00:00Z");
    expect(await code(() => service.get(spot.id, 7))).toBe("no_forecast");
  });

  test("a kept body answers at once; a document read while a refresh lands is served but not kept", async () => {
    const { db, clock } = setup();
    const sqlite = sqliteForecastStore(db);
    let release: (() => void) | null = null;
    const slowStore = { readDocument: (id: string) => new Promise<void>((r) => (release = r)).then(() => sqlite.readDocument(id)) };
    const service = new ForecastService(slowStore, clock, spots, () => false);
    writeDocuments(db, Date.parse("2026-11-21T07:00:00Z"), [{ spotId: spot.id, body: JSON.stringify(doc) }]);
    const pending = service.get(spot.id, 2);
    expect(pending).toBeInstanceOf(Promise);
    service.invalidate(); // a refresh wrote while the store was read
    release!();
    const served = await pending;
    expect((JSON.parse(served.body) as ForecastResponse).updatedAt).toBe("2026-11-21T07:00:00Z");
    const again = service.get(spot.id, 2);
    expect(again).toBeInstanceOf(Promise); // nothing of the older reading was kept
    release!();
    expect((await again).body).toBe(served.body);
    expect(service.get(spot.id, 2)).toEqual({ ...served }); // kept now: a value, not a promise
  });
});
