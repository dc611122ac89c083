/**
 * GET /v1/spots/{id}/observations and /verification through the compiled binary, against the fake NDBC and the fake
 * Open-Meteo (past hours included): the buoys are placed around real catalog spots, one scenario per spot.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cliAsync, createKey, startServer, type RunningServer } from "../support/binary";
import { startFakeNdbc, type FakeNdbc, type FakeStation } from "../support/fake-ndbc";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { apiFetch } from "../support/http";
import { feet } from "../../src/core/units";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ObservationsAnswer } from "../../src/observations/service";
import type { VerificationResponse } from "../../src/observations/types";
import type { Spot } from "../../src/spots/types";
import type { NowResponse } from "../../src/now/types";
import type { ForecastResponse } from "../../src/forecast/types";
import { DEFAULT_WAVE_MODELS } from "../../src/forecast/models";
import { waitFor } from "../support/wait";

type Observations = ObservationsAnswer & { units: string };

/** The model whose wave heights the fake Open-Meteo serves 20 % too high. */
const BIASED_MODEL = "ecmwf_wam025";

let ndbc: FakeNdbc;
let openMeteo: FakeOpenMeteo;
let server: RunningServer;
let off: RunningServer;
let key: string;
let env: Record<string, string>;
const spots: Record<string, Spot> = {};

async function get(target: RunningServer, apiKey: string, path: string): Promise<Response> {
  return apiFetch(target.url + path, { headers: { "X-API-Key": apiKey } });
}

async function ok<T>(path: string): Promise<T> {
  const res = await get(server, key, path);
  expect([path, res.status]).toEqual([path, 200]);
  return (await res.json()) as T;
}

/** The catalog's spot at a position. */
async function spotAt(at: { lat: number; lng: number }): Promise<Spot> {
  const [found] = await ok<Spot[]>(`/v1/spots/nearby?lat=${at.lat}&lng=${at.lng}&radius=1&limit=1`);
  if (!found) throw new Error(`no spot at ${at.lat}, ${at.lng}`);
  return found;
}

/** Where the catalog has the spots of the scenarios (Pipeline, Ocean Beach in San Francisco, Bells Beach, Supertubos, Mundaka, Uluwatu) (the fake NDBC's stations are placed before the server runs). */
const AT = {
  buoy: { lat: 21.66784799238, lng: -158.05057168007 },
  passedOver: { lat: 37.753547599917, lng: -122.51189231873 },
  none: { lat: -38.371808917148, lng: 144.28104400635 },
  stale: { lat: 39.344818927394, lng: -9.3645143508911 },
  html: { lat: 43.407448192835, lng: -2.6941394805908 },
  allMm: { lat: -8.8166310993101, lng: 115.08625030518 },
};

/** A station `northKm` north of a spot. */
const near = (at: { lat: number; lng: number }, id: string, northKm: number, more: Partial<FakeStation> = {}): FakeStation => ({ id, name: `Buoy ${id}`, lat: at.lat + northKm / 111.2, lng: at.lng, ...more });

const txtRequests = (id: string) => ndbc.requestsFor(`/data/realtime2/${id}.txt`).length;

beforeAll(async () => {
  openMeteo = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  openMeteo.setModel(BIASED_MODEL, { scale: 1.2 });
  const buoy = near(AT.buoy, "51201", 5, { owner: "Pacific Islands Ocean Observing System" });
  // The sea the buoys measure is the fixture's: a model scaled by 1.2 is 20 % too high there.
  buoy.waveHeight = (time) => openMeteo.waveHeightAt(buoy.lat, buoy.lng, time) ?? 1.5;
  const beyond = near(AT.passedOver, "46026", 20);
  beyond.waveHeight = (time) => openMeteo.waveHeightAt(beyond.lat, beyond.lng, time) ?? 1.5;
  ndbc = await startFakeNdbc({
    stations: [
      buoy,
      near(AT.passedOver, "FTPC1", 1, { type: "fixed", files: "no_waves" }),
      beyond,
      near(AT.stale, "62001", 10, { ageMinutes: 5 * 60 }),
      near(AT.html, "62002", 10, { files: "html" }),
      near(AT.allMm, "56001", 10, { files: "all_mm" }),
    ],
  });
  env = {
    SURFCAST_NDBC_URL: ndbc.url,
    SURFCAST_OPEN_METEO_MARINE_URL: openMeteo.url,
    SURFCAST_OPEN_METEO_FORECAST_URL: openMeteo.url,
    SURFCAST_OPEN_METEO_RETRIES: "0",
    SURFCAST_REFRESH_SCOPE: "requested",
  };
  server = await startServer({ args: [], env });
  key = createKey(server.dataDir);
  off = await startServer({ args: [], env: { ...env, SURFCAST_OBSERVATIONS: "off" } });

  for (const [scenario, at] of Object.entries(AT)) spots[scenario] = await spotAt(at);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await off?.stop();
  await ndbc?.close();
  await openMeteo?.close();
});

describe("GET /v1/spots/{id}/observations", () => {
  test("a spot with a buoy: its latest reading beside the forecast served for that hour, and the last 24 hours", async () => {
    // The spot's first forecast is fetched for the answer (the refresh scope `requested`) and shown beside the reading.
    const answer = await ok<Observations>(`/v1/spots/${spots.buoy!.id}/observations`);
    expect(answer.buoy).toMatchObject({ id: "51201", distanceKm: 5, owner: "Pacific Islands Ocean Observing System" });
    expect(answer.reason).toBeNull();
    expect(answer.units).toBe("metric");
    // The fake writes wave figures at :40 and :50 only, its newest row 15 minutes old.
    expect(answer.latest!.ageMinutes).toBeLessThan(90);
    expect(answer.latest!.waveHeight).toBeGreaterThan(0);
    expect(answer.forecast).not.toBeNull();
    expect(answer.forecast!.waveHeight).toBeGreaterThan(0);
    expect(answer.hours.length).toBeGreaterThanOrEqual(23);
    expect(answer.attribution).toContain("National Data Buoy Center");
  });

  test("within 30 minutes a buoy's files are not asked for again", async () => {
    const before = txtRequests("51201");
    expect(before).toBeGreaterThan(0);
    await ok(`/v1/spots/${spots.buoy!.id}/observations`);
    expect(txtRequests("51201")).toBe(before);
  });

  test("imperial units: feet, mph, °F, and the answer says so", async () => {
    const metric = await ok<Observations>(`/v1/spots/${spots.buoy!.id}/observations`);
    const imperial = await ok<Observations>(`/v1/spots/${spots.buoy!.id}/observations?units=imperial`);
    expect(imperial.units).toBe("imperial");
    expect(imperial.latest!.waveHeight).toBeCloseTo(metric.latest!.waveHeight! / 0.3048, 1);
    if (metric.latest!.waterTemperature !== null) expect(imperial.latest!.waterTemperature).toBeCloseTo((metric.latest!.waterTemperature * 9) / 5 + 32, 0);
    if (metric.latest!.windSpeed !== null) expect(imperial.latest!.windSpeed).toBeCloseTo(metric.latest!.windSpeed / 1.609344, 0);
    expect(imperial.latest!.dominantPeriod).toBe(metric.latest!.dominantPeriod);
  });

  test("a nearer station without waves is passed over for the wave buoy beyond it", async () => {
    const answer = await ok<Observations>(`/v1/spots/${spots.passedOver!.id}/observations`);
    expect(answer.buoy?.id).toBe("46026");
    expect(answer.latest).not.toBeNull();
  });

  test("no buoy within reach, a stale buoy", async () => {
    const none = await ok<Observations>(`/v1/spots/${spots.none!.id}/observations`);
    expect([none.buoy, none.latest, none.reason]).toEqual([null, null, "no_buoy_in_reach"]);
    const stale = await ok<Observations>(`/v1/spots/${spots.stale!.id}/observations`);
    expect(stale.buoy?.id).toBe("62001");
    expect([stale.latest, stale.reason]).toEqual([null, "stale"]);
  });

  test("an HTML error page or a file of MMs is never a 500, and no reading is made of it", async () => {
    for (const spot of [spots.html!, spots.allMm!]) {
      const answer = await ok<Observations>(`/v1/spots/${spot.id}/observations`);
      expect(answer.latest).toBeNull();
      expect(answer.reason).not.toBeNull();
    }
  });

  test("an unknown spot is a 404 in the spec's error shape", async () => {
    const res = await get(server, key, "/v1/spots/no-such-spot-anywhere/observations");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBeString();
  });

  test("SURFCAST_OBSERVATIONS=off: observations_off, and NDBC is never asked", async () => {
    const offKey = createKey(off.dataDir);
    const before = ndbc.requests.length;
    const res = await get(off, offKey, `/v1/spots/${spots.passedOver!.id}/observations`);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Observations;
    expect([answer.buoy, answer.latest, answer.reason]).toEqual([null, null, "observations_off"]);
    expect(ndbc.requests.length).toBe(before);
  });
});

describe("/now", () => {
  test("carries the buoy's fresh reading, the same as the observations answer's latest, in the units asked", async () => {
    const observations = await ok<Observations>(`/v1/spots/${spots.buoy!.id}/observations`);
    const metric = await ok<NowResponse>(`/v1/spots/${spots.buoy!.id}/now`);
    const { latest } = observations;
    expect(metric.observation).toEqual({
      buoy: { id: "51201", name: "Buoy 51201", distanceKm: 5 },
      time: latest!.time,
      ageMinutes: metric.observation!.ageMinutes,
      waveHeight: latest!.waveHeight,
      dominantPeriod: latest!.dominantPeriod,
      waveDirection: latest!.waveDirection,
    });
    expect(Math.abs(metric.observation!.ageMinutes - latest!.ageMinutes)).toBeLessThanOrEqual(1);
    const imperial = await ok<NowResponse>(`/v1/spots/${spots.buoy!.id}/now?units=imperial`);
    expect(imperial.observation!.waveHeight).toBe(feet(latest!.waveHeight!));
    expect(imperial.observation!.buoy.distanceKm).toBe(5);
    const many = await ok<{ spots: NowResponse[] }>(`/v1/now?spots=${spots.buoy!.id},${spots.stale!.id}`);
    expect(many.spots.map((s) => s.observation?.buoy.id ?? null)).toEqual(["51201", null]);
  });

  test("no observation where there is no fresh reading: a stale buoy, none in reach, observations off", async () => {
    for (const spot of [spots.stale!, spots.none!, spots.html!]) expect(await ok<NowResponse>(`/v1/spots/${spot.id}/now`)).not.toHaveProperty("observation");
    const offKey = createKey(off.dataDir);
    const res = await get(off, offKey, `/v1/spots/${spots.buoy!.id}/now`);
    expect(res.status).toBe(200);
    expect(await res.json()).not.toHaveProperty("observation");
  });
});

describe("MCP", () => {
  let client: Client;
  beforeAll(async () => {
    // The SDK client checks every structuredContent against the tool's listed outputSchema.
    client = new Client({ name: "observations", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { "X-API-Key": key } }, fetch: (url, init) => apiFetch(String(url), init) }));
    await client.listTools();
  });
  afterAll(() => client?.close());

  /** The fake writes the dominant period on the :50 rows only. */
  const periodOf = (r: { dominantPeriod: number | null }) => (r.dominantPeriod === null ? "" : ` at ${r.dominantPeriod} s`);

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).toBeFalsy();
    return { text: (result.content as { text: string }[])[0]!.text, structured: result.structuredContent as Record<string, unknown> };
  };

  test("spot_observations: the reading in words beside the forecast and the last 24 h; structuredContent is the /v1 JSON", async () => {
    const { text, structured } = await call("spot_observations", { spot_id: spots.buoy!.id });
    const v1 = await ok<Observations>(`/v1/spots/${spots.buoy!.id}/observations`);
    expect({ ...structured, latest: { ...(structured.latest as object), ageMinutes: 0 } }).toEqual({ ...v1, latest: { ...v1.latest!, ageMinutes: 0 } });
    const { latest, forecast } = v1;
    expect(text).toContain(`buoy 51201 Buoy 51201, 5 km: ${latest!.waveHeight} m${periodOf(latest!)} from ${latest!.waveDirection}°`);
    expect(text).toContain(`; forecast ${forecast!.waveHeight} m`);
    expect(text).toMatch(/Last 24 h, wave height m\/dominant period s: (\d\d:\d\d [\d.]+(\/\d+)?, ){20,}/);
    expect(text).toContain("National Data Buoy Center");
    const imperial = await call("spot_observations", { spot_id: spots.buoy!.id, units: "imperial" });
    expect(imperial.text).toContain(` ${feet(latest!.waveHeight!)} ft`);
  });

  test("spot_observations says why there is no reading", async () => {
    expect((await call("spot_observations", { spot_id: spots.none!.id })).text).toContain("no current buoy reading: no wave buoy within reach");
    expect((await call("spot_observations", { spot_id: spots.stale!.id })).text).toContain("no current buoy reading: buoy 62001 Buoy 62001, 10 km: its newest wave reading is older than 3 hours");
  });

  test("spot_now says the buoy in words", async () => {
    const { text, structured } = await call("spot_now", { spot_id: spots.buoy!.id });
    const now = structured as unknown as NowResponse;
    const o = now.observation!;
    expect(text).toContain(`; buoy 51201 Buoy 51201, 5 km: ${o.waveHeight} m${periodOf(o)} from ${o.waveDirection}°, ${o.ageMinutes} min ago; forecast ${now.conditions!.waveHeight} m;`);
    expect((await call("spot_now", { spot_id: spots.stale!.id })).text).not.toContain("buoy");
  });
});

describe("GET /v1/spots/{id}/verification", () => {
  test("a known model bias is measured within a few percent", async () => {
    const answer = await ok<VerificationResponse>(`/v1/spots/${spots.buoy!.id}/verification?days=7`);
    expect(answer.reason).toBeNull();
    const biased = answer.models.find((m) => m.model === BIASED_MODEL)!;
    expect(biased.n).toBeGreaterThanOrEqual(7 * 24 - 2);
    expect(biased.biasPercent!).toBeGreaterThan(17);
    expect(biased.biasPercent!).toBeLessThan(23);
  });

  test("days out of 7..45 is a 400 in the spec's error shape", async () => {
    for (const days of ["6", "46", "abc"]) {
      const res = await get(server, key, `/v1/spots/${spots.buoy!.id}/verification?days=${days}`);
      expect([days, res.status]).toEqual([days, 400]);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    }
  });

  test("no buoy within reach says why", async () => {
    const answer = await ok<VerificationResponse>(`/v1/spots/${spots.none!.id}/verification`);
    expect([answer.buoy, answer.reason]).toEqual([null, "no_buoy_in_reach"]);
  });

  test("a refresh keeps each model's forecast at the buoy in use, for byLeadDay", async () => {
    // Its verification was asked for above: the buoy is in use. The forecasts meet their readings in the days to come.
    const before = openMeteo.requests.length;
    const refresh = await cliAsync(server.dataDir, ["refresh", "--spots", spots.buoy!.id], env);
    expect(refresh.code).toBe(0);
    expect(refresh.stdout + refresh.stderr).toContain("the models' forecasts at the buoys in use kept for verification by lead day");
    expect(refresh.stdout + refresh.stderr).toMatch(/buoys=1\b/);
    expect(openMeteo.requests.slice(before).filter((r) => r.endpoint === "marine" && r.variables === 1)).toHaveLength(1);
  });
});

describe("SURFCAST_BIAS_CORRECTION=on", () => {
  const CORRECTION = { SURFCAST_BIAS_CORRECTION: "on" };
  /** A refresh of one spot by the command line (it writes the documents the server serves), then the forecast served after it. */
  async function refreshed(spot: Spot, extra: Record<string, string> = {}): Promise<ForecastResponse> {
    const before = (await ok<ForecastResponse>(`/v1/spots/${spot.id}/forecast?days=1`)).updatedAt;
    const run = await cliAsync(server.dataDir, ["refresh", "--spots", spot.id], { ...env, ...extra });
    expect(run.code).toBe(0);
    // The server sees the other process's commit within a second.
    return waitFor("the refreshed forecast", async () => {
      const forecast = await ok<ForecastResponse>(`/v1/spots/${spot.id}/forecast?days=1`);
      return forecast.updatedAt !== before && forecast;
    });
  }

  test("one model 20 % high, the median already right: the ratios would not lower the error, nothing changes", async () => {
    const forecast = await refreshed(spots.buoy!, CORRECTION);
    expect(forecast.models?.used).toEqual([...DEFAULT_WAVE_MODELS]);
    expect(forecast.models).not.toHaveProperty("correction");
  });

  test("every model 20 % high at a buoy 20 km away: the median scaled by the measured ratios, and the answer says so", async () => {
    for (const model of DEFAULT_WAVE_MODELS) openMeteo.setModel(model, { scale: 1.2 });
    try {
      const plain = await refreshed(spots.passedOver!);
      expect(plain.models).not.toHaveProperty("correction");
      const corrected = await refreshed(spots.passedOver!, CORRECTION);
      const correction = corrected.models!.correction!;
      expect(correction.buoy).toEqual({ id: "46026", name: "Buoy 46026", distanceKm: expect.closeTo(20, 0) });
      for (const model of DEFAULT_WAVE_MODELS) expect(correction.ratios[model]!).toBeCloseTo(1 / 1.2, 1);
      expect(correction.heldOutRmse.after).toBeLessThan(correction.heldOutRmse.before);
      // The served estimate is the corrected median; the swell is not rescaled.
      const hour = corrected.hours[0]!;
      const was = plain.hours.find((h) => h.time === hour.time)!;
      expect(hour.waveHeight).toBeCloseTo(was.waveHeight / 1.2, 1);
      expect(hour.swellHeight).toBe(was.swellHeight);
    } finally {
      for (const model of DEFAULT_WAVE_MODELS) openMeteo.setModel(model, { scale: model === BIASED_MODEL ? 1.2 : 1 });
    }
  });
});

test("usage counted under observations and verification", async () => {
  const usage = await ok<{ days: { byEndpoint: Record<string, number> }[] }>("/v1/usage");
  const today = usage.days.at(-1)!.byEndpoint;
  expect(today.observations).toBeGreaterThanOrEqual(9);
  expect(today.verification).toBeGreaterThanOrEqual(5);
});
