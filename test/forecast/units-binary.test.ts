/**
 * Imperial units on every read, through the compiled binary on demo data: the forecast in feet, mph and °F equal to
 * the metric answer converted (the same spot, the same hours), tides in feet, best spots' surf in feet, and the MCP
 * tools that carry measurements taking `units`; every answer says its units and is checked against the served
 * OpenAPI document (apiFetch).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ForecastResponse } from "../../src/forecast/types";
import type { TidesResponse } from "../../src/tides/types";
import type { BestSpot } from "../../src/forecast/best-spots";
import { cliAsync, createKey, startServer, type RunningServer } from "../support/binary";
import { tempDir } from "../support/env";
import { apiFetch } from "../support/http";

const PENICHE = { lat: 39.344, lng: -9.363 };
const SPOTS = ["supertubos", "pipeline"];

let server: RunningServer;
let key: string;
let client: Client;

beforeAll(async () => {
  const dir = tempDir("units-binary");
  key = createKey(dir, "units@example.com", "scale");
  server = await startServer({ dataDir: dir, args: ["--no-scheduler", "--demo"] });
  const nearby = (await get<{ id: string }[]>(`/v1/spots/nearby?lat=${PENICHE.lat}&lng=${PENICHE.lng}&radius=20&limit=5`)).map((s) => s.id);
  const refresh = await cliAsync(dir, ["refresh", "--spots", [...new Set([...nearby, ...SPOTS])].join(",")]);
  expect(refresh.code).toBe(0);
  client = new Client({ name: "units-binary", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { "X-API-Key": key } }, fetch: (url, init) => apiFetch(String(url), init) }),
  );
}, 120_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
});

async function get<T>(path: string): Promise<T> {
  const res = await apiFetch(server.url + path, { headers: { "X-API-Key": key } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

const ft = (m: number) => m / 0.3048;
const mph = (kmh: number) => kmh / 1.609344;
const f = (c: number) => (c * 9) / 5 + 32;

describe("units=imperial on /v1", () => {
  test.each(SPOTS)("%s: the forecast in ft, mph and °F is the metric one converted, hour by hour; ratings and windows unchanged", async (spot) => {
    const metric = await get<ForecastResponse>(`/v1/spots/${spot}/forecast?days=3`);
    const imperial = await get<ForecastResponse>(`/v1/spots/${spot}/forecast?days=3&units=imperial`);
    expect(metric.units).toBe("metric");
    expect(imperial.units).toBe("imperial");
    const byTime = new Map(metric.hours.map((h) => [h.time, h]));
    let compared = 0;
    for (const i of imperial.hours) {
      const m = byTime.get(i.time);
      if (!m) continue; // an hour boundary passed between the two requests
      compared++;
      expect(i.waveHeight).toBeCloseTo(ft(m.waveHeight), 1);
      expect(i.swellHeight).toBeCloseTo(ft(m.swellHeight), 1);
      expect(i.windSpeed).toBeCloseTo(mph(m.windSpeed), 0);
      expect(i.windGust).toBeCloseTo(mph(m.windGust), 0);
      expect(i.airTemperature).toBeCloseTo(f(m.airTemperature), 0);
      expect(i.waterTemperature).toBeCloseTo(f(m.waterTemperature), 0);
      if (m.tide) expect(i.tide!.height).toBeCloseTo(ft(m.tide.height), 1);
      if (m.surf) expect(i.surf!.max).toBeCloseTo(ft(m.surf.max), 1);
      for (const [k, s] of (m.swells ?? []).entries()) expect(i.swells![k]!.height).toBeCloseTo(ft(s.height), 1);
      // What has no unit to convert is the same.
      expect([i.rating, i.wavePeriod, i.waveDirection, i.windDirectionType, i.confidence?.level]).toEqual([m.rating, m.wavePeriod, m.waveDirection, m.windDirectionType, m.confidence?.level]);
    }
    expect(compared).toBeGreaterThan(24);
    expect(imperial.daily).toEqual(metric.daily);
    expect(imperial.attribution).toBe(metric.attribution);
  });

  test("an imperial forecast has its own ETag; a 304 holds per units", async () => {
    const res = (units: string, etag?: string) =>
      apiFetch(`${server.url}/v1/spots/supertubos/forecast?units=${units}`, { headers: { "X-API-Key": key, ...(etag ? { "If-None-Match": etag } : {}) } });
    const metricTag = (await res("metric")).headers.get("etag")!;
    const imperialTag = (await res("imperial")).headers.get("etag")!;
    expect(imperialTag).not.toBe(metricTag);
    expect((await res("imperial", imperialTag)).status).toBe(304);
    expect((await res("imperial", metricTag)).status).toBe(200);
  });

  test("tides in feet, the same extremes at the same times", async () => {
    const metric = await get<TidesResponse>("/v1/spots/supertubos/tides?days=2");
    const imperial = await get<TidesResponse>("/v1/spots/supertubos/tides?days=2&units=imperial");
    expect(imperial.units).toBe("imperial");
    expect(metric.extremes.length).toBeGreaterThan(0);
    const byTime = new Map(metric.extremes.map((e) => [e.time, e]));
    for (const e of imperial.extremes) if (byTime.has(e.time)) expect(e.height).toBeCloseTo(ft(byTime.get(e.time)!.height), 1);
    expect(imperial.station).toEqual(metric.station);
  });

  test("best spots: the same ranking, surf in feet, each saying its units", async () => {
    const q = `/v1/spots/best?lat=${PENICHE.lat}&lng=${PENICHE.lng}&radius=20&hours=24`;
    const metric = await get<BestSpot[]>(q);
    const imperial = await get<BestSpot[]>(`${q}&units=imperial`);
    expect(metric.length).toBeGreaterThan(0);
    expect(imperial.map((s) => s.spot.id)).toEqual(metric.map((s) => s.spot.id));
    for (const [i, s] of imperial.entries()) {
      expect(s.units).toBe("imperial");
      expect(metric[i]!.units).toBe("metric");
      expect(s.rating).toBe(metric[i]!.rating);
      expect(s.best).toEqual(metric[i]!.best);
      if (metric[i]!.surf) expect(s.surf!.max).toBeCloseTo(ft(metric[i]!.surf!.max), 1);
      expect(s.spot.distanceKm).toBe(metric[i]!.spot.distanceKm);
    }
  });
});

describe("MCP tools take units", () => {
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: Record<string, unknown> };
    expect(result.isError).toBeFalsy();
    return { text: result.content[0]!.text, structured: result.structuredContent };
  };

  test("get_forecast: the structured answer is the /v1 imperial one, the text says ft, mph and °F", async () => {
    const { text, structured } = await call("get_forecast", { spot_id: "supertubos", days: 2, units: "imperial" });
    expect(structured.units).toBe("imperial");
    expect(text).toContain("surf ft");
    expect(text).toContain("wind mph");
    expect(text).toMatch(/water \d+°F/);
    expect(text).not.toContain("km/h");
    const metric = await call("get_forecast", { spot_id: "supertubos", days: 2 });
    expect(metric.structured.units).toBe("metric");
    expect(metric.text).toContain("wind km/h");
  });

  test("get_tides, best_spots and surf_summary in feet; spot_now as before", async () => {
    const tides = await call("get_tides", { spot_id: "supertubos", days: 2, units: "imperial" });
    expect(tides.structured.units).toBe("imperial");
    expect(tides.text).toContain("waters, ft above");
    const best = await call("best_spots", { ...PENICHE, radius_km: 20, units: "imperial" });
    expect((best.structured.spots as BestSpot[]).every((s) => s.units === "imperial")).toBe(true);
    expect(best.text).toContain("surf ft (breaking face height)");
    const summary = await call("surf_summary", { spot_id: "supertubos", days: 3, units: "imperial" });
    expect(summary.structured.units).toBe("imperial");
    expect(summary.text).toContain("over daylight, ft; wind mph");
    const now = await call("spot_now", { spot_id: "supertubos", units: "imperial" });
    expect(now.structured.units).toBe("imperial");
  });

  test("a units that is neither is refused like on /v1", async () => {
    const result = (await client.callTool({ name: "get_tides", arguments: { spot_id: "supertubos", units: "feet" } })) as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toBe("invalid_request: Parameter 'units' must be one of metric, imperial.");
  });
});
