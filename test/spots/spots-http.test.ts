/**
 * The three spot endpoints through the real HTTP server: every bound and error of search, nearby and get.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../support/inprocess";

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  key = await server.key("scale");
});
afterAll(async () => {
  await server.close();
});

async function call(path: string): Promise<{ status: number; body: any }> {
  const res = await server.get(path, key);
  return { status: res.status, body: await res.json() };
}

async function expectError(path: string, status: number, code: string, mentions?: string) {
  const { status: got, body } = await call(path);
  expect({ path, status: got }).toEqual({ path, status });
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  if (mentions) expect(body.error.message).toContain(mentions);
}

describe("GET /v1/spots (search)", () => {
  test("finds by name, case- and diacritic-insensitive, best first", async () => {
    for (const q of ["nazare", "Nazar%C3%A9", "NAZAR%C3%89"]) {
      const { status, body } = await call(`/v1/spots?q=${q}`);
      expect(status).toBe(200);
      expect(body[0]).toEqual({ id: "praia-da-nazare", name: "Praia da Nazaré", country: "Portugal", region: "North Beira", lat: expect.any(Number), lng: expect.any(Number), hexId: expect.stringMatching(/^[0-9a-f]{16}$/), facing: null, tideless: null, timezone: "Europe/Lisbon" });
    }
  });

  test("limit: default 10, 1..50", async () => {
    expect((await call("/v1/spots?q=beach")).body).toHaveLength(10);
    expect((await call("/v1/spots?q=beach&limit=1")).body).toHaveLength(1);
    expect((await call("/v1/spots?q=beach&limit=50")).body).toHaveLength(50);
    // An integer-valued number is an integer (JSON Schema): 10.0 and 1e1 are 10.
    for (const limit of ["10.0", "1e1", "10.", "%2B10"]) expect((await call(`/v1/spots?q=beach&limit=${limit}`)).body).toHaveLength(10);
    for (const limit of ["0", "51", "-1", "1.5", "10.000001", "abc", "", "0x10", "NaN", "Infinity", "1e400"]) {
      await expectError(`/v1/spots?q=beach&limit=${limit}`, 400, "invalid_request", "limit");
    }
    await expectError("/v1/spots?q=beach&limit=5&limit=6", 400, "invalid_request", "limit");
  });

  test("q: required, at least 2 characters after trimming, at most 200", async () => {
    await expectError("/v1/spots", 400, "invalid_request", "q");
    await expectError("/v1/spots?q=", 400, "invalid_request", "q");
    await expectError("/v1/spots?q=a", 400, "invalid_request", "q");
    await expectError("/v1/spots?q=%20a%20%20", 400, "invalid_request", "q");
    await expectError(`/v1/spots?q=${"a".repeat(201)}`, 400, "invalid_request", "q");
    await expectError("/v1/spots?q=ab&q=cd", 400, "invalid_request", "q");
    expect((await call(`/v1/spots?q=${"a".repeat(200)}`)).status).toBe(200);
    expect((await call("/v1/spots?q=%20ab%20")).status).toBe(200);
  });

  test("no match, punctuation-only or odd input: an empty array, never a listing or an error", async () => {
    for (const q of ["qqqqqqqq", "--", "%F0%9F%8C%8A%F0%9F%8C%8A", "%25%25", "'%3B%20DROP%20TABLE%20spots%3B--"]) {
      const { status, body } = await call(`/v1/spots?q=${q}`);
      expect(status).toBe(200);
      expect(Array.isArray(body)).toBe(true);
      expect(body.length).toBeLessThanOrEqual(10);
    }
    expect((await call("/v1/spots?q=qqqqqqqq")).body).toEqual([]);
  });
});

describe("GET /v1/spots/nearby", () => {
  test("closest first with distanceKm; defaults radius 50 and limit 10", async () => {
    const { status, body } = await call("/v1/spots/nearby?lat=21.6678&lng=-158.0506");
    expect(status).toBe(200);
    expect(body).toHaveLength(10);
    expect(body[0].id).toBe("pipeline");
    for (let i = 1; i < body.length; i++) expect(body[i].distanceKm).toBeGreaterThanOrEqual(body[i - 1].distanceKm);
    expect(body.every((s: { distanceKm: number }) => s.distanceKm <= 50)).toBe(true);
    expect(Object.keys(body[0])).toEqual(["id", "name", "country", "region", "lat", "lng", "hexId", "facing", "tideless", "timezone", "distanceKm"]);
  });

  test("bounds: lat -90..90, lng -180..180, radius 0..100, limit 1..50 (edges accepted)", async () => {
    for (const q of ["lat=90&lng=180", "lat=-90&lng=-180", "lat=0&lng=0&radius=0", "lat=0&lng=0&radius=100", "lat=0&lng=0&limit=1", "lat=0&lng=0&limit=50", "lat=-0&lng=1e1"]) {
      expect({ q, status: (await call(`/v1/spots/nearby?${q}`)).status }).toEqual({ q, status: 200 });
    }
    expect((await call("/v1/spots/nearby?lat=21.6678&lng=-158.0506&radius=100&limit=50")).body).toHaveLength(50);
    expect((await call("/v1/spots/nearby?lat=21.6678&lng=-158.0506&radius=0.05&limit=50")).body.map((s: { id: string }) => s.id)).toEqual(["pipeline"]);
    const bad: [string, string][] = [
      ["lng=0", "lat"],
      ["lat=0", "lng"],
      ["lat=90.0001&lng=0", "lat"],
      ["lat=-91&lng=0", "lat"],
      ["lat=0&lng=180.5", "lng"],
      ["lat=0&lng=-181", "lng"],
      ["lat=abc&lng=0", "lat"],
      ["lat=&lng=0", "lat"],
      ["lat=NaN&lng=0", "lat"],
      ["lat=Infinity&lng=0", "lat"],
      ["lat=0x10&lng=0", "lat"],
      ["lat=1e309&lng=0", "lat"],
      ["lat=0&lng=0&radius=-1", "radius"],
      ["lat=0&lng=0&radius=100.001", "radius"],
      ["lat=0&lng=0&radius=far", "radius"],
      ["lat=0&lng=0&limit=0", "limit"],
      ["lat=0&lng=0&limit=51", "limit"],
      ["lat=0&lng=0&limit=2.5", "limit"],
      ["lat=0&lat=1&lng=0", "lat"],
    ];
    for (const [q, param] of bad) await expectError(`/v1/spots/nearby?${q}`, 400, "invalid_request", param);
  });

  test("across the antimeridian", async () => {
    // Vinakaland (Fiji) lies at 179.733°E: a query at 179.6°W, ~70 km away across the line, finds it.
    const { body } = await call("/v1/spots/nearby?lat=-19.15&lng=-179.6&radius=100");
    expect(body.map((s: { id: string }) => s.id)).toEqual(["vinakaland"]);
    expect(body[0].distanceKm).toBeGreaterThan(65);
    expect(body[0].distanceKm).toBeLessThan(75);
  });
});

describe("GET /v1/spots/{id}", () => {
  test("by slug, by 16-hex id in either case", async () => {
    const bySlug = await call("/v1/spots/pipeline");
    expect(bySlug.status).toBe(200);
    expect(bySlug.body).toMatchObject({ id: "pipeline", name: "Pipeline", country: "USA", region: "Hawaii, Oahu" });
    const hex = bySlug.body.hexId as string;
    expect((await call(`/v1/spots/${hex}`)).body).toEqual(bySlug.body);
    expect((await call(`/v1/spots/${hex.toUpperCase()}`)).body).toEqual(bySlug.body);
    expect((await call("/v1/spots/agucadoura")).body.name).toBe("Aguçadoura");
  });

  test("unknown, wrong case, near-misses and very long ids: 404 not_found", async () => {
    for (const id of ["nope", "PIPELINE", "pipeline-", "pipeline%20", "0000000000000000", "zzzzzzzzzzzzzzzz", "b1e02b7bad9af73", "%C3%A9", "pipe%2Fline", "..%2F..%2Fetc"]) {
      await expectError(`/v1/spots/${id}`, 404, "not_found");
    }
    await expectError(`/v1/spots/${"a".repeat(5000)}`, 404, "not_found");
  });

  test("responses carry the rate-limit headers, errors included", async () => {
    for (const path of ["/v1/spots/pipeline", "/v1/spots/nope", "/v1/spots?q=a", "/v1/spots/nearby?lat=0&lng=0"]) {
      const res = await server.get(path, key);
      expect(res.headers.get("x-ratelimit-limit")).not.toBeNull();
      await res.arrayBuffer();
    }
  });
});
