/**
 * GET /v1/spots/{id}/climate and MCP's spot_climate through the compiled binary, against the fake Open-Meteo's ERA5
 * history (Marine `models=era5_ocean` and the archive, every hour of any past range from a known synthetic climate):
 * the first ask pending, then twelve months whose percentiles are those of the served hours, the best months the
 * synthetic seasons make, a second spot of the cell and a restart without an upstream call, a failed fetch serving
 * nothing. Every answer is held to the served OpenAPI document (apiFetch).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { apiFetch } from "../support/http";
import { waitFor } from "../support/wait";
import type { ClimateResponse } from "../../src/climate/types";
import { seasonClause } from "../../src/climate/season";
import type { Spot, SpotDetail } from "../../src/spots/types";

const HOUR = 3_600_000;
const SUPERTUBOS = { lat: 39.344818927394, lng: -9.3645143508911 };
const ULUWATU = { lat: -8.8166310993101, lng: 115.08625030518 };

let fake: FakeOpenMeteo;
let server: RunningServer;
let key: string;
let supertubos: Spot;

const envOf = (upstream: FakeOpenMeteo) => ({
  SURFCAST_OPEN_METEO_MARINE_URL: upstream.url,
  SURFCAST_OPEN_METEO_FORECAST_URL: upstream.url,
  SURFCAST_OPEN_METEO_ARCHIVE_URL: upstream.url,
  SURFCAST_OPEN_METEO_RETRIES: "0",
  SURFCAST_REFRESH_SCOPE: "requested",
});

const get = (target: RunningServer, path: string, apiKey = key) => apiFetch(target.url + path, { headers: { "X-API-Key": apiKey } });

async function spotAt(target: RunningServer, at: { lat: number; lng: number }, apiKey = key): Promise<Spot> {
  const [found] = (await (await get(target, `/v1/spots/nearby?lat=${at.lat}&lng=${at.lng}&radius=1&limit=1`, apiKey)).json()) as Spot[];
  if (!found) throw new Error(`no spot at ${at.lat}, ${at.lng}`);
  return found;
}

/** The climate once it is there (202s meanwhile). */
async function climateOf(target: RunningServer, spotId: string, apiKey = key, query = ""): Promise<ClimateResponse> {
  return waitFor(`the climate of ${spotId}`, async () => {
    const res = await get(target, `/v1/spots/${spotId}/climate${query}`, apiKey);
    if (res.status === 202) return null;
    expect(res.status).toBe(200);
    return (await res.json()) as ClimateResponse;
  }, 60_000, 100);
}

/** An MCP tool's answer, through the gate as any client calls it. */
async function callTool(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; content: { text: string }[]; structuredContent: unknown }> {
  const res = await apiFetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "X-API-Key": key, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  return ((await res.json()) as { result: Awaited<ReturnType<typeof callTool>> }).result;
}

/** The month (1..12) now on the spot's clock. */
const monthAt = (spot: Spot) => Number(new Intl.DateTimeFormat("en", { timeZone: spot.timezone, month: "numeric" }).format(Date.now()));

/** The history requests the fake answered (the forecast's are not the climate's). */
const historyRequests = (upstream: FakeOpenMeteo) => upstream.requests.filter((r) => r.endpoint === "archive" || r.models.includes("era5_ocean"));

beforeAll(async () => {
  fake = await startFakeOpenMeteo();
  server = await startServer({ args: [], env: envOf(fake) });
  key = createKey(server.dataDir);
  supertubos = await spotAt(server, SUPERTUBOS);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

/** NumPy's default percentile: linear between the closest ranks. */
function percentile(sorted: number[], p: number): number {
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low]! + (rank - low) * (sorted[high]! - sorted[low]!);
}

describe("GET /v1/spots/{id}/climate", () => {
  test("asked first: 202 pending with Retry-After; then twelve months whose percentiles are those of the served hours", async () => {
    // Reading the spot starts no fetch, and its guide has no best months before the climate is known.
    const before = (await (await get(server, `/v1/spots/${supertubos.id}`)).json()) as SpotDetail;
    expect(before.guide.bestMonths).toBeUndefined();
    expect(historyRequests(fake)).toHaveLength(0);
    const first = await get(server, `/v1/spots/${supertubos.id}/climate`);
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ status: "pending" });
    expect(Number(first.headers.get("retry-after"))).toBeGreaterThan(0);

    const climate = await climateOf(server, supertubos.id);
    const lastFull = new Date(Date.now() - 7 * 24 * HOUR).getUTCFullYear() - 1;
    expect(climate.source).toEqual({ model: "era5_ocean", cell: { lat: 39.5, lng: -9.5, distanceKm: expect.any(Number) }, years: { from: lastFull - 9, to: lastFull } });
    expect(climate.months.map((m) => m.month)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(climate.attribution).toContain("Copernicus");
    expect(climate.attribution).toContain("Open-Meteo");

    // Every served hour of the decade, by month, as the fake wrote them.
    const byMonth = Array.from({ length: 12 }, () => ({ height: [] as number[], period: [] as number[], wind: [] as number[] }));
    for (let t = Date.UTC(lastFull - 9, 0, 1); t < Date.UTC(lastFull + 1, 0, 1); t += HOUR) {
      const hour = fake.era5At(climate.source.cell.lat, climate.source.cell.lng, t);
      const m = byMonth[new Date(t).getUTCMonth()]!;
      if (hour.waveHeight !== null) m.height.push(hour.waveHeight);
      if (hour.wavePeriod !== null) m.period.push(hour.wavePeriod);
      m.wind.push(hour.windSpeed);
    }
    const round = (v: number, decimals: number) => Math.round(v * 10 ** decimals) / 10 ** decimals;
    climate.months.forEach((month, i) => {
      const served = byMonth[i]!;
      const [height, period, wind] = [served.height, served.period, served.wind].map((values) => values.sort((a, b) => a - b)) as [number[], number[], number[]];
      expect(month.waveHeight).toEqual({ p10: round(percentile(height, 10), 2), p25: round(percentile(height, 25), 2), p50: round(percentile(height, 50), 2), p75: round(percentile(height, 75), 2), p90: round(percentile(height, 90), 2) });
      expect(month.wavePeriod.p50).toBe(round(percentile(period, 50), 2));
      expect(month.windSpeed.p50).toBe(round(percentile(wind, 50), 1));
      // The rose: 16 shares summing to 1, the dominant direction its largest sector's.
      expect(month.waveDirection.rose).toHaveLength(16);
      expect(Math.abs(month.waveDirection.rose.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-9);
      expect(month.waveDirection.dominant).toBe(month.waveDirection.rose.indexOf(Math.max(...month.waveDirection.rose)) * 22.5);
    });

    // A year per request and API: ten of each, the Marine ones for ERA5-Ocean over one year each.
    const history = historyRequests(fake);
    expect(history.filter((r) => r.endpoint === "marine")).toHaveLength(10);
    expect(history.filter((r) => r.endpoint === "archive")).toHaveLength(10);
    expect(history.every((r) => r.days >= 365 && r.days <= 366)).toBe(true);
  }, 90_000);

  test("the synthetic seasons give the best months per level: small summers for beginners, medium seasons for intermediates, big ones for the advanced", async () => {
    const climate = await climateOf(server, supertubos.id);
    expect(climate.bestMonths).toEqual({ beginner: [6, 7, 8], intermediate: [3, 4, 5, 9, 10, 11], advanced: [1, 2, 3, 4, 5, 9, 10, 11, 12] });
    expect(climate.months[6]!.goodDays).toEqual({ beginner: 1, intermediate: 0, advanced: 0 });
    expect(climate.months[0]!.goodDays).toEqual({ beginner: 0, intermediate: 0, advanced: 1 });
  });

  test("the offshore share follows the spot's facing: the east wind until 18:00 UTC is offshore at a west-facing beach", async () => {
    // The spot's first forecast brings its facing.
    expect((await get(server, `/v1/spots/${supertubos.id}/forecast`)).status).toBe(200);
    const facing = await waitFor("the facing of the spot", async () => (await spotAt(server, SUPERTUBOS)).facing, 30_000, 100);
    expect(Math.abs(facing - 270)).toBeLessThan(45);
    const climate = await climateOf(server, supertubos.id);
    expect(climate.months.map((m) => m.offshoreShare)).toEqual(new Array(12).fill(0.75));
  }, 60_000);

  test("the spot guide has the climate's best months; spot_now and surf_summary say the season when the spot's month is among a level's best", async () => {
    const climate = await climateOf(server, supertubos.id);
    const detail = (await (await get(server, `/v1/spots/${supertubos.id}`)).json()) as SpotDetail;
    expect(detail.guide.bestMonths).toEqual(climate.bestMonths);

    // The synthetic seasons make every month a best month of some level at Supertubos, and not of another.
    const month = monthAt(supertubos);
    const levels = ["beginner", "intermediate", "advanced"] as const;
    const favoured = levels.find((level) => climate.bestMonths[level].includes(month))!;
    const other = levels.find((level) => !climate.bestMonths[level].includes(month))!;
    const season = seasonClause(climate.bestMonths, month)!;
    expect(season).toContain(" best month");

    const now = (await callTool("spot_now", { spot_id: supertubos.id })).content[0]!.text;
    expect(now).toContain(`; ${season}.`);
    expect(new TextEncoder().encode(now).length).toBeLessThan(1024);
    const summaryOf = async (level: string) => (await callTool("surf_summary", { spot_id: supertubos.id, days: 2, level })).content[0]!.text;
    expect(await summaryOf(favoured)).toContain(seasonClause(climate.bestMonths, month, [favoured])!);
    expect(await summaryOf(other)).not.toContain(" best month");

    // A spot whose climate was never asked for: nothing said, nothing fetched.
    const requests = historyRequests(fake).length;
    const uluwatu = await spotAt(server, ULUWATU);
    const quiet = (await callTool("spot_now", { spot_id: uluwatu.id })).content[0]!.text;
    expect(quiet).toStartWith(`${uluwatu.name} (`);
    expect(quiet).not.toContain(" best month");
    expect(((await (await get(server, `/v1/spots/${uluwatu.id}`)).json()) as SpotDetail).guide.bestMonths).toBeUndefined();
    expect(historyRequests(fake)).toHaveLength(requests);
  }, 60_000);

  test("a second spot in the same cell is answered at once, without an upstream call", async () => {
    const before = historyRequests(fake).length;
    const baleal = await spotAt(server, { lat: 39.367217470593, lng: -9.3424129486084 });
    expect(baleal.id).not.toBe(supertubos.id);
    const res = await get(server, `/v1/spots/${baleal.id}/climate`);
    expect(res.status).toBe(200);
    const climate = (await res.json()) as ClimateResponse;
    expect(climate.spot.id).toBe(baleal.id);
    expect(climate.source.cell).toMatchObject({ lat: 39.5, lng: -9.5 });
    expect(historyRequests(fake)).toHaveLength(before);
  });

  test("units=imperial: wave heights in feet, wind in mph; a bad units or an unknown spot is a 400 or a 404", async () => {
    const metric = await climateOf(server, supertubos.id);
    const imperial = await climateOf(server, supertubos.id, key, "?units=imperial");
    expect(imperial.units).toBe("imperial");
    expect(imperial.months[0]!.waveHeight.p50).toBe(Math.round((metric.months[0]!.waveHeight.p50 / 0.3048) * 100) / 100);
    expect(imperial.months[0]!.windSpeed.p50).toBe(Math.round((metric.months[0]!.windSpeed.p50 / 1.609344) * 10) / 10);
    expect(imperial.months[0]!.goodDays).toEqual(metric.months[0]!.goodDays);
    expect((await get(server, `/v1/spots/${supertubos.id}/climate?units=feet`)).status).toBe(400);
    expect((await get(server, "/v1/spots/no-such-spot/climate")).status).toBe(404);
  });

  test("counted as `climate` in usage", async () => {
    const usage = (await (await get(server, "/v1/usage")).json()) as { days: { byEndpoint: Record<string, number> }[] };
    expect(usage.days.at(-1)!.byEndpoint.climate).toBeGreaterThanOrEqual(5);
  });

  test("MCP spot_climate: the same climate as structuredContent and a line per month, in either units", async () => {
    const result = await callTool("spot_climate", { spot_id: supertubos.id });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(await climateOf(server, supertubos.id));
    expect(result.content[0]!.text).toContain("Best months: beginner Jun, Jul, Aug; intermediate Mar, Apr, May, Sep, Oct, Nov;");
    expect(result.content[0]!.text.split("\n").filter((line) => /^[A-Z][a-z]{2}: waves /.test(line))).toHaveLength(12);
    // units: imperial gives the /v1 answer's feet and mph, and the text says them.
    const imperial = await callTool("spot_climate", { spot_id: supertubos.id, units: "imperial" });
    expect(imperial.structuredContent).toEqual(await climateOf(server, supertubos.id, key, "?units=imperial"));
    expect(imperial.content[0]!.text).toMatch(/^Jan: waves [\d.]+–[\d.]+ ft .* wind [\d.]+ mph/m);
  });

  test("a restart keeps the climate: answered at once, no second fetch", async () => {
    const before = historyRequests(fake).length;
    await server.stop();
    server = await startServer({ dataDir: server.dataDir, args: [], env: envOf(fake) });
    const res = await get(server, `/v1/spots/${supertubos.id}/climate`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as ClimateResponse).bestMonths.beginner).toEqual([6, 7, 8]);
    expect(historyRequests(fake)).toHaveLength(before);
  }, 60_000);
});

describe("a failed fetch", () => {
  test("answers 503 climate_unavailable with Retry-After and keeps nothing: after a restart the cell is fetched anew, whole", async () => {
    const failing = await startFakeOpenMeteo();
    // The first year's wave heights come, its wind does not.
    failing.inject("503", { endpoint: "archive" });
    let target = await startServer({ args: [], env: envOf(failing) });
    try {
      const apiKey = createKey(target.dataDir);
      const uluwatu = await spotAt(target, ULUWATU, apiKey);
      expect((await get(target, `/v1/spots/${uluwatu.id}/climate`, apiKey)).status).toBe(202);
      const failed = await waitFor("the failed fetch's answer", async () => {
        const res = await get(target, `/v1/spots/${uluwatu.id}/climate`, apiKey);
        return res.status === 503 ? res : null;
      }, 30_000, 100);
      expect(Number(failed.headers.get("retry-after"))).toBeGreaterThan(0);
      const body = (await failed.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("climate_unavailable");
      expect(body.error.message).toContain("503");
      expect(historyRequests(failing).map((r) => r.endpoint)).toEqual(["marine", "archive"]);

      await target.stop();
      failing.reset();
      target = await startServer({ dataDir: target.dataDir, args: [], env: envOf(failing) });
      // Nothing of the failed decade was kept: the cell is pending again, then whole.
      expect((await get(target, `/v1/spots/${uluwatu.id}/climate`, apiKey)).status).toBe(202);
      const climate = await climateOf(target, uluwatu.id, apiKey);
      // South of the equator the synthetic seasons turn: small sea from December to February.
      expect(climate.bestMonths.beginner).toEqual([1, 2, 12]);
    } finally {
      await target.stop();
      await failing.close();
    }
  }, 120_000);
});
