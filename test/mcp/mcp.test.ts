/**
 * The MCP server at /mcp, driven through the compiled binary by the SDK's own client (and the MCP Inspector
 * CLI): the four tools, parity with /v1 (the same JSON as structuredContent, a compact text, the same errors), keys,
 * metering, quota, Origin and methods.
 */
import { TOOLS } from "../../src/mcp/tools";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BOUNDS } from "../../src/core/bounds";
import { cli, createKey, startServer, type RunningServer } from "../support/binary";
import { ROOT, tempDir } from "../support/env";
import { apiFetch } from "../support/http";

const ALLOWED_ORIGIN = "https://app.example";
const INSPECTOR = join(ROOT, "node_modules/.bin/mcp-inspector");

let server: RunningServer;
const keys = { main: "", usage: "", limited: "", disabled: "" };

beforeAll(async () => {
  const dir = tempDir("mcp");
  keys.main = createKey(dir, "mcp@example.com", "scale");
  keys.usage = createKey(dir, "usage@example.com", "scale");
  keys.limited = createKey(dir, "limited@example.com", "starter", ["--daily-limit", "3"]);
  keys.disabled = createKey(dir, "disabled@example.com", "starter");
  expect(cli(dir, ["accounts", "disable", "disabled@example.com"]).code).toBe(0);
  server = await startServer({ dataDir: dir, env: { SURFCAST_MCP_ALLOWED_ORIGINS: ALLOWED_ORIGIN } });
}, 60_000); // five binary runs, each seeding the catalog

afterAll(async () => {
  await server?.stop();
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "surfcast-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { "X-API-Key": key } },
    fetch: (url, init) => apiFetch(String(url), init),
  });
  await client.connect(transport);
  return client;
}

type ToolResult = Awaited<ReturnType<Client["callTool"]>>;

function textOf(result: ToolResult): string {
  const [first] = result.content as { type: string; text: string }[];
  expect(first?.type).toBe("text");
  return first!.text;
}

function v1(path: string, key = keys.main): Promise<Response> {
  return apiFetch(server.url + path, { headers: { "X-API-Key": key } });
}

const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };

/** One raw JSON-RPC POST, for what the SDK client hides: status codes, headers, error bodies. */
function post(headers: Record<string, string>, body: unknown = INITIALIZE): Promise<Response> {
  return apiFetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

/** The id of the catalog's "Pipeline" spot, via /v1. */
async function pipelineId(): Promise<string> {
  const spots = (await (await v1("/v1/spots?q=pipeline&limit=10")).json()) as { id: string; name: string }[];
  const spot = spots.find((s) => s.name === "Pipeline");
  expect(spot).toBeDefined();
  return spot!.id;
}

describe("MCP tools (compiled binary, SDK client)", () => {
  test("tools/list: the four spec tools (and the six beyond it) with the spec's parameter names, the shared bounds, output schemas, read-only", async () => {
    const client = await connect(keys.main);
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(["best_spots", "get_forecast", "get_tides", "list_alerts", "search_spots", "spot_climate", "spot_now", "spot_observations", "spots_nearby", "surf_summary"]);
    expect(byName.spot_now!.inputSchema.required).toEqual(["spot_id"]);
    for (const tool of ["get_forecast", "get_tides", "best_spots", "surf_summary", "spot_now"]) expect((byName[tool]!.inputSchema.properties as Record<string, unknown>).units).toMatchObject({ type: "string", enum: ["metric", "imperial"] });

    const params = (name: string) => Object.keys(byName[name]!.inputSchema.properties ?? {}).sort();
    expect(params("search_spots")).toEqual(["limit", "query"]);
    expect(params("spots_nearby")).toEqual(["lat", "limit", "lng", "radius_km"]);
    expect(params("get_forecast")).toEqual(["days", "spot_id", "units"]);
    expect(params("get_tides")).toEqual(["days", "spot_id", "units"]);
    expect(byName.search_spots!.inputSchema.required).toEqual(["query"]);
    expect(byName.spots_nearby!.inputSchema.required).toEqual(["lat", "lng"]);
    expect(byName.get_forecast!.inputSchema.required).toEqual(["spot_id"]);
    for (const tool of tools) expect(tool.inputSchema.additionalProperties).toBe(false); // unknown arguments are refused

    const prop = (tool: string, name: string) => (byName[tool]!.inputSchema.properties as Record<string, Record<string, unknown>>)[name]!;
    expect(prop("search_spots", "limit")).toMatchObject({ type: "integer", ...BOUNDS.limit });
    expect(prop("search_spots", "query")).toMatchObject({ type: "string", minLength: BOUNDS.q.minLength });
    expect(prop("spots_nearby", "lat")).toMatchObject({ type: "number", ...BOUNDS.lat });
    expect(prop("spots_nearby", "radius_km")).toMatchObject({ type: "number", ...BOUNDS.radius });
    expect(prop("get_tides", "days")).toMatchObject({ type: "integer", ...BOUNDS.days });

    for (const tool of tools) {
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.description!.length).toBeGreaterThan(100);
    }
    expect(Object.keys(byName.search_spots!.outputSchema!.properties!)).toEqual(["spots"]);
    for (const word of ["UTC", "1..5"]) expect(byName.get_forecast!.description).toContain(word);
    // Metric unless asked: the units argument names the imperial units.
    expect((byName.get_forecast!.inputSchema.properties as Record<string, { description: string }>).units!.description).toContain("ft, mph, °F");
    await client.close();
  });

  test("search_spots and spots_nearby answer the /v1 JSON as structuredContent ({spots}), one line a spot as text", async () => {
    const client = await connect(keys.main);
    const search = await client.callTool({ name: "search_spots", arguments: { query: "pipeline", limit: 5 } });
    const searchV1 = await v1("/v1/spots?q=pipeline&limit=5");
    const searchBody = await searchV1.text();
    expect(search.isError).toBeFalsy();
    expect(search.structuredContent).toEqual({ spots: JSON.parse(searchBody) });
    const spots = JSON.parse(searchBody) as { id: string; name: string; lat: number; lng: number }[];
    expect(spots.map((s) => s.name)).toContain("Pipeline");
    const searchLines = textOf(search).split("\n");
    expect(searchLines[0]).toStartWith(`${spots.length} spots matching "pipeline", best match first`);
    expect(searchLines.slice(1, -1).map((l) => l.split(" | ").slice(0, 2))).toEqual(spots.map((s) => [s.id, s.name]));
    expect(searchLines.at(-1)).toContain("structuredContent");

    const { lat, lng, id } = spots.find((s) => s.name === "Pipeline")!;
    const nearby = await client.callTool({ name: "spots_nearby", arguments: { lat, lng, radius_km: 5, limit: 3 } });
    const nearbyBody = await (await v1(`/v1/spots/nearby?lat=${lat}&lng=${lng}&radius=5&limit=3`)).text();
    expect(nearby.isError).toBeFalsy();
    expect(nearby.structuredContent).toEqual({ spots: JSON.parse(nearbyBody) });
    const near = JSON.parse(nearbyBody) as { id: string; distanceKm: number }[];
    expect(near.map((s) => s.id)).toContain(id);
    expect(near[0]!.distanceKm).toBeLessThan(0.01);
    const nearLines = textOf(nearby).split("\n");
    expect(nearLines[0]).toStartWith(`${near.length} spots within 5 km of ${lat}, ${lng}, closest first`);
    expect(nearLines.slice(1, -1).map((l) => l.split(" | ")[0])).toEqual(near.map((s) => s.id));
    expect(nearLines[1]).toEndWith(" | 0.0 km");

    const none = await client.callTool({ name: "search_spots", arguments: { query: "zzqxj no such place" } });
    expect(none.structuredContent).toEqual({ spots: [] });
    expect(textOf(none)).toBe('No spot matches "zzqxj no such place".');
    await client.close();
  });

  test("get_tides answers the /v1 tides JSON (structuredContent) and the high and low waters in local time (text); get_forecast before any refresh is a no_forecast tool error", async () => {
    const id = await pipelineId();
    const client = await connect(keys.main);
    const tides = await client.callTool({ name: "get_tides", arguments: { spot_id: id, days: 2 } });
    const tidesBody = await (await v1(`/v1/spots/${id}/tides?days=2`)).text();
    expect(tides.isError).toBeFalsy();
    expect(tides.structuredContent).toEqual(JSON.parse(tidesBody));
    const { extremes, datum } = JSON.parse(tidesBody) as { extremes: { type: string; time: string; height: number }[]; datum: string };
    const tideText = textOf(tides);
    expect(tideText).toStartWith(`Pipeline, USA (${id}): high (H) and low (L) waters, m above ${datum}`);
    expect(tideText).toContain("Times are local (Pacific/Honolulu, UTC-10)");
    const local = (iso: string) => new Date(Date.parse(iso) - 10 * 3_600_000).toISOString().slice(11, 16); // Hawaii keeps no DST
    for (const e of extremes) expect(tideText).toContain(`${e.type === "high" ? "H" : "L"} ${local(e.time)} ${(Math.round(e.height * 10) / 10).toFixed(1)}`);

    const forecast = await client.callTool({ name: "get_forecast", arguments: { spot_id: id } });
    const forecastV1 = await v1(`/v1/spots/${id}/forecast`);
    expect(forecastV1.status).toBe(404);
    const { error } = (await forecastV1.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("no_forecast");
    expect(forecast.isError).toBe(true);
    expect(textOf(forecast)).toBe(`no_forecast: ${error.message}`);

    const unknown = await client.callTool({ name: "get_tides", arguments: { spot_id: "no-such-spot-anywhere" } });
    const unknownV1 = (await (await v1("/v1/spots/no-such-spot-anywhere/tides")).json()) as { error: { code: string; message: string } };
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe(`not_found: ${unknownV1.error.message}`);
    await client.close();
  });

  test("spot_now: under 1 KB of text saying the tide now and the next turn; structuredContent is the /v1 now JSON; counted as mcp.spot_now", async () => {
    const id = await pipelineId();
    const client = await connect(keys.main);
    const before = ((await (await v1("/v1/usage", keys.main)).json()) as { days: { byEndpoint: Record<string, number> }[] }).days.at(-1)!.byEndpoint;
    for (const units of ["metric", "imperial"] as const) {
      const [result, body] = await Promise.all([client.callTool({ name: "spot_now", arguments: { spot_id: id, units } }), v1(`/v1/spots/${id}/now?units=${units}`, keys.main).then((r) => r.json())]);
      expect(result.isError).toBeFalsy();
      const text = textOf(result);
      expect(new TextEncoder().encode(text).length).toBeLessThan(1024);
      const now = body as { time: string; tide: { state: string; nextEvent: { type: string; minutesUntil: number } } };
      expect(text).toStartWith("Pipeline (USA) now");
      expect(text).toContain(`tide `);
      expect(text).toContain(` ${now.tide.state}`);
      expect(text).toContain(`${units === "metric" ? " m" : " ft"} `);
      expect(text).toContain("no forecast stored yet"); // this server never refreshed
      const structured = result.structuredContent as typeof now;
      if (structured.time === now.time) expect(structured).toEqual(now); // unless a minute turned between the two calls
      expect(text).toContain(`${now.tide.nextEvent.type} `);
    }
    const bad = await client.callTool({ name: "spot_now", arguments: { spot_id: id, units: "kelvin" } });
    const badV1 = (await (await v1(`/v1/spots/${id}/now?units=kelvin`, keys.main)).json()) as { error: { message: string } };
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe(`invalid_request: ${badV1.error.message}`);
    const after = ((await (await v1("/v1/usage", keys.main)).json()) as { days: { byEndpoint: Record<string, number> }[] }).days.at(-1)!.byEndpoint;
    expect((after["mcp.spot_now"] ?? 0) - (before["mcp.spot_now"] ?? 0)).toBe(3);
    expect(after.now! - before.now!).toBe(3);
    await client.close();
  });

  test("invalid arguments are tool errors carrying the /v1 invalid_request message, naming the MCP parameter", async () => {
    const client = await connect(keys.main);
    const parity: [string, Record<string, unknown>, string][] = [
      ["search_spots", { query: "a" }, "/v1/spots?q=a"],
      ["search_spots", { query: "pipeline", limit: 0 }, "/v1/spots?q=pipeline&limit=0"],
      ["search_spots", { query: "pipeline", limit: 2.5 }, "/v1/spots?q=pipeline&limit=2.5"],
      ["search_spots", { limit: 3 }, "/v1/spots?limit=3"],
      ["spots_nearby", { lat: 91, lng: 0 }, "/v1/spots/nearby?lat=91&lng=0"],
      ["spots_nearby", { lng: 0 }, "/v1/spots/nearby?lng=0"],
      ["spots_nearby", { lat: 0, lng: 0, radius_km: 101 }, "/v1/spots/nearby?lat=0&lng=0&radius=101"],
      ["get_forecast", { spot_id: "pipeline", days: 8 }, "/v1/spots/pipeline/forecast?days=8"],
      ["get_tides", { spot_id: "pipeline", days: 0 }, "/v1/spots/pipeline/tides?days=0"],
    ];
    for (const [name, args, path] of parity) {
      const res = await v1(path);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(`invalid_request: ${error.message.replaceAll("'q'", "'query'").replaceAll("'radius'", "'radius_km'")}`);
    }

    // Wrong JSON types reach the strict parser too (a zod schema would have answered differently).
    const typed: [string, Record<string, unknown>, string][] = [
      ["search_spots", { query: 42 }, "invalid_request: Parameter 'query' must be a string."],
      ["spots_nearby", { lat: "north", lng: 0 }, "invalid_request: Parameter 'lat' must be a number from -90 to 90."],
      ["get_tides", {}, "invalid_request: Parameter 'spot_id' is required."],
      ["get_forecast", { spot_id: 7 }, "invalid_request: Parameter 'spot_id' must be a spot id string (a slug or 16-hex id from search_spots or spots_nearby)."],
    ];
    for (const [name, args, message] of typed) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(message);
    }

    const unknownTool = await client.callTool({ name: "get_weather", arguments: {} });
    expect(unknownTool.isError).toBe(true);
    // The connection is still usable after all that.
    expect((await client.callTool({ name: "search_spots", arguments: { query: "pipeline" } })).isError).toBeFalsy();
    await client.close();
  });
});

describe("MCP malformed tool calls (raw JSON-RPC)", () => {
  const call = (id: number, params: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params });
  const headers = () => ({ "X-API-Key": keys.main, "MCP-Protocol-Version": "2025-06-18" });

  test("arguments that are not an object are an invalid_request tool error, never -32603", async () => {
    for (const args of ["pipeline", [1], null, 5, JSON.parse("[".repeat(5_000) + "]".repeat(5_000))]) {
      const res = await post(headers(), call(1, { name: "get_tides", arguments: args }));
      expect(res.status).toBe(200);
      const body = (await res.json()) as { id: number; result: { isError: boolean; content: { text: string }[] } };
      expect(body.id).toBe(1);
      expect(body.result.isError).toBe(true);
      expect(body.result.content[0]!.text).toStartWith("invalid_request: Tool arguments must be a JSON object");
    }
  });

  test("a tools/call without a tool name is -32602 invalid params; a batch is refused whole", async () => {
    const res = await post(headers(), call(7, { arguments: {} }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: number; error: { code: number } }).error.code).toBe(-32602);

    const batch = await post(headers(), [call(1, { name: "get_tides", arguments: "x" }), call(2, { name: "search_spots", arguments: { query: "pipeline" } })]);
    expect(batch.status).toBe(400);
    const answer = (await batch.json()) as { id: null; error: { code: number; message: string } };
    expect(answer.error.code).toBe(-32600);
    expect(answer.error.message).toContain("batches are not supported");
  });

  test("tool names from Object.prototype get the answer of any unknown tool", async () => {
    const texts = new Set<string>();
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty", "get_weather"]) {
      const body = (await (await post(headers(), call(3, { name, arguments: {} }))).json()) as { result: { isError: boolean; content: { text: string }[] } };
      expect(body.result.isError).toBe(true);
      texts.add(body.result.content[0]!.text.replace(`'${name}'`, "'NAME'"));
    }
    expect([...texts]).toEqual([`not_found: Unknown tool 'NAME': the tools are ${TOOLS.map((t) => t.name).join(", ")}.`]);
  });

  test("initialize without params is -32602 with a short message", async () => {
    for (const params of [undefined, null, 5, {}]) {
      const body = (await (await post(headers(), { jsonrpc: "2.0", id: 9, method: "initialize", params })).json()) as { id: number; error: { code: number; message: string } };
      expect(body.error.code).toBe(-32602);
      expect(body.error.message.length).toBeLessThan(100);
    }
  });
});

describe("MCP access (compiled binary)", () => {
  test("every request needs a key, initialize included: 401 with the spec's error body", async () => {
    for (const [headers, code] of [
      [{}, "invalid_key"],
      [{ "X-API-Key": "sk_live_not-a-real-key" }, "invalid_key"],
      [{ "X-API-Key": keys.disabled }, "account_disabled"],
    ] as const) {
      const res = await post(headers);
      expect(res.status).toBe(401);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe(code);
      expect(typeof body.error.message).toBe("string");
    }
    const bearer = await post({ Authorization: `Bearer ${keys.main}` });
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get("mcp-session-id")).toBeNull();
    expect(bearer.headers.get("x-ratelimit-limit")).not.toBeNull();

    const client = new Client({ name: "no-key", version: "1" });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { fetch: (url, init) => apiFetch(String(url), init) }))).rejects.toThrow();
  });

  test("tool calls count in /v1/usage as mcp.<tool>, failed ones included; initialize, tools/list and ping do not", async () => {
    const client = await connect(keys.usage);
    await client.listTools();
    await client.ping();
    await client.callTool({ name: "search_spots", arguments: { query: "pipeline" } });
    await client.callTool({ name: "search_spots", arguments: { query: "pipeline", limit: 2 } });
    await client.callTool({ name: "search_spots", arguments: { query: "p" } });
    await client.callTool({ name: "spots_nearby", arguments: { lat: 21.66, lng: -158.05 } });
    await client.callTool({ name: "get_tides", arguments: { spot_id: "no-such-spot" } });
    await client.callTool({ name: "get_forecast", arguments: { spot_id: "no-such-spot", days: 1 } });
    await client.listTools();
    await client.close();

    const usage = (await (await v1("/v1/usage", keys.usage)).json()) as { today: number; days: { total: number; byEndpoint: Record<string, number> }[] };
    const today = usage.days.at(-1)!;
    expect(usage.today).toBe(6);
    expect(today.total).toBe(6);
    expect(today.byEndpoint).toMatchObject({ "mcp.search_spots": 3, "mcp.spots_nearby": 1, "mcp.get_tides": 1, "mcp.get_forecast": 1, "spots.search": 0 });
  });

  test("over the daily quota a tool call is a rate_limited tool error with the retry seconds; protocol traffic still works", async () => {
    const client = await connect(keys.limited);
    for (let i = 0; i < 3; i++) expect((await client.callTool({ name: "search_spots", arguments: { query: "pipeline" } })).isError).toBeFalsy();
    const refused = await client.callTool({ name: "search_spots", arguments: { query: "pipeline" } });
    expect(refused.isError).toBe(true);
    const seconds = /^rate_limited: Daily quota exceeded\. Retry after (\d+) s\.$/.exec(textOf(refused));
    expect(seconds).not.toBeNull();
    expect(Number(seconds![1])).toBeGreaterThan(0);
    expect(Number(seconds![1])).toBeLessThanOrEqual(86_400);
    expect((await client.listTools()).tools).toHaveLength(10);
    await client.close();
    // One quota for both adapters.
    expect((await v1("/v1/spots?q=pipeline", keys.limited)).status).toBe(429);
    const usage = (await (await v1("/v1/usage", keys.limited)).json()) as { today: number };
    expect(usage.today).toBe(3);
  });

  test("Origin: absent, the server's own host and listed origins pass; any other origin gets 403 invalid_request", async () => {
    expect((await post({ "X-API-Key": keys.main })).status).toBe(200);
    expect((await post({ "X-API-Key": keys.main, Origin: server.url })).status).toBe(200);
    const listed = await post({ "X-API-Key": keys.main, Origin: ALLOWED_ORIGIN });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("access-control-allow-origin")).toBe("*");
    for (const origin of ["https://evil.example", "http://127.0.0.1.evil.example", "null"]) {
      const res = await post({ "X-API-Key": keys.main, Origin: origin });
      expect(res.status).toBe(403);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("invalid_request");
      expect(body.error.message).toContain(origin);
    }
  });

  test("stateless: GET (event stream) and DELETE (end session) answer 405 with the error shape", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await apiFetch(`${server.url}/mcp`, { method, headers: { "X-API-Key": keys.main, Accept: "text/event-stream" } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toContain("POST");
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    }
  });
});

describe("MCP Inspector CLI", () => {
  async function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const proc = Bun.spawn([INSPECTOR, "--cli", `${server.url}/mcp`, "--transport", "http", "--header", `X-API-Key: ${keys.main}`, ...args], {
      env: { ...process.env, HOME: tempDir("inspector-home") },
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => proc.kill(), 20_000);
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    return { code, stdout, stderr };
  }

  test("lists the tools and calls one", async () => {
    const list = await inspector(["--method", "tools/list"]);
    expect(list.code).toBe(0);
    const names = (JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name).sort();
    expect(names).toEqual(["best_spots", "get_forecast", "get_tides", "list_alerts", "search_spots", "spot_climate", "spot_now", "spot_observations", "spots_nearby", "surf_summary"]);

    const call = await inspector(["--method", "tools/call", "--tool-name", "search_spots", "--tool-arg", "query=pipeline", "limit=2"]);
    expect(call.code).toBe(0);
    const result = JSON.parse(call.stdout) as { isError?: boolean; structuredContent: { spots: { name: string }[] } };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.spots.length).toBeGreaterThan(0);
    expect(result.structuredContent.spots.length).toBeLessThanOrEqual(2);
  }, 30_000);
});
