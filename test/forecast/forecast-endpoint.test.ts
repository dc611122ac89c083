/**
 * GET /v1/spots/{id}/forecast end to end (in-process server, injected clock, fake Open-Meteo): errors before
 * the first refresh, bounds, the response's spec types, ETag/304 and Cache-Control.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { ManualClock, startTestServer, type TestServer } from "../support/inprocess";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { refreshForecasts } from "../../src/server/refresh";
import type { ForecastResponse } from "../../src/forecast/types";
import type { Spot } from "../../src/spots/types";

let fake: FakeOpenMeteo;
let server: TestServer;
let key: string;
let spot: Spot;
let other: Spot;
const clock = new ManualClock(Date.parse("2026-11-21T13:25:00Z"));

beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: "2026-11-21" }); // the day of the tests' clock
  server = await startTestServer({ clock, env: { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url } });
  key = await server.key("pro");
  const nearest = (lat: number, lng: number) => server.app.spots.nearby({ lat, lng, radius: 50, limit: 1 })[0]!;
  spot = nearest(39.344, -9.363);
  other = nearest(21.665, -158.053);
});
afterAll(async () => {
  await server.close();
  await fake.close();
});

const errorCode = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

describe("forecast endpoint", () => {
  test("the catalog has spots near the fixture locations", () => {
    expect(spot).toBeDefined();
    expect(other).toBeDefined();
  });

  test("unknown spot → 404 not_found; no document yet → 404 no_forecast", async () => {
    const unknown = await server.get("/v1/spots/no-such-spot-anywhere/forecast", key);
    expect(unknown.status).toBe(404);
    expect(await errorCode(unknown)).toBe("not_found");
    const none = await server.get(`/v1/spots/${spot.id}/forecast`, key);
    expect(none.status).toBe(404);
    expect(await errorCode(none)).toBe("no_forecast");
  });

  test("days outside 1..7 or not an integer → 400 invalid_request", async () => {
    for (const days of ["0", "8", "-1", "1.5", "abc", ""]) {
      const res = await server.get(`/v1/spots/${spot.id}/forecast?days=${days}`, key);
      expect(res.status).toBe(400);
      expect(await errorCode(res)).toBe("invalid_request");
    }
  });

  test("after a refresh: the spec's shape and types, from the current UTC hour", async () => {
    const summary = await refreshForecasts(server.app, { spots: [spot, other] });
    expect(summary.failedBatches).toBe(0);
    const res = await server.get(`/v1/spots/${spot.id}/forecast?days=2`, key);
    expect(res.status).toBe(200);
    const body = (await res.json()) as ForecastResponse;
    expect(body.spot).toEqual({ id: spot.id, name: spot.name, country: spot.country });
    expect(body.units).toBe("metric");
    expect(body.updatedAt).toBe("2026-11-21T13:25:00Z");
    expect(body.attribution).toContain("CC BY 4.0");
    // The hours' tide heights name their datum and station once, as /tides does.
    const tides = await server.app.tides.get(spot.id, 1);
    expect(body.datum).toMatch(/^[A-Z]+$/);
    expect(body.datum).toBe(tides.datum!);
    expect(body.station).toEqual(tides.station!);
    expect(body.hours).toHaveLength(48);
    expect(body.hours[0]!.time).toBe("2026-11-21T13:00:00Z");
    expect(body.daily.map((d) => d.date)).toEqual(["2026-11-21", "2026-11-22", "2026-11-23"]);
    for (const h of body.hours) {
      expect(h.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/);
      for (const f of ["waveHeight", "swellHeight", "wavePeriod", "windSpeed", "windGust", "airTemperature", "waterTemperature"] as const) expect(typeof h[f]).toBe("number");
      for (const f of ["waveDirection", "windDirection", "weatherCode"] as const) expect(Number.isInteger(h[f])).toBe(true);
      expect(h.windDirectionType === null || ["offshore", "onshore", "cross"].includes(h.windDirectionType)).toBe(true);
      expect(h.tide === null || (typeof h.tide.height === "number" && ["rising", "falling"].includes(h.tide.state))).toBe(true);
      for (const level of ["beginner", "intermediate", "advanced"] as const) expect([1, 2, 3, 4, 5]).toContain(h.rating[level]);
      // Beyond the spec (issue #16; the shapes are checked against the served document by apiFetch).
      expect(h.swells!.length).toBeGreaterThan(0);
      expect(h.surf!.max).toBeGreaterThanOrEqual(h.surf!.min);
    }
    for (const d of body.daily) {
      expect(d.sunrise === null || /Z$/.test(d.sunrise)).toBe(true);
      expect(typeof d.uvIndexMax).toBe("number");
      expect(Object.keys(d.best!).sort()).toEqual(["advanced", "beginner", "intermediate"]);
    }
    const week = (await (await server.get(`/v1/spots/${other.id}/forecast`, key)).json()) as ForecastResponse;
    expect(week.hours.length).toBeLessThanOrEqual(7 * 24);
    expect(week.hours.length).toBe(166 - 13);
  });

  test("ETag and If-None-Match → 304; max-age until the next UTC hour; a new hour is a new ETag", async () => {
    const first = await server.get(`/v1/spots/${spot.id}/forecast`, key);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^".+"$/);
    expect(first.headers.get("cache-control")).toBe("private, max-age=2100");
    const again = await server.get(`/v1/spots/${spot.id}/forecast`, key, { "If-None-Match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    clock.advance(3_600_000);
    const later = await server.get(`/v1/spots/${spot.id}/forecast`, key, { "If-None-Match": etag });
    expect(later.status).toBe(200);
    expect(later.headers.get("etag")).not.toBe(etag);
    const hex = await server.get(`/v1/spots/${spot.hexId}/forecast`, key);
    expect(hex.headers.get("etag")).toBe(later.headers.get("etag"));
  });

  test("compressed for clients that accept it: brotli, then gzip; each encoding its own ETag; Vary: Accept-Encoding", async () => {
    const url = `${server.url}/v1/spots/${spot.id}/forecast`;
    // `decompress: false`: the bytes as sent (Bun's fetch would otherwise decode them).
    const raw = (acceptEncoding: string, extra: Record<string, string> = {}) =>
      fetch(url, { headers: { "X-API-Key": key, "Accept-Encoding": acceptEncoding, ...extra }, decompress: false });
    const identity = await raw("identity");
    const plain = await identity.text();
    expect(identity.headers.get("content-encoding")).toBeNull();
    const cases: [string, string | null][] = [
      ["gzip", "gzip"],
      ["gzip, deflate, br", "br"],
      ["br;q=0, gzip", "gzip"],
      ["*", "gzip"],
      ["deflate", null],
      ["gzip;q=0", null],
    ];
    const etags = new Set<string>([identity.headers.get("etag")!]);
    for (const [accept, expected] of cases) {
      const res = await raw(accept);
      expect([accept, res.headers.get("content-encoding")]).toEqual([accept, expected]);
      expect(res.headers.get("vary")).toContain("Accept-Encoding");
      const bytes = new Uint8Array(await res.arrayBuffer());
      const decoded = expected === "br" ? brotliDecompressSync(bytes).toString() : expected === "gzip" ? gunzipSync(bytes).toString() : new TextDecoder().decode(bytes);
      expect(decoded).toBe(plain);
      if (expected) expect(bytes.byteLength).toBeLessThan(plain.length / 4);
      etags.add(res.headers.get("etag")!);
      const again = await raw(accept, { "If-None-Match": res.headers.get("etag")! });
      expect(again.status).toBe(304);
    }
    expect(etags.size).toBe(3);
    // Spots refreshed together share their document time (and so their ETags): each still gets its own bytes.
    for (const id of [spot.id, other.id]) {
      const plainOther = await (await fetch(`${server.url}/v1/spots/${id}/forecast`, { headers: { "X-API-Key": key, "Accept-Encoding": "identity" } })).text();
      const zipped = await fetch(`${server.url}/v1/spots/${id}/forecast`, { headers: { "X-API-Key": key, "Accept-Encoding": "gzip" }, decompress: false });
      expect(gunzipSync(new Uint8Array(await zipped.arrayBuffer())).toString()).toBe(plainOther);
    }
    // An ETag of one encoding does not validate another.
    const gzipTag = (await raw("gzip")).headers.get("etag")!;
    expect((await raw("br", { "If-None-Match": gzipTag })).status).toBe(200);
  });
});
