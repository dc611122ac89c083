/**
 * Issue #8: the OpenAPI 3.1 document at /openapi.json — what it declares (checked against the spec's tables,
 * written out here rather than read from the code), that it passes two independent validators, and that the
 * response validator behind apiFetch (test/support/openapi.ts) really rejects what the document forbids.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { MCP_ENDPOINTS } from "../../src/core/endpoints";
import { TOOLS } from "../../src/mcp/tools";
import { ROOT, tempDir } from "../support/env";
import { apiFetch } from "../support/http";
import { startTestServer, type TestServer } from "../support/inprocess";
import { ResponseValidator, responseValidatorFor } from "../support/openapi";

type Json = Record<string, any>;

let server: TestServer;
let doc: Json;

beforeAll(async () => {
  server = await startTestServer();
  doc = (await (await fetch(server.url + "/openapi.json")).json()) as Json;
});
afterAll(() => server.close());

/** Follows a local `$ref` (one level is all the document uses, but follow chains anyway). */
function deref(node: Json): Json {
  while (node?.$ref) node = node.$ref.slice(2).split("/").reduce((n: Json, s: string) => n?.[s.replaceAll("~1", "/")], doc);
  return node;
}

const OPERATIONS: Record<string, { path: string; statuses: number[] }> = {
  searchSpots: { path: "/v1/spots", statuses: [200, 400, 401, 429, 500, 503] },
  spotsNearby: { path: "/v1/spots/nearby", statuses: [200, 400, 401, 429, 500, 503] },
  bestSpots: { path: "/v1/spots/best", statuses: [200, 400, 401, 429, 500, 503] },
  getSpot: { path: "/v1/spots/{id}", statuses: [200, 401, 404, 429, 500, 503] },
  getForecast: { path: "/v1/spots/{id}/forecast", statuses: [200, 304, 400, 401, 404, 429, 500, 503] },
  getTides: { path: "/v1/spots/{id}/tides", statuses: [200, 400, 401, 404, 429, 500, 503] },
  getUsage: { path: "/v1/usage", statuses: [200, 401, 429, 500, 503] },
  // Beyond the spec (issue #21).
  getSpotNow: { path: "/v1/spots/{id}/now", statuses: [200, 304, 400, 401, 404, 429, 500, 503] },
  getNow: { path: "/v1/now", statuses: [200, 304, 400, 401, 404, 429, 500, 503] },
  // Beyond the spec: the nearest buoy, and each model's measured error there.
  getObservations: { path: "/v1/spots/{id}/observations", statuses: [200, 400, 401, 404, 429, 500, 503] },
  getVerification: { path: "/v1/spots/{id}/verification", statuses: [200, 400, 401, 404, 429, 500, 503] },
  // Beyond the spec: a spot's months from ERA5 (202 while its cell is fetched).
  getClimate: { path: "/v1/spots/{id}/climate", statuses: [200, 202, 400, 401, 404, 429, 500, 503] },
};

const operation = (id: string): Json => doc.paths[OPERATIONS[id]!.path].get;

describe("GET /openapi.json", () => {
  test("public: served without a key, JSON, OpenAPI 3.1, interface version 1.0.0, no rate-limit headers", async () => {
    const res = await fetch(server.url + "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    const body = (await res.json()) as Json;
    expect(body.openapi).toMatch(/^3\.1\.\d+$/);
    expect(body.info.version).toBe("1.0.0");
    expect(body.info.title).toBe("Surfcast API");
    expect(body.servers).toEqual([expect.objectContaining({ url: "/" })]);
  });

  test("not counted: fetching it with a key leaves usage at zero, while a data call counts", async () => {
    const key = await server.key("starter");
    for (let i = 0; i < 3; i++) expect((await fetch(server.url + "/openapi.json", { headers: { "X-API-Key": key } })).status).toBe(200);
    const today = async () => ((await (await server.get("/v1/usage", key)).json()) as { today: number }).today;
    expect(await today()).toBe(0);
    expect((await server.get("/v1/spots?q=zz", key)).status).toBe(200);
    expect(await today()).toBe(1);
  });

  test("the one HTML viewer, /docs, loads nothing from another host (no CDN); no other viewer is served", async () => {
    for (const path of ["/openapi", "/swagger"]) expect((await apiFetch(server.url + path)).status).toBe(404);
    const page = await (await apiFetch(server.url + "/docs")).text();
    expect(page).toContain('<script src="/docs/scalar.js"></script>');
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect((await apiFetch(server.url + "/docs/scalar.js")).headers.get("content-type")).toStartWith("text/javascript");
  });
});

describe("what the document declares", () => {
  test("exactly the six operations of the spec, the two now operations, the two observations operations and the climate, with their operation ids, all GET, each with its HEAD", () => {
    const found: string[] = [];
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      expect(Object.keys(item)).toEqual(["get", "head"]);
      expect(OPERATIONS[item.get.operationId]?.path).toBe(path);
      found.push(item.get.operationId);
      // HEAD: GET's parameters, statuses and headers, no body anywhere.
      expect(item.head.operationId).toBe(`${item.get.operationId}Head`);
      expect(item.head.parameters).toEqual(item.get.parameters);
      expect(Object.keys(item.head.responses)).toEqual(Object.keys(item.get.responses));
      for (const response of Object.values<Json>(item.head.responses)) {
        expect(response.content).toBeUndefined();
        expect(response.$ref).toBeUndefined();
      }
    }
    expect(found.sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  test("info names the terms: the operator's, and Open-Meteo's CC BY 4.0 for the weather inputs", () => {
    expect(doc.info.license).toEqual({ name: expect.stringContaining("CC BY 4.0"), url: "https://creativecommons.org/licenses/by/4.0/" });
  });

  test("parameters: bounds, defaults and required flags of the spec; plain integer and number types", () => {
    const limit = { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 50, default: 10 } };
    const id = { name: "id", in: "path", required: true, schema: { type: "string" } };
    const days = { name: "days", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 7, default: 7 } };
    // Beyond the spec: every read that carries measurements speaks imperial on request, metric by default.
    const units = { name: "units", in: "query", required: false, schema: { enum: ["metric", "imperial"], default: "metric" } };
    const expected: Record<string, Json[]> = {
      searchSpots: [{ name: "q", in: "query", required: true, schema: { type: "string", minLength: 2 } }, limit],
      spotsNearby: [
        { name: "lat", in: "query", required: true, schema: { type: "number", minimum: -90, maximum: 90 } },
        { name: "lng", in: "query", required: true, schema: { type: "number", minimum: -180, maximum: 180 } },
        { name: "radius", in: "query", required: false, schema: { type: "number", minimum: 0, maximum: 100, default: 50 } },
        limit,
      ],
      getSpot: [id],
      getForecast: [id, days, units, { name: "If-None-Match", in: "header", required: false, schema: { type: "string" } }],
      getTides: [id, days, units],
      getUsage: [],
      getSpotNow: [id, units, { name: "If-None-Match", in: "header" }],
      getNow: [{ name: "spots", in: "query", required: true, schema: { type: "string" } }, units, { name: "If-None-Match", in: "header" }],
      getObservations: [id, units],
      getClimate: [id, units],
      getVerification: [id, { name: "days", in: "query", required: false, schema: { type: "integer", minimum: 7, maximum: 45, default: 30 } }],
    };
    for (const [opId, params] of Object.entries(expected)) {
      const declared: Json[] = operation(opId).parameters ?? [];
      expect(declared.map((p) => p.name)).toEqual(params.map((p) => p.name));
      params.forEach((p, i) => expect(declared[i]).toMatchObject(p));
      for (const p of declared) expect(p.schema.anyOf).toBeUndefined();
    }
  });

  test("rules a validator can check are in the schema: q's two characters after trimming, /v1/now's 1 to 20 ids", () => {
    const pattern = (opId: string, name: string) => new RegExp((operation(opId).parameters as Json[]).find((p) => p.name === name)!.schema.pattern as string, "u");
    const q = pattern("searchSpots", "q");
    for (const ok of ["pi", " pi ", "p i", "ño", "\tab\n"]) expect([ok, q.test(ok)]).toEqual([ok, true]);
    for (const bad of ["p", " p ", "  ", "\tp\n"]) expect([bad, q.test(bad)]).toEqual([bad, false]);
    const spots = pattern("getNow", "spots");
    const list = (n: number) => Array.from({ length: n }, (_, i) => `spot-${i}`).join(",");
    for (const ok of ["pipeline", "pipeline,b1e02b7bad9af73f", " pipeline , supertubos ", list(20)]) expect([ok, spots.test(ok)]).toEqual([ok, true]);
    for (const bad of ["", ",", "pipeline,", ",pipeline", "a,,b", "a, ,b", list(21)]) expect([bad, spots.test(bad)]).toEqual([bad, false]);
  });

  test("no string branch anywhere: no schema of type string with an integer or numeric format", () => {
    const offenders: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (!node || typeof node !== "object") return;
      const n = node as Json;
      if (n.type === "string" && ["integer", "numeric", "number"].includes(n.format)) offenders.push(where);
      for (const [k, v] of Object.entries(n)) walk(v, `${where}/${k}`);
    };
    walk(doc, "#");
    expect(offenders).toEqual([]);
  });

  test("named components, with the required fields of the spec's tables", () => {
    const requiredBySpec: Record<string, string[]> = {
      Spot: ["id", "name", "country", "region", "lat", "lng"],
      SpotWithDistance: ["id", "name", "country", "region", "lat", "lng", "distanceKm"],
      Rating: ["beginner", "intermediate", "advanced"],
      Tide: ["height", "state"],
      ForecastHour: ["time", "waveHeight", "swellHeight", "wavePeriod", "waveDirection", "windSpeed", "windDirection", "windGust", "windDirectionType", "airTemperature", "waterTemperature", "weatherCode", "tide", "rating"],
      DailyWeather: ["date", "sunrise", "sunset", "uvIndexMax"],
      ForecastResponse: ["spot", "units", "updatedAt", "attribution", "hours", "daily"],
      TideExtreme: ["type", "time", "height"],
      TidesResponse: ["spot", "units", "extremes", "tideless"],
      UsageResponse: ["plan", "limit", "today", "days"],
      UsageDay: ["date", "total", "byEndpoint"],
      Error: ["error"],
    };
    const schemas = doc.components.schemas;
    for (const [name, fields] of Object.entries(requiredBySpec)) expect([name, [...schemas[name].required].sort()]).toEqual([name, [...fields].sort()]);
    expect(schemas.Error.properties.error.required.sort()).toEqual(["code", "message"]);
    expect(schemas.Error.properties.error.properties.code.enum.sort()).toEqual(["account_disabled", "climate_unavailable", "internal", "invalid_key", "invalid_request", "no_forecast", "not_found", "rate_limited"]);
    expect(schemas.ForecastResponse.properties.spot.required.sort()).toEqual(["country", "id", "name"]);
    expect(schemas.TidesResponse.properties.spot.required.sort()).toEqual(["id", "name"]);
    // Fields beyond the spec are documented, optional, and nullable where the server sends null.
    expect(schemas.Spot.properties.hexId).toMatchObject({ type: "string", pattern: "^[0-9a-f]{16}$" });
    expect(schemas.TidesResponse.properties.datum.anyOf).toContainEqual({ type: "null" });
    expect(schemas.TidesResponse.properties.station.anyOf).toEqual([{ $ref: "#/components/schemas/TideStation" }, { type: "null" }]);
    expect(schemas.TideStation.required.sort()).toEqual(["distanceKm", "id", "name", "source"]);
  });

  test("types of the spec: integers, enums, nullables, formats, constants", () => {
    const s = doc.components.schemas;
    for (const level of ["beginner", "intermediate", "advanced"]) expect(s.Rating.properties[level]).toEqual({ type: "integer", minimum: 1, maximum: 5 });
    for (const field of ["waveDirection", "windDirection", "weatherCode"]) expect(s.ForecastHour.properties[field].type).toBe("integer");
    expect(s.ForecastHour.properties.windDirectionType).toMatchObject({ type: ["string", "null"], enum: ["offshore", "onshore", "cross", null] });
    expect(s.ForecastHour.properties.tide.anyOf).toEqual([{ $ref: "#/components/schemas/Tide" }, { type: "null" }]);
    expect(s.ForecastHour.properties.time.format).toBe("date-time");
    expect(s.Tide.properties.state.enum).toEqual(["rising", "falling"]);
    expect(s.TideExtreme.properties.type.enum).toEqual(["high", "low"]);
    expect(s.DailyWeather.properties.date.format).toBe("date");
    for (const field of ["sunrise", "sunset"]) expect(s.DailyWeather.properties[field].anyOf).toEqual([expect.objectContaining({ type: "string", format: "date-time" }), { type: "null" }]);
    for (const r of ["ForecastResponse", "TidesResponse", "NowResponse", "ObservationsResponse", "BestSpot"]) expect(s[r].properties.units).toMatchObject({ enum: ["metric", "imperial"] });
    expect(s.ForecastResponse.properties.updatedAt.format).toBe("date-time");
    expect(s.UsageResponse.properties.limit.type).toBe("integer");
    expect(s.UsageResponse.properties.today.type).toBe("integer");
    expect(s.UsageDay.properties.total.type).toBe("integer");
    expect(s.UsageDay.properties.byEndpoint.additionalProperties).toMatchObject({ type: "integer" });
  });

  test("responses: the spec's statuses plus 304 (forecast), 202 (a climate being computed), 500 and 503 (a shared part away), each with its component schema; no bodiless error (431 is in the description)", () => {
    const okSchema: Record<string, Json> = {
      searchSpots: { type: "array", items: { $ref: "#/components/schemas/Spot" } },
      spotsNearby: { type: "array", items: { $ref: "#/components/schemas/SpotWithDistance" } },
      bestSpots: { type: "array", items: { $ref: "#/components/schemas/BestSpot" } },
      getSpot: { $ref: "#/components/schemas/SpotDetail" },
      getForecast: { $ref: "#/components/schemas/ForecastResponse" },
      getTides: { $ref: "#/components/schemas/TidesResponse" },
      getUsage: { $ref: "#/components/schemas/UsageResponse" },
      getSpotNow: { $ref: "#/components/schemas/NowResponse" },
      getNow: { $ref: "#/components/schemas/NowManyResponse" },
      getObservations: { $ref: "#/components/schemas/ObservationsResponse" },
      getVerification: { $ref: "#/components/schemas/VerificationResponse" },
      getClimate: { $ref: "#/components/schemas/ClimateResponse" },
    };
    for (const [id, { statuses }] of Object.entries(OPERATIONS)) {
      const responses = operation(id).responses;
      expect([id, Object.keys(responses).map(Number)]).toEqual([id, statuses]);
      expect(responses[200].content["application/json"].schema).toEqual(okSchema[id]!);
      for (const status of statuses.filter((s) => s >= 400)) {
        const r = deref(responses[status]);
        expect(r.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
        expect(r.description.length).toBeGreaterThan(10);
      }
    }
    expect(operation("getForecast").responses[304].content).toBeUndefined();
    expect(operation("getClimate").responses[202].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ClimatePending" });
  });

  test("headers: rate-limit headers on every status produced under a key, Retry-After on 429, ETag and Cache-Control on the forecast", () => {
    const rateLimit = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit"];
    for (const [id, { statuses }] of Object.entries(OPERATIONS)) {
      for (const status of statuses) {
        const response = deref(operation(id).responses[status]);
        const headers = Object.fromEntries(Object.entries<Json>(response.headers ?? {}).map(([name, h]) => [name, deref(h)]));
        if (status === 401) {
          expect(headers).toEqual({});
          continue;
        }
        // 500 and 503 can happen before the key was admitted (no counts to show); a 503 always says when to retry.
        for (const name of rateLimit) expect([id, status, name, headers[name]?.required]).toEqual([id, status, name, status !== 500 && status !== 503]);
        // A pending climate says when to ask again too.
        expect(headers["Retry-After"]?.required ?? false).toBe(status === 429 || status === 503 || status === 202);
        const cached = ["getForecast", "getSpotNow", "getNow"].includes(id) && (status === 200 || status === 304);
        for (const name of ["ETag", "Cache-Control"]) expect(headers[name]?.required ?? false).toBe(cached);
      }
    }
    const h = doc.components.headers;
    expect(h["Retry-After"].schema).toEqual({ type: "integer", minimum: 1 });
    expect(h["Retry-After"].description).toContain("Delta-seconds");
    expect(h["X-RateLimit-Limit"].schema.type).toBe("integer");
    expect(h["X-RateLimit-Remaining"].schema.type).toBe("integer");
    expect(h["X-RateLimit-Reset"].schema.format).toBe("date-time");
  });

  test("security: both key forms, required by every operation", () => {
    expect(doc.components.securitySchemes).toEqual({
      ApiKeyHeader: expect.objectContaining({ type: "apiKey", in: "header", name: "X-API-Key" }),
      BearerAuth: expect.objectContaining({ type: "http", scheme: "bearer" }),
    });
    expect(doc.security).toEqual([{ ApiKeyHeader: [] }, { BearerAuth: [] }]);
    for (const id of Object.keys(OPERATIONS)) expect(operation(id).security).toBeUndefined();
  });

  test("overview: plans, quota rules and the MCP endpoint with the tools it really has", () => {
    const text: string = doc.info.description;
    for (const row of [
      "| Starter | 500 | 60 | 2 | yes |",
      "| Growth | 2,500 | 120 | 5 | yes |",
      "| Pro | 10,000 | 300 | 10 | no |",
      "| Scale | 25,000 or more, custom | custom | custom | custom terms |",
    ]) {
      expect(text).toContain(row);
    }
    expect(text).toContain("Early-access keys have 500 requests per day and a burst of 60 per minute");
    expect(text).toContain("UTC day");
    expect(text).toContain("Not counted: `GET /v1/usage`, requests refused with 429");
    expect(text).toContain("`/mcp` (Streamable HTTP");
    expect(TOOLS.map((t) => t.name)).toEqual(MCP_ENDPOINTS.map((e) => e.tool));
    const documented = Object.fromEntries(MCP_ENDPOINTS.map(({ tool, args }) => [tool, args === "" ? [] : args.replaceAll("?", "").split(", ")]));
    const real = Object.fromEntries(TOOLS.map((t) => [t.name, Object.keys(t.input.shape)]));
    expect(documented).toEqual(real);
    for (const { tool } of MCP_ENDPOINTS) expect(text).toContain(`\`${tool}\``);
  });
});

describe("independent validators", () => {
  test("@apidevtools/swagger-parser validates the served document", async () => {
    const api = (await SwaggerParser.validate(structuredClone(doc) as never)) as Json;
    expect(api.openapi).toBe(doc.openapi);
  });

  test("redocly lint (recommended rules, offline): zero errors and zero warnings", () => {
    const file = join(tempDir("openapi-lint"), "openapi.json");
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const run = Bun.spawnSync([join(ROOT, "node_modules/.bin/redocly"), "lint", file, "--config", join(ROOT, "redocly.yaml"), "--format", "json"], {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_SUPPRESS_NOTIFICATIONS: "true", DO_NOT_TRACK: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = run.stdout.toString();
    const report = JSON.parse(out.slice(out.indexOf("{"))) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(run.exitCode).toBe(0);
  }, 30_000);
});

describe("every response the server gives today matches the document (checked by apiFetch)", () => {
  test("401 on every operation, with either key form wrong", async () => {
    for (const path of ["/v1/spots?q=ab", "/v1/spots/nearby?lat=0&lng=0", "/v1/spots/x", "/v1/spots/x/forecast", "/v1/spots/x/tides", "/v1/usage"]) {
      expect((await apiFetch(server.url + path)).status).toBe(401);
      expect((await apiFetch(server.url + path, { headers: { Authorization: "Bearer sk_live_nope" } })).status).toBe(401);
    }
  });

  test("400 where the spec lists it, 404 for unknown spots, 200 for usage and lists", async () => {
    const key = await server.key("starter");
    const cases: [string, number][] = [
      ["/v1/spots?q=a", 400],
      ["/v1/spots?q=ab&limit=0", 400],
      ["/v1/spots?q=ab&limit=2.5", 400],
      ["/v1/spots/nearby?lat=91&lng=0", 400],
      ["/v1/spots/nearby?lat=0&lng=0&radius=101", 400],
      ["/v1/spots/x/forecast?days=8", 400],
      ["/v1/spots/x/tides?days=0", 400],
      ["/v1/spots/no-such-spot", 404],
      ["/v1/spots/no-such-spot/forecast", 404],
      ["/v1/spots/no-such-spot/tides", 404],
      ["/v1/spots/%E0%A4%A", 404],
      ["/v1/spots?q=zz&limit=50", 200],
      ["/v1/spots/nearby?lat=0&lng=0&radius=0", 200],
      ["/v1/usage", 200],
    ];
    for (const [path, status] of cases) expect([path, (await server.get(path, key)).status]).toEqual([path, status]);
  });

  test("429 with Retry-After, and requests outside the document answer in the Error shape", async () => {
    const key = await server.key("starter", { minuteLimit: 1 });
    expect((await server.get("/v1/usage", key)).status).toBe(200);
    const refused = await server.get("/v1/spots?q=ab", key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const other = await server.key("starter");
    expect((await apiFetch(server.url + "/v1/spots?q=ab", { method: "POST", headers: { "X-API-Key": other } })).status).toBe(405);
    expect((await server.get("/v1/nothing-here", other)).status).toBe(404);
    expect((await apiFetch(server.url + "/nothing-here")).status).toBe(404);
  });

  test("only the documented paths answer: a trailing slash is 404, not an uncounted twin of the operation", async () => {
    const key = await server.key("starter");
    for (const path of ["/v1/spots/?q=pipeline", "/v1/spots/nearby/?lat=0&lng=0", "/v1/spots/pipeline/", "/v1/spots/pipeline/tides/", "/v1/usage/"]) {
      expect([path, (await server.get(path, key)).status]).toEqual([path, 404]);
    }
  });

  test("the body stays readable for the caller after validation", async () => {
    const res = await server.get("/v1/usage", await server.key("starter"));
    expect(((await res.json()) as { days: unknown[] }).days).toHaveLength(30);
  });
});

describe("the response validator is strict (it can fail)", () => {
  let validator: ResponseValidator;
  let usage: Json;
  let keyedHeaders: Record<string, string>;

  beforeAll(async () => {
    validator = await responseValidatorFor(server.url);
    const res = await server.get("/v1/usage", await server.key("starter"));
    usage = (await res.json()) as Json;
    keyedHeaders = Object.fromEntries(res.headers.entries());
  });

  const headers = (changes: Record<string, string | null> = {}) => {
    const h = new Headers(keyedHeaders);
    for (const [name, value] of Object.entries(changes)) (value === null ? h.delete(name) : h.set(name, value));
    return h;
  };
  const check = (path: string, status: number, body: unknown, h = headers(), method = "GET") =>
    validator.check(method, path, status, h, body === undefined ? "" : JSON.stringify(body));

  const spot = { id: "la-graviere", name: "La Gravière", country: "France", region: "Nouvelle-Aquitaine", lat: 43.67, lng: -1.45 };
  const hour = {
    time: "2026-03-01T10:00:00Z",
    waveHeight: 1.4,
    swellHeight: 1.2,
    wavePeriod: 11,
    waveDirection: 290,
    windSpeed: 12,
    windDirection: 90,
    windGust: 20,
    windDirectionType: "offshore",
    airTemperature: 14,
    waterTemperature: 13,
    weatherCode: 3,
    tide: { height: 2.1, state: "rising" },
    rating: { beginner: 2, intermediate: 4, advanced: 3 },
  };
  const forecast = {
    spot: { id: spot.id, name: spot.name, country: spot.country },
    units: "metric",
    updatedAt: "2026-03-01T06:00:00Z",
    attribution: "Open-Meteo, CC BY 4.0",
    hours: [hour],
    daily: [{ date: "2026-03-01", sunrise: "2026-03-01T07:12:00Z", sunset: null, uvIndexMax: 2.5 }],
  };
  const forecastHeaders = () => headers({ ETag: '"abc"', "Cache-Control": "private, max-age=60" });

  test("accepts what the server sends (the baselines the rejections below start from)", () => {
    expect(check("/v1/usage", 200, usage)).toEqual([]);
    expect(check("/v1/spots/la-graviere", 200, spot)).toEqual([]);
    expect(check("/v1/spots/nearby", 200, [{ ...spot, hexId: "0123456789abcdef", distanceKm: 0.4 }])).toEqual([]);
    expect(check("/v1/spots/la-graviere/forecast", 200, forecast, forecastHeaders())).toEqual([]);
    expect(check("/v1/spots/la-graviere/forecast", 304, undefined, forecastHeaders())).toEqual([]);
    expect(check("/v1/spots/la-graviere/forecast", 200, forecast, forecastHeaders(), "HEAD")).toEqual([]);
    expect(check("/v1/spots/la-graviere/tides", 200, { spot: { id: spot.id, name: spot.name }, units: "metric", extremes: [], tideless: true, datum: null, station: null })).toEqual([]);
    expect(check("/v1/usage", 401, { error: { code: "invalid_key", message: "No key." } }, new Headers({ "Content-Type": "application/json" }))).toEqual([]);
  });

  test("rejects undeclared statuses and undocumented requests that succeed", () => {
    expect(check("/v1/usage", 418, usage).join()).toContain("status 418 is not declared for getUsage");
    expect(check("/v1/spots/x", 400, { error: { code: "invalid_request", message: "m" } }).join()).toContain("not declared for getSpot");
    expect(check("/v1/other", 200, {}).join()).toContain("not in the document");
  });

  test("rejects bodies that break the schema: missing, extra, mistyped or out-of-range fields", () => {
    const { today: _today, ...withoutToday } = usage;
    expect(check("/v1/usage", 200, withoutToday).join()).toContain("today");
    expect(check("/v1/usage", 200, { ...usage, extra: 1 }).join()).toContain("additional properties");
    expect(check("/v1/usage", 200, { ...usage, days: usage.days.slice(1) }).join()).toContain("fewer than 30");
    expect(check("/v1/spots/nearby", 200, [spot]).join()).toContain("distanceKm");
    expect(check("/v1/spots", 200, [{ ...spot, distanceKm: 1 }]).join()).toContain("additional properties");
    expect(check("/v1/spots/x", 200, { ...spot, hexId: "XYZ" }).join()).toContain("pattern");
    const bad = (h: Json) => check("/v1/spots/x/forecast", 200, { ...forecast, hours: [{ ...hour, ...h }] }, forecastHeaders()).join();
    expect(bad({ windDirectionType: "sideshore" })).toContain("allowed values");
    expect(bad({ rating: { beginner: 6, intermediate: 1, advanced: 1 } })).toContain("<= 5");
    expect(bad({ waveDirection: 290.5 })).toContain("integer");
    expect(bad({ time: "2026-03-01T10:00" })).toContain("date-time");
    expect(bad({ tide: { height: 1 } })).toContain("state");
    expect(check("/v1/spots/x/forecast", 200, { ...forecast, units: "feet" }, forecastHeaders()).join()).toContain("allowed values");
    expect(check("/v1/usage", 401, { error: { code: "nope", message: "m" } }, new Headers({ "Content-Type": "application/json" })).join()).toContain("allowed values");
  });

  test("rejects missing or malformed headers, a wrong content type and a body where none is declared", () => {
    expect(check("/v1/usage", 200, usage, headers({ "X-RateLimit-Limit": null })).join()).toContain("required header X-RateLimit-Limit is missing");
    expect(check("/v1/usage", 200, usage, headers({ "X-RateLimit-Remaining": "many" })).join()).toContain("X-RateLimit-Remaining");
    expect(check("/v1/usage", 200, usage, headers({ "X-RateLimit-Reset": "tomorrow" })).join()).toContain("X-RateLimit-Reset");
    expect(check("/v1/usage", 200, usage, headers({ RateLimit: "lots" })).join()).toContain("header RateLimit");
    expect(check("/v1/usage", 429, { error: { code: "rate_limited", message: "m" } }).join()).toContain("required header Retry-After is missing");
    expect(check("/v1/usage", 429, { error: { code: "rate_limited", message: "m" } }, headers({ "Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT" })).join()).toContain("Retry-After");
    expect(check("/v1/spots/x/forecast", 200, forecast).join()).toContain("required header ETag is missing");
    expect(check("/v1/usage", 200, usage, headers({ "Content-Type": "text/plain" })).join()).toContain("not application/json");
    expect(check("/v1/spots/x/forecast", 304, forecast, forecastHeaders()).join()).toContain("declared without a body");
  });
});
