/**
 * Several wave models through the compiled binary against a fake Open-Meteo whose models differ in known ways: one
 * marine request per batch names every configured model; every hour carries the models' agreement and its median
 * as waveHeight; a 4-day model stops counting after 96 h; a model reading only zeros is left out and named; a model
 * 1.9× the others makes the hour `low`; the grid cells answered from; `/now`; a spot where every model reads 0; a bad
 * SURFCAST_WAVE_MODELS; the spec's fields unchanged for a client that ignores the new ones. One running server;
 * each scenario is a `surfcast refresh` by hand of its own spot, with the fake set up for it, read back from the
 * server (every response held to the served OpenAPI document by apiFetch).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { BINARY } from "../support/env";
import { cli, createKey, installDir, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo, type FakeModel, type FakeRequest } from "../support/fake-open-meteo";
import { apiFetch } from "../support/http";
import type { ForecastHour, ForecastResponse } from "../../src/forecast/types";
import type { NowResponse } from "../../src/now/types";

const MODELS = ["ecmwf_wam025", "ncep_gfswave025", "meteofrance_wave", "gwam"];
/** The fake's GWAM (a 4-day model) has no values from this hour of the series on. */
const GWAM_HORIZON_HOURS = 96;
const HOUR_MS = 3_600_000;
/** The spec's ForecastHour: all fields required. */
const SPEC_HOUR_FIELDS = ["time", "waveHeight", "swellHeight", "wavePeriod", "waveDirection", "windSpeed", "windDirection", "windGust", "windDirectionType", "airTemperature", "waterTemperature", "weatherCode", "tide", "rating"];
const SPEC_RESPONSE_FIELDS = ["spot", "units", "updatedAt", "attribution", "hours", "daily"];

/** The fake's series start at 00:00 UTC today, so the served hours (from the current UTC hour) sit inside them. */
const FIRST_DAY = new Date().toISOString().slice(0, 10);
const FIRST_DAY_MS = Date.parse(`${FIRST_DAY}T00:00:00Z`);
/** Hours since the series' first hour: the index every model's horizon counts from. */
const seriesIndex = (h: ForecastHour) => (Date.parse(h.time) - FIRST_DAY_MS) / HOUR_MS;

interface Spot {
  id: string;
  lat: number;
  lng: number;
}

interface Scenario {
  spot: Spot;
  refresh: { code: number; stdout: string; stderr: string };
  requests: FakeRequest[];
}

let fake: FakeOpenMeteo;
let server: RunningServer;
let key: string;
const scenarios: Record<"agree" | "spread" | "landCell" | "allZero", Scenario> = {} as never;

const upstream = () => ({ SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_OPEN_METEO_RETRIES: "0", SURFCAST_WAVE_MODELS: MODELS.join(",") });

const get = (path: string) => apiFetch(server.url + path, { headers: { "X-API-Key": key } });

/** `surfcast refresh --spots <id>` on the server's data dir; async, so the in-process fake keeps answering. */
async function refreshByHand(spot: Spot, models: Record<string, FakeModel>): Promise<Scenario> {
  fake.reset();
  for (const [name, behaviour] of Object.entries(models)) fake.setModel(name, behaviour);
  const proc = Bun.spawn([BINARY, "--data-dir", server.dataDir, "refresh", "--spots", spot.id], { env: { ...process.env, ...upstream() }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { spot, refresh: { code, stdout, stderr }, requests: [...fake.requests] };
}

/** The served 7-day forecast once the server has noticed the document written by the other process. */
async function forecastOf(spot: Spot): Promise<ForecastResponse> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const res = await get(`/v1/spots/${spot.id}/forecast?days=7`);
    if (res.status === 200) return (await res.json()) as ForecastResponse;
    if (Date.now() > deadline) throw new Error(`no forecast for ${spot.id}: ${res.status} ${await res.text()}`);
    await Bun.sleep(100);
  }
}

const forecasts = new Map<string, ForecastResponse>();
const forecast = async (s: Scenario) => {
  if (!forecasts.has(s.spot.id)) forecasts.set(s.spot.id, await forecastOf(s.spot));
  return forecasts.get(s.spot.id)!;
};

beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: FIRST_DAY });
  const dataDir = installDir("wave-models");
  server = await startServer({ dataDir, env: upstream() });
  key = createKey(dataDir);
  // Spots near the Supertubos fixture: every one reads the same fixture series, each from its own request.
  const nearby = (await (await get("/v1/spots/nearby?lat=39.344&lng=-9.363&radius=50&limit=10")).json()) as Spot[];
  expect(nearby.length).toBeGreaterThanOrEqual(4);
  const [agree, spread, landCell, allZero] = nearby;
  // The refresh that stores nothing first: the others' documents, once served, show its writes were noticed too.
  scenarios.allZero = await refreshByHand(allZero!, Object.fromEntries(MODELS.map((m) => [m, { zero: true }])));
  scenarios.agree = await refreshByHand(agree!, {});
  scenarios.spread = await refreshByHand(spread!, { gwam: { scale: 1.9 } });
  scenarios.landCell = await refreshByHand(landCell!, { ncep_gfswave025: { zero: true } });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

const written = ["agree", "spread", "landCell"] as const;

describe("several wave models (compiled binary)", () => {
  test("each refresh succeeds with one marine request naming every configured model, in order", () => {
    for (const name of written) {
      const { refresh, requests } = scenarios[name];
      expect([name, refresh.code, refresh.stderr.includes("    at ")]).toEqual([name, 0, false]);
      expect(requests.filter((r) => r.endpoint === "marine").map((r) => r.models)).toEqual([MODELS]);
      expect(requests.filter((r) => r.endpoint === "forecast")).toHaveLength(1);
    }
    // Every model's columns counted in the weight: 4 models, as the summary says.
    expect(scenarios.agree.refresh.stdout).toContain(`weight ${scenarios.agree.requests.reduce((s, r) => s + Math.max(1, (r.variables * Math.max(1, r.models.length)) / 10), 0).toFixed(1)}`);
  });

  test("every hour of the 7-day forecast has confidence; waveHeight is its median; min ≤ median ≤ max", async () => {
    for (const name of written) {
      const body = await forecast(scenarios[name]);
      // From the current UTC hour to the end of the fetched week.
      expect(body.hours.length).toBeGreaterThan(120);
      expect(body.hours[0]!.time).toBe(new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS).toISOString().slice(0, 19) + "Z");
      for (const h of body.hours) {
        const c = h.confidence!;
        expect(c).toBeDefined();
        expect(["high", "medium", "low"]).toContain(c.level);
        expect(Number.isInteger(c.models) && c.models >= 1).toBe(true);
        expect(h.waveHeight).toBe(c.waveHeight.median);
        expect(c.waveHeight.min).toBeLessThanOrEqual(c.waveHeight.median);
        expect(c.waveHeight.median).toBeLessThanOrEqual(c.waveHeight.max);
        expect(c.waveHeight.min).toBeGreaterThan(0);
      }
    }
  });

  test("the 4-day model counts up to its 96th hour and not after; the models used are named, none left out", async () => {
    const body = await forecast(scenarios.agree);
    expect(body.models).toEqual({ used: MODELS, leftOut: {} });
    const counts = body.hours.map((h) => [h.time, h.confidence!.models]);
    expect(counts).toEqual(body.hours.map((h) => [h.time, seriesIndex(h) < GWAM_HORIZON_HOURS ? 4 : 3]));
    // Both sides of the horizon are served.
    expect(body.hours.some((h) => seriesIndex(h) < GWAM_HORIZON_HOURS)).toBe(true);
    expect(body.hours.some((h) => seriesIndex(h) >= GWAM_HORIZON_HOURS)).toBe(true);
  });

  test("agreeing models: high everywhere, min = median = max", async () => {
    for (const h of (await forecast(scenarios.agree)).hours) {
      expect([h.time, h.confidence!.level]).toEqual([h.time, "high"]);
      expect(h.confidence!.waveHeight.min).toBe(h.confidence!.waveHeight.max);
    }
  });

  test("a model 1.9× the others: low where it counts, high again past its horizon; the median stays the others' value", async () => {
    const agree = new Map((await forecast(scenarios.agree)).hours.map((h) => [h.time, h]));
    const body = await forecast(scenarios.spread);
    expect(body.models).toEqual({ used: MODELS, leftOut: {} });
    for (const h of body.hours) {
      const c = h.confidence!;
      const others = agree.get(h.time)!.waveHeight;
      expect([h.time, h.waveHeight, c.waveHeight.min]).toEqual([h.time, others, others]);
      if (seriesIndex(h) < GWAM_HORIZON_HOURS) {
        expect([h.time, c.level, c.models]).toEqual([h.time, "low", 4]);
        expect(c.waveHeight.max).toBe(Math.round(others * 1.9 * 100) / 100);
      } else {
        expect([h.time, c.level, c.models]).toEqual([h.time, "high", 3]);
        expect(c.waveHeight.max).toBe(others);
      }
    }
  });

  test("a model reading 0 where the others see sea is left out, named, and never counted; no hour reads 0 m", async () => {
    const agree = new Map((await forecast(scenarios.agree)).hours.map((h) => [h.time, h]));
    const body = await forecast(scenarios.landCell);
    expect(body.models).toEqual({ used: MODELS.filter((m) => m !== "ncep_gfswave025"), leftOut: { ncep_gfswave025: "zero series" } });
    for (const h of body.hours) {
      expect(h.waveHeight).toBeGreaterThan(0);
      expect(h.swellHeight).toBeGreaterThan(0);
      expect(h.wavePeriod).toBeGreaterThan(0);
      expect(h.confidence!.waveHeight.min).toBeGreaterThan(0);
      expect([h.time, h.confidence!.models]).toEqual([h.time, seriesIndex(h) < GWAM_HORIZON_HOURS ? 3 : 2]);
      expect([h.time, h.waveHeight, h.confidence!.level]).toEqual([h.time, agree.get(h.time)!.waveHeight, "high"]);
    }
  });

  test("the swell components follow the same medians: a disagreeing or land-cell model leaves the sea figures as the others read them", async () => {
    const agree = new Map((await forecast(scenarios.agree)).hours.map((h) => [h.time, h]));
    // The spots read the same fixture series (their facings, and so ratings and surf, differ).
    const sea = ({ waveHeight, swellHeight, wavePeriod, waveDirection, waterTemperature, swells }: ForecastHour) => ({ waveHeight, swellHeight, wavePeriod, waveDirection, waterTemperature, swells });
    for (const name of ["spread", "landCell"] as const) {
      const body = await forecast(scenarios[name]);
      expect(body.hours.map((h) => h.time)).toEqual([...agree.keys()]);
      for (const h of body.hours) expect([name, sea(h)]).toEqual([name, sea(agree.get(h.time)!)]);
    }
  });

  test("grid: the marine and weather cells the fake answered from, with their great-circle distance", async () => {
    for (const name of written) {
      const { spot, requests } = scenarios[name];
      const body = await forecast(scenarios[name]);
      // The point sent upstream is the spot's own (one spot per refresh), with 4 decimals.
      for (const r of requests) expect([r.endpoint, r.latitudes, r.longitudes]).toEqual([r.endpoint, [round4(spot.lat)], [round4(spot.lng)]]);
      expect(body.grid).toEqual({ marine: expectedCell(spot, 12), weather: expectedCell(spot, 10) });
    }
  });

  test("/now carries the current hour's confidence, the forecast hour's own", async () => {
    for (const name of ["agree", "spread"] as const) {
      const { spot } = scenarios[name];
      const now = (await (await get(`/v1/spots/${spot.id}/now`)).json()) as NowResponse;
      const conditions = now.conditions!;
      expect(conditions).not.toBeNull();
      const hour = (await forecast(scenarios[name])).hours.find((h) => h.time === conditions.time)!;
      expect(hour).toBeDefined();
      expect(conditions.confidence).toEqual(hour.confidence!);
      expect(conditions.waveHeight).toBe(hour.confidence!.waveHeight.median);
    }
    // The spread spot's current hour is inside GWAM's horizon: the disagreement shows now too.
    const spreadNow = (await (await get(`/v1/spots/${scenarios.spread.spot.id}/now`)).json()) as NowResponse;
    expect(spreadNow.conditions!.confidence!.level).toBe("low");
    // In feet too, the median is the hour's waveHeight.
    const imperial = ((await (await get(`/v1/spots/${scenarios.spread.spot.id}/now?units=imperial`)).json()) as NowResponse).conditions!;
    expect(imperial.confidence!.waveHeight.median).toBe(imperial.waveHeight);
    expect(imperial.confidence!.waveHeight.max).toBeGreaterThan(imperial.waveHeight);
  });

  test("where every model reads 0 no hour is served as 0 m: the spot has no forecast (404 no_forecast, the spec's error)", async () => {
    const { spot, refresh, requests } = scenarios.allZero;
    expect(requests.filter((r) => r.endpoint === "marine").map((r) => r.models)).toEqual([MODELS]);
    // The refresh counts the spot as not refreshed rather than storing zeros.
    expect(refresh.code).not.toBe(0);
    expect(refresh.stdout).toContain("Spots:     0 ok, 1 failed (of 1)");
    expect(refresh.stderr).not.toContain("    at ");
    const db = new Database(join(server.dataDir, "surfcast.db"), { readonly: true });
    const rows = db.query("SELECT count(*) AS n FROM forecast_documents WHERE spot_id = ?").get(spot.id) as { n: number };
    db.close();
    expect(rows.n).toBe(0);
    await forecast(scenarios.landCell); // served: the server has noticed the later refreshes, so this one's writes too
    const res = await get(`/v1/spots/${spot.id}/forecast`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(Object.keys(body)).toEqual(["error"]);
    expect(body.error.code).toBe("no_forecast");
    expect(typeof body.error.message).toBe("string");
  });

  test("a client ignoring the new fields sees the spec's fields, types unchanged; the served document requires only them", async () => {
    const document = (await (await fetch(server.url + "/openapi.json")).json()) as { components: { schemas: Record<string, { required?: string[] }> } };
    expect([...document.components.schemas.ForecastHour!.required!].sort()).toEqual([...SPEC_HOUR_FIELDS].sort());
    expect([...document.components.schemas.ForecastResponse!.required!].sort()).toEqual([...SPEC_RESPONSE_FIELDS].sort());
    for (const name of written) {
      const body = await forecast(scenarios[name]);
      for (const f of SPEC_RESPONSE_FIELDS) expect(body).toHaveProperty(f);
      expect(body.units).toBe("metric");
      for (const h of body.hours) {
        for (const f of SPEC_HOUR_FIELDS) expect(h).toHaveProperty(f);
        for (const f of ["waveHeight", "swellHeight", "wavePeriod", "windSpeed", "windGust", "airTemperature", "waterTemperature"] as const) expect(typeof h[f]).toBe("number");
        for (const f of ["waveDirection", "windDirection", "weatherCode"] as const) expect(Number.isInteger(h[f])).toBe(true);
        expect(h.windDirectionType === null || ["offshore", "onshore", "cross"].includes(h.windDirectionType)).toBe(true);
        for (const level of ["beginner", "intermediate", "advanced"] as const) expect([1, 2, 3, 4, 5]).toContain(h.rating[level]);
      }
    }
  });

  test("an unknown or repeated model in SURFCAST_WAVE_MODELS: exit 2, one line on stderr, no stack trace", () => {
    for (const [value, message] of [
      ["ecmwf_wam025,no_such_model", 'unknown wave model "no_such_model"'],
      ["gwam,dwd_gwam", 'wave model "gwam" is listed twice'],
      [" , ", "names no model"],
    ] as const) {
      for (const command of [["serve"], ["refresh", "--spots", scenarios.agree.spot.id]]) {
        const r = cli(server.dataDir, command, { ...upstream(), SURFCAST_WAVE_MODELS: value });
        expect([value, command[0], r.code]).toEqual([value, command[0], 2]);
        const lines = r.stderr.trim().split("\n");
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain("SURFCAST_WAVE_MODELS");
        expect(lines[0]).toContain(message);
        expect(r.stderr).not.toContain("    at ");
      }
    }
  });
});

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** The centre of the `cells`-per-degree cell holding the point the refresh sent, and its distance from the spot. */
function expectedCell(spot: Spot, cells: number) {
  const centre = (x: number) => Math.round(((Math.floor(round4(x) * cells) + 0.5) / cells) * 1e6) / 1e6;
  const lat = centre(spot.lat);
  const lng = centre(spot.lng);
  return { lat, lng, distanceKm: Math.round(greatCircleKm(spot.lat, spot.lng, lat, lng) * 10) / 10 };
}

/** Haversine on the mean Earth radius (IUGG), independently of the server's own. */
function greatCircleKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.sqrt(a));
}
