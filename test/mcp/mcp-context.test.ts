/**
 * MCP for a model's context (issue "The first hour", item 4), through the compiled binary in demo mode: every tool's
 * text stays under 16 KB at its largest arguments while structuredContent stays the /v1 JSON (and valid against the
 * tool's outputSchema); get_forecast's text is a table of daylight hours with the best windows and tides per day;
 * demo data says DEMO DATA on the text's first line; unknown arguments are errors naming the argument meant; the
 * tool list is measured. Then the text renderers' worst cases in-process (a polar week, 200-character names).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv from "ajv";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DEMO_ATTRIBUTION } from "../../src/forecast/demo";
import type { ForecastHour, ForecastResponse } from "../../src/forecast/types";
import type { TidesResponse } from "../../src/tides/types";
import { suggestArgument } from "../../src/mcp/arguments";
import { bestSpotsText, forecastText, nearbyText, searchText, TEXT_LIMIT } from "../../src/mcp/text";
import { LocalClock } from "../../src/core/local-time";
import { cliAsync, createKey, startServer, type RunningServer } from "../support/binary";
import { tempDir } from "../support/env";
import { apiFetch } from "../support/http";

const PENICHE = { lat: 39.344, lng: -9.363 };
const bytes = (s: string) => Buffer.byteLength(s, "utf8");
const count = (text: string, part: string) => text.split(part).length - 1;
/** One decimal, as the texts round. */
const one = (x: number) => (Math.round(x * 10) / 10).toFixed(1);

let server: RunningServer;
let key: string;
let client: Client;
let tools: Awaited<ReturnType<Client["listTools"]>>["tools"];
let listBytes = 0;

beforeAll(async () => {
  const dir = tempDir("mcp-context");
  key = createKey(dir, "context@example.com", "scale");
  server = await startServer({ dataDir: dir, args: ["--no-scheduler", "--demo"] });
  // best_spots at limit 50 needs 50 spots with a forecast: the 50 closest to Peniche, and Pipeline (other zone).
  const nearby = (await (await v1(`/v1/spots/nearby?lat=${PENICHE.lat}&lng=${PENICHE.lng}&radius=100&limit=50`)).json()) as { id: string }[];
  const refresh = await cliAsync(dir, ["refresh", "--spots", [...nearby.map((s) => s.id), "pipeline"].join(",")]);
  expect(refresh.stdout).toContain("51 ok, 0 failed");
  client = new Client({ name: "mcp-context", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { "X-API-Key": key } }, fetch: (url, init) => apiFetch(String(url), init) }),
  );
  // The SDK client validates every structuredContent against the listed outputSchema from now on.
  tools = (await client.listTools()).tools;
  listBytes = bytes(JSON.stringify(await rpc("tools/list")));
}, 120_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
});

function v1(path: string): Promise<Response> {
  return apiFetch(server.url + path, { headers: { "X-API-Key": key } });
}

let rpcId = 0;
/** One raw JSON-RPC request; returns its `result` (what a client that reads the wire sees). */
async function rpc(method: string, params?: unknown): Promise<Record<string, unknown>> {
  const res = await apiFetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "X-API-Key": key, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { result: Record<string, unknown> };
  return body.result;
}

type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> };

async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(result.content).toHaveLength(1);
  expect(result.content[0]!.type).toBe("text");
  return result;
}
const textOf = (r: ToolResult) => r.content[0]!.text;

const ajv = new Ajv({ allErrors: true, strict: false });
function validateOutput(tool: string, structured: unknown): void {
  const schema = tools.find((t) => t.name === tool)!.outputSchema!;
  const validate = ajv.compile(schema);
  if (!validate(structured)) throw new Error(`${tool}: structuredContent does not match its outputSchema: ${ajv.errorsText(validate.errors)}`);
}

/** HH:MM and the date of an instant in a zone, as the texts show them. */
function local(iso: string, zone: string): { date: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

describe("texts for a model (compiled binary, demo data)", () => {
  test("every tool's text at its largest arguments is at most 16 KB; structuredContent is the /v1 body and matches the outputSchema", async () => {
    const cases: [label: string, tool: string, args: Record<string, unknown>, v1Path: string | null, wrap: boolean][] = [
      ["get_forecast supertubos 7 days", "get_forecast", { spot_id: "supertubos", days: 7 }, "/v1/spots/supertubos/forecast?days=7", false],
      ["get_forecast pipeline 7 days", "get_forecast", { spot_id: "pipeline", days: 7 }, "/v1/spots/pipeline/forecast?days=7", false],
      ["get_tides supertubos 7 days", "get_tides", { spot_id: "supertubos", days: 7 }, "/v1/spots/supertubos/tides?days=7", false],
      ["get_tides pipeline 7 days", "get_tides", { spot_id: "pipeline", days: 7 }, "/v1/spots/pipeline/tides?days=7", false],
      ["search_spots beach 50", "search_spots", { query: "beach", limit: 50 }, "/v1/spots?q=beach&limit=50", true],
      ["search_spots praia 50", "search_spots", { query: "praia", limit: 50 }, "/v1/spots?q=praia&limit=50", true],
      ["spots_nearby 100 km 50", "spots_nearby", { ...PENICHE, radius_km: 100, limit: 50 }, `/v1/spots/nearby?lat=${PENICHE.lat}&lng=${PENICHE.lng}&radius=100&limit=50`, true],
      ...(["beginner", "intermediate", "advanced"] as const).map(
        (level): [string, string, Record<string, unknown>, string, boolean] => [
          `best_spots ${level} 72 h 50`,
          "best_spots",
          { ...PENICHE, radius_km: 100, level, hours: 72, limit: 50 },
          `/v1/spots/best?lat=${PENICHE.lat}&lng=${PENICHE.lng}&radius=100&level=${level}&hours=72&limit=50`,
          true,
        ],
      ),
      ["surf_summary 7 days", "surf_summary", { spot_id: "supertubos", days: 7 }, null, false],
      ["spot_now imperial", "spot_now", { spot_id: "supertubos", units: "imperial" }, null, false],
    ];
    const sizes: Record<string, { text: number; structured: number }> = {};
    const problems: string[] = [];
    for (const [label, tool, args, path, wrap] of cases) {
      const result = await call(tool, args);
      const text = textOf(result);
      if (result.isError) problems.push(`${label}: ${text.slice(0, 200)}`);
      sizes[label] = { text: bytes(text), structured: bytes(JSON.stringify(result.structuredContent)) };
      if (bytes(text) > TEXT_LIMIT) problems.push(`${label}: ${bytes(text)} bytes of text`);
      if (text.includes("left out to keep this text")) problems.push(`${label}: cut`); // nothing has to be cut
      validateOutput(tool, result.structuredContent);
      if (path) {
        const body = await (await v1(path)).json();
        if (!Bun.deepEquals(result.structuredContent, wrap ? { spots: body } : body)) problems.push(`${label}: structuredContent is not the /v1 body`);
      }
    }
    console.log("MCP text bytes at the largest arguments:", JSON.stringify(sizes));
    expect(problems).toEqual([]);
    expect((await call("best_spots", { ...PENICHE, radius_km: 100, hours: 72, limit: 50 })).structuredContent!.spots).toHaveLength(50);
    expect(sizes["get_forecast supertubos 7 days"]!.structured).toBeGreaterThan(80_000); // the week's JSON, as before
    expect(sizes["get_forecast supertubos 7 days"]!.text).toBeLessThan(sizes["get_forecast supertubos 7 days"]!.structured / 8);
  });

  test("get_forecast: per day the sun, the best window per level and the tides, then one row per daylight hour, in local time", async () => {
    const result = await call("get_forecast", { spot_id: "pipeline", days: 7 });
    const text = textOf(result);
    const forecast = result.structuredContent as unknown as ForecastResponse;
    const tides = (await (await v1("/v1/spots/pipeline/tides?days=7")).json()) as TidesResponse;
    const zone = "Pacific/Honolulu";
    const lines = text.split("\n");
    expect(lines[0]).toBe(DEMO_ATTRIBUTION);
    expect(count(text, "DEMO DATA")).toBe(1);
    expect(lines[1]).toStartWith("Pipeline, USA (pipeline): surf forecast, updated ");
    expect(lines[1]).toContain(`Times are local (${zone}, UTC-10)`);
    expect(lines.at(-1)).toContain("structuredContent");
    expect(text).not.toContain("Attribution: "); // the banner stands for it

    let rows = 0;
    for (const day of forecast.daily) {
      const at = lines.findIndex((l) => l.includes(` ${day.date}: sun ${local(day.sunrise!, zone).time}-${local(day.sunset!, zone).time}`));
      expect(`${day.date}: ${at}`).not.toBe(`${day.date}: -1`);
      const best = (level: "beginner" | "intermediate" | "advanced") => {
        const w = day.best![level];
        return w ? `${w.rating} ${local(w.start, zone).time}-${local(w.end, zone).time}` : "-";
      };
      expect(lines[at + 1]).toBe(`best B ${best("beginner")}, I ${best("intermediate")}, A ${best("advanced")}`);
      const ofDay = tides.extremes.filter((e) => local(e.time, zone).date === day.date);
      expect(lines[at + 2]).toBe(`tides ${ofDay.length ? ofDay.map((e) => `${e.type === "high" ? "H" : "L"} ${local(e.time, zone).time} ${one(e.height)}`).join(", ") : "-"}`);
      const [sunrise, sunset] = [Date.parse(day.sunrise!), Date.parse(day.sunset!)];
      const daylight = forecast.hours.filter((h) => Date.parse(h.time) < sunset && Date.parse(h.time) + 3_600_000 > sunrise);
      for (const [i, h] of daylight.entries()) {
        const row = lines[at + 3 + i]!;
        expect(row).toStartWith(`${local(h.time, zone).time} | `);
        expect(row).toEndWith(` | ${h.rating.beginner}/${h.rating.intermediate}/${h.rating.advanced} | ${one(h.tide!.height)} ${h.tide!.state === "rising" ? "↑" : "↓"} | ${h.confidence!.level}`);
      }
      rows += daylight.length;
    }
    expect(lines.filter((l) => /^\d\d:\d\d \| /.test(l))).toHaveLength(rows);
    expect(rows).toBeGreaterThan(60); // about 11 daylight hours a day in November
    expect(rows).toBeLessThan(forecast.hours.length); // the nights are left to structuredContent
  });

  test("unknown arguments are invalid_request tool errors naming the argument meant, or listing the accepted ones", async () => {
    const refused: [string, Record<string, unknown>, string][] = [
      ["spots_nearby", { ...PENICHE, radius: 10 }, 'unknown argument "radius" (did you mean "radius_km"?). spots_nearby takes lat, lng, radius_km, limit.'],
      ["search_spots", { q: "pipeline" }, 'unknown argument "q" (did you mean "query"?). search_spots takes query, limit.'],
      ["get_forecast", { spot_id: "supertubos", day: 2 }, 'unknown argument "day" (did you mean "days"?). get_forecast takes spot_id, days, units.'],
      ["get_tides", { id: "supertubos" }, 'unknown argument "id" (did you mean "spot_id"?). get_tides takes spot_id, days, units.'],
      ["surf_summary", { spotId: "supertubos" }, 'unknown argument "spotId" (did you mean "spot_id"?). surf_summary takes spot_id, days, level, units.'],
      ["best_spots", { latitude: 39.3, lng: -9.3 }, 'unknown argument "latitude" (did you mean "lat"?). best_spots takes lat, lng, radius_km, level, hours, limit, units.'],
      ["best_spots", { ...PENICHE, levle: "advanced" }, 'unknown argument "levle" (did you mean "level"?). best_spots takes lat, lng, radius_km, level, hours, limit, units.'],
      ["spot_now", { spot_id: "supertubos", unit: "imperial" }, 'unknown argument "unit" (did you mean "units"?). spot_now takes spot_id, units.'],
      ["get_tides", { spot_id: "supertubos", format: "json" }, 'unknown argument "format". get_tides takes spot_id, days, units.'],
      ["get_forecast", { spot_id: "supertubos", foo: 1, dayz: 3 }, 'unknown arguments "foo", "dayz" (did you mean "days"?). get_forecast takes spot_id, days, units.'],
    ];
    for (const [tool, args, message] of refused) {
      const result = await call(tool, args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(`invalid_request: ${message}`);
      expect(result.structuredContent).toBeUndefined();
    }
    // The same on the wire, for a client without the SDK.
    const raw = await rpc("tools/call", { name: "spots_nearby", arguments: { ...PENICHE, radius: 10 } });
    expect(raw).toEqual({ isError: true, content: [{ type: "text", text: `invalid_request: ${refused[0]![2]}` }] });
    // A key of 10,000 characters is shown cut, and a flood of them is summed up.
    const flood = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`x${i}`.padEnd(i === 0 ? 10_000 : 3, "x"), i]));
    const long = textOf(await call("search_spots", { query: "pipeline", ...flood }));
    expect(long).toContain(" and 35 more. search_spots takes query, limit.");
    expect(bytes(long)).toBeLessThan(600);
    // The known arguments alone are answered as before.
    expect((await call("spots_nearby", { ...PENICHE, radius_km: 10 })).isError).toBeFalsy();
  });

  test("demo data says DEMO DATA once, on the first line, in spot_now, get_forecast, surf_summary and best_spots; the catalog and tides do not", async () => {
    for (const units of ["metric", "imperial"]) {
      const now = textOf(await call("spot_now", { spot_id: "supertubos", units }));
      expect(now.split("\n")[0]).toBe(DEMO_ATTRIBUTION);
      expect(now.split("\n")[1]).toStartWith("Supertubos (Portugal) now, ");
      expect(now).not.toContain("Open-Meteo (CC BY"); // demo data must not claim the real source
      expect(bytes(now)).toBeLessThan(1024);
    }
    const texts = {
      get_forecast: textOf(await call("get_forecast", { spot_id: "supertubos", days: 1 })),
      surf_summary: textOf(await call("surf_summary", { spot_id: "supertubos", days: 3, level: "beginner" })),
      best_spots: textOf(await call("best_spots", { ...PENICHE, radius_km: 10 })),
    };
    for (const [tool, text] of Object.entries(texts)) {
      expect(`${tool}: ${text.split("\n")[0]}`).toBe(`${tool}: ${DEMO_ATTRIBUTION}`);
      expect(`${tool}: ${count(text, "DEMO DATA")}`).toBe(`${tool}: 1`);
    }
    expect(texts.surf_summary.split("\n")[1]).toStartWith("Supertubos, Portugal (supertubos).");
    // The wave models' agreement, in words: per day, per hour, per spot, now.
    expect(texts.surf_summary).toMatch(/\| models agree: (high|medium|low) \|/);
    expect(texts.get_forecast).toMatch(/\| (high|medium|low)\n/);
    expect(texts.best_spots).toMatch(/\| models (high|medium|low)\n/);
    expect(textOf(await call("spot_now", { spot_id: "supertubos" }))).toMatch(/, 3 wave models (agree well|broadly agree|disagree) \([\d.]+(–[\d.]+)? m\),/);
    expect(texts.surf_summary).not.toContain("\nData: ");
    for (const [tool, args] of [
      ["search_spots", { query: "supertubos" }],
      ["spots_nearby", PENICHE],
      ["get_tides", { spot_id: "supertubos", days: 1 }],
    ] as const) {
      expect(`${tool}: ${textOf(await call(tool, args))}`).not.toContain("DEMO DATA");
    }
  });

  test("tools/list: measured, under 20 KB, input schemas closed (additionalProperties: false)", () => {
    console.log(`tools/list: ${listBytes} bytes; per tool:`, JSON.stringify(Object.fromEntries(tools.map((t) => [t.name, bytes(JSON.stringify(t))]))));
    expect(listBytes).toBeLessThan(20 * 1024);
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.outputSchema!.type).toBe("object");
      expect(JSON.stringify(tool.outputSchema)).not.toContain('"additionalProperties":false'); // outputs stay open
    }
  });
});

describe("the text renderers' worst cases (pure)", () => {
  const longName = "N".repeat(200);
  const hour = (ms: number, i: number): ForecastHour => ({
    time: new Date(ms).toISOString().slice(0, 19) + "Z",
    waveHeight: 7.37,
    swellHeight: 6.85,
    wavePeriod: 21.6,
    waveDirection: 337,
    windSpeed: 63.4,
    windDirection: 348,
    windGust: 109.9,
    windDirectionType: "offshore",
    airTemperature: -12.3,
    waterTemperature: -1.8,
    weatherCode: 99,
    tide: { height: -2.345, state: i % 2 ? "rising" : "falling" },
    rating: { beginner: 1, intermediate: 3, advanced: 5 },
    surf: { min: 12.34, max: 15.67 },
  });

  test("get_forecast: a polar week (24 daylight hours a day) with large values stays whole under 16 KB; more than fits is cut, saying so", () => {
    const start = Date.parse("2026-06-21T00:00:00Z");
    const days = Array.from({ length: 8 }, (_, d) => new Date(start + d * 86_400_000).toISOString().slice(0, 10));
    const forecast: ForecastResponse = {
      spot: { id: "praia-de-pernambuco-pernambuco-beach-in-guaruja", name: "Praia de Pernambuco (Pernambuco Beach, in Guaruja)", country: "Brazil" },
      units: "metric",
      updatedAt: "2026-06-21T00:00:00Z",
      attribution: "Weather and marine inputs include data from Open-Meteo.com (https://open-meteo.com/), licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/).",
      datum: "MLLW",
      station: null,
      hours: Array.from({ length: 168 }, (_, i) => hour(start + i * 3_600_000, i)),
      daily: days.map((date) => ({
        date,
        sunrise: null,
        sunset: null,
        uvIndexMax: 11.5,
        best: Object.fromEntries((["beginner", "intermediate", "advanced"] as const).map((l) => [l, { start: `${date}T00:00:00Z`, end: `${date}T23:00:00Z`, rating: 5 }])) as never,
      })),
    };
    const extremes = Array.from({ length: 32 }, (_, i) => ({ type: i % 2 ? ("low" as const) : ("high" as const), time: new Date(start + i * 6.2 * 3_600_000).toISOString(), height: i % 2 ? -2.345 : 12.345 }));
    const tides = { extremes, tideless: false } as unknown as TidesResponse;
    const zone = "Arctic/Longyearbyen";
    const rowsOf = (text: string) => text.split("\n").filter((l) => /^\d\d:\d\d \| /.test(l));
    for (const demo of [false, true]) {
      const text = forecastText({ ...forecast, demo: demo || undefined }, { ...forecast.spot, timezone: zone }, tides);
      console.log(`polar week, large values${demo ? ", demo" : ""}: ${bytes(text)} bytes`);
      expect(bytes(text)).toBeLessThanOrEqual(TEXT_LIMIT);
      expect(text).not.toContain("left out");
      expect(rowsOf(text)).toHaveLength(168);
    }
    // Whatever does not fit (here a 30-day document, as no /v1 answer is) is left out from the end, saying so.
    const month = { ...forecast, hours: Array.from({ length: 720 }, (_, i) => hour(start + i * 3_600_000, i)), daily: [...forecast.daily, ...Array.from({ length: 22 }, (_, d) => ({ ...forecast.daily[0]!, date: new Date(start + (d + 8) * 86_400_000).toISOString().slice(0, 10) }))] };
    const cut = forecastText(month, { ...forecast.spot, timezone: zone }, tides);
    console.log(`a month: ${bytes(cut)} bytes`);
    expect(bytes(cut)).toBeLessThanOrEqual(TEXT_LIMIT);
    expect(cut).toMatch(/\n… \d+ more lines left out to keep this text under 16 KB: everything is in structuredContent\.\n/);
    expect(cut.split("\n").at(-1)).toStartWith("Attribution: Weather and marine inputs include data from Open-Meteo.com");
  });

  test("lists of 50 spots with 200-character ids, names and regions are cut to 16 KB, saying so; an unknown zone falls back to UTC", () => {
    const spot = (i: number) => ({
      id: `${i}-`.padEnd(200, "i"),
      name: longName,
      country: "Country",
      region: "R".repeat(190),
      lat: -12.3456789,
      lng: 123.456789,
      hexId: "0123456789abcdef",
      facing: 270,
      tideless: false,
      timezone: i % 2 ? "Europe/Lisbon" : "Not/AZone",
      distanceKm: 99.999,
    });
    const spots = Array.from({ length: 50 }, (_, i) => spot(i));
    const texts = [
      searchText("q".repeat(200), spots),
      nearbyText({ lat: -12.3, lng: 123.4, radius: 100 }, spots),
      bestSpotsText(
        { lat: -12.3, lng: 123.4, radius: 100, level: "advanced", hours: 72, units: "imperial" },
        spots.map((s) => ({ spot: s, rating: 5, best: { start: "2026-11-21T07:00:00Z", end: "2026-11-21T17:00:00Z", rating: 5 }, surf: { min: 1, max: 2 }, windDirectionType: "cross", confidence: "medium", units: "imperial" })),
        true,
      ),
    ];
    for (const text of texts) {
      expect(bytes(text)).toBeLessThanOrEqual(TEXT_LIMIT);
      expect(text).toMatch(/\n… \d+ more lines left out to keep this text under 16 KB: everything is in structuredContent\.\n/);
      expect(text.split("\n").at(-1)).toContain("structuredContent");
    }
    expect(texts[2]!.split("\n")[0]).toBe(DEMO_ATTRIBUTION);
    expect(texts[2]).toContain("07:00-17:00 UTC |"); // each spot's own zone, UTC when unknown
  });

  test("local times: the fixed-offset shortcut over a span agrees with Intl, across daylight-saving changes and odd offsets", () => {
    const problems: string[] = [];
    for (const zone of ["Europe/Lisbon", "America/St_Johns", "Australia/Lord_Howe", "Pacific/Kiritimati", "Asia/Kathmandu", "Pacific/Honolulu", "America/Santiago", "Pacific/Chatham"]) {
      for (const from of ["2026-03-25T00:00:00Z", "2026-04-01T00:00:00Z", "2026-10-01T00:00:00Z", "2026-11-25T00:00:00Z"].map(Date.parse)) {
        const to = from + 7 * 86_400_000;
        const [fast, exact] = [new LocalClock(zone, [from, to]), new LocalClock(zone)];
        for (let ms = from - 86_400_000; ms <= to + 86_400_000; ms += 37 * 60_000) {
          if (JSON.stringify(fast.at(ms)) !== JSON.stringify(exact.at(ms))) {
            problems.push(`${zone} ${new Date(ms).toISOString()}: ${JSON.stringify(fast.at(ms))} != ${JSON.stringify(exact.at(ms))}`);
            break;
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(new LocalClock("Not/AZone").at("2026-11-21T07:00:00Z")).toMatchObject({ date: "2026-11-21", time: "07:00", weekday: "Sat" });
  });

  test("suggestions: aliases, spelling, case, prefixes; nothing for a name far from all", () => {
    const nearby = ["lat", "lng", "radius_km", "limit"];
    expect(suggestArgument("radius", nearby)).toBe("radius_km");
    expect(suggestArgument("radiusKm", nearby)).toBe("radius_km");
    expect(suggestArgument("RADIUS_KM ", nearby)).toBe("radius_km");
    expect(suggestArgument("lon", nearby)).toBe("lng");
    expect(suggestArgument("longitude", nearby)).toBe("lng");
    expect(suggestArgument("limt", nearby)).toBe("limit");
    expect(suggestArgument("max", nearby)).toBe("limit");
    expect(suggestArgument("q", nearby)).toBeNull(); // "query" is not one of this tool's
    expect(suggestArgument("constructor", nearby)).toBeNull();
    expect(suggestArgument("__proto__", nearby)).toBeNull();
    expect(suggestArgument("elevation", nearby)).toBeNull();
    expect(suggestArgument("", nearby)).toBeNull();
  });
});
