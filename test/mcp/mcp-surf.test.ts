/**
 * The MCP tools added by issue #16 — best_spots and surf_summary — through the SDK's own client against an
 * in-process server whose forecasts come from a refresh against the fake Open-Meteo: output schemas, parity
 * with GET /v1/spots/best, the summary's size (7 days under 2 KB of text), get_forecast's text on real data, and
 * errors in the spec's words.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { refreshForecasts } from "../../src/server/refresh";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { apiFetch } from "../support/http";
import { ManualClock, startTestServer, type TestServer } from "../support/inprocess";

let fake: FakeOpenMeteo;
let server: TestServer;
let key: string;
let client: Client;
const clock = new ManualClock(Date.parse("2026-11-21T06:20:00Z"));
const PENICHE = { lat: 39.344, lng: -9.363 };

beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: "2026-11-21" });
  server = await startTestServer({ clock, env: { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url } });
  key = await server.key("scale");
  const spots = [...server.app.spots.nearby({ ...PENICHE, radius: 20, limit: 8 }), server.app.spots.get("pipeline")];
  const summary = await refreshForecasts(server.app, { spots, client: { backoffMs: 1 } });
  expect(summary.ok).toBe(spots.length);
  client = new Client({ name: "surfcast-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { "X-API-Key": key } }, fetch: (url, init) => apiFetch(String(url), init) }),
  );
}, 60_000); // the refresh computes facings and tides

afterAll(async () => {
  await client?.close();
  await server?.close();
  await fake?.close();
});

const textOf = (r: Awaited<ReturnType<Client["callTool"]>>) => (r.content as { type: string; text: string }[])[0]!.text;

describe("best_spots and surf_summary (SDK client)", () => {
  test("tools/list: the four spec tools unchanged, plus the two with their parameters", async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(["best_spots", "get_forecast", "get_tides", "list_alerts", "search_spots", "spot_climate", "spot_now", "spot_observations", "spots_nearby", "surf_summary"]);
    expect(Object.keys(byName.best_spots!.inputSchema.properties!).sort()).toEqual(["hours", "lat", "level", "limit", "lng", "radius_km", "units"]);
    expect(byName.best_spots!.inputSchema.required).toEqual(["lat", "lng"]);
    expect(Object.keys(byName.surf_summary!.inputSchema.properties!).sort()).toEqual(["days", "level", "spot_id", "units"]);
    expect(byName.surf_summary!.inputSchema.required).toEqual(["spot_id"]);
  });

  test("best_spots answers what GET /v1/spots/best answers (structuredContent), one line a spot as text", async () => {
    const result = await client.callTool({ name: "best_spots", arguments: { ...PENICHE, radius_km: 20, level: "advanced", hours: 48, limit: 5 } });
    expect(result.isError).toBeFalsy();
    const v1 = await (await server.get(`/v1/spots/best?lat=${PENICHE.lat}&lng=${PENICHE.lng}&radius=20&level=advanced&hours=48&limit=5`, key)).text();
    const spots = JSON.parse(v1) as { spot: { id: string }; rating: number; surf: { min: number; max: number } | null }[];
    expect(result.structuredContent).toEqual({ spots });
    const lines = textOf(result).split("\n");
    expect(lines[0]).toStartWith("Best spots for advanced surfers within 20 km of 39.344, -9.363 over the next 48 hours");
    expect(lines[0]).toContain("(Europe/Lisbon, UTC+0)");
    expect(lines.slice(1, -1).map((l) => l.split(" | ")[0])).toEqual(spots.map((s) => s.spot.id));
    for (const [i, s] of spots.entries()) expect(lines[i + 1]).toContain(` | ${s.rating} `);
    expect(textOf(result)).not.toContain("DEMO DATA");
    expect(spots.length).toBeGreaterThan(0);
    expect(spots.every((s) => s.surf !== null)).toBe(true);
    const ratings = spots.map((s) => s.rating);
    expect(ratings).toEqual([...ratings].sort((a, b) => b - a));
  });

  test("surf_summary: 7 days in under 2 KB of text, one line a day, best windows, tides and sun", async () => {
    const result = await client.callTool({ name: "surf_summary", arguments: { spot_id: "pipeline" } });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(Buffer.byteLength(text)).toBeLessThan(2048);
    const lines = text.split("\n");
    expect(lines[0]).toContain("Pipeline, USA (pipeline)");
    expect(lines[0]).toContain("Pacific/Honolulu");
    const days = lines.filter((l) => /^\d{4}-\d{2}-\d{2}: /.test(l));
    expect(days.length).toBeGreaterThanOrEqual(7);
    for (const line of days) expect(line).toMatch(/surf \d+\.\d-\d+\.\d \| wind \d+-\d+ .*\| best B .*, I .*, A .* \| tides .* \| sun \d\d:\d\d-\d\d:\d\d$/);
    expect(text).toMatch(/H \d\d:\d\d \d+\.\d/);
    expect(lines.at(-1)).toContain("CC BY 4.0");
    const structured = result.structuredContent as { spot: { timezone: string }; days: { best: Record<string, unknown>; tides: unknown[] }[] };
    expect(structured.spot.timezone).toBe("Pacific/Honolulu");
    expect(Object.keys(structured.days[0]!.best).sort()).toEqual(["advanced", "beginner", "intermediate"]);

    const one = await client.callTool({ name: "surf_summary", arguments: { spot_id: "pipeline", days: 2, level: "beginner" } });
    const oneDays = (one.structuredContent as { days: { best: Record<string, unknown> }[] }).days;
    expect(oneDays.length).toBeLessThanOrEqual(3);
    expect(Object.keys(oneDays[0]!.best)).toEqual(["beginner"]);
    expect(textOf(one)).toContain("best B ");
    expect(textOf(one)).not.toContain(", I ");
  });

  test("errors in the spec's words, naming the MCP parameters", async () => {
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError).toBe(true);
      return textOf(r);
    };
    expect(await call("best_spots", { lat: 39 })).toBe("invalid_request: Parameter 'lng' is required.");
    expect(await call("best_spots", { lat: 39, lng: -9, radius_km: 500 })).toContain("'radius_km' must be");
    expect(await call("best_spots", { lat: 39, lng: -9, hours: 100 })).toContain("'hours' must be an integer from 1 to 72");
    expect(await call("surf_summary", { spot_id: "pipeline", level: "pro" })).toContain("'level' must be one of beginner, intermediate, advanced");
    expect(await call("surf_summary", { spot_id: "no-such-spot" })).toStartWith("not_found:");
    expect(await call("surf_summary", { spot_id: "mavericks" })).toStartWith("no_forecast:");
  });

  test("get_forecast on real data: a table of daylight hours ending with the Open-Meteo attribution, no demo banner", async () => {
    const result = await client.callTool({ name: "get_forecast", arguments: { spot_id: "pipeline" } });
    const text = textOf(result);
    const forecast = (await (await server.get("/v1/spots/pipeline/forecast", key)).json()) as { attribution: string; hours: unknown[] };
    expect(result.structuredContent).toEqual(forecast);
    expect(text).toStartWith("Pipeline, USA (pipeline): surf forecast");
    expect(text).toContain("Times are local (Pacific/Honolulu, UTC-10)");
    expect(text.split("\n").at(-1)).toBe(`Attribution: ${forecast.attribution}`);
    expect(text).not.toContain("DEMO DATA");
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(16 * 1024);
  });

  test("sizes for docs/mcp.md", async () => {
    const sizes: Record<string, number> = {};
    const measure = async (label: string, name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args });
      sizes[label] = Buffer.byteLength(textOf(r));
      sizes[`${label} (structuredContent)`] = Buffer.byteLength(JSON.stringify(r.structuredContent));
    };
    await measure("get_forecast 7 days", "get_forecast", { spot_id: "pipeline" });
    await measure("surf_summary 7 days", "surf_summary", { spot_id: "pipeline" });
    await measure("surf_summary 1 day, one level", "surf_summary", { spot_id: "pipeline", days: 1, level: "intermediate" });
    await measure("best_spots 10", "best_spots", { ...PENICHE, radius_km: 20 });
    await measure("get_tides 7 days", "get_tides", { spot_id: "pipeline" });
    console.log("MCP text sizes (bytes):", JSON.stringify(sizes));
    for (const [label, size] of Object.entries(sizes)) if (!label.endsWith("(structuredContent)")) expect(size).toBeLessThanOrEqual(16 * 1024);
    expect(sizes["get_forecast 7 days"]!).toBeLessThan(sizes["get_forecast 7 days (structuredContent)"]! / 8);
    expect(sizes["surf_summary 7 days"]!).toBeLessThan(sizes["get_forecast 7 days"]! / 4);
  });
});
