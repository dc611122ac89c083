/**
 * Robustness (#9): generated bad input for every /v1 endpoint and every MCP tool, through the compiled binary.
 * Whatever arrives — NaN, Infinity, 1e309, empty and repeated parameters, 10k-character values, unicode,
 * SQL-ish strings, encoded path traversal, 5k-character ids, broken Authorization, oversized headers — the
 * answer is never a 5xx, and every error has the spec's shape with a listed code other than `internal`.
 * Inputs come from a seeded PRNG: a failure names the seed and the exact request so it reproduces
 * (ROBUSTNESS_SEED=<n> bun test test/system/robustness.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { seededRng, type Rng } from "../../bench/prng";
import { cli, createKey, startServer, type RunningServer } from "../support/binary";
import { tempDir } from "../support/env";
import { apiFetch } from "../support/http";

const SEED = Number(process.env.ROBUSTNESS_SEED ?? 20261121);
const CASES_PER_ENDPOINT = 250;
const STATUS_OF: Record<string, number> = {
  invalid_key: 401,
  account_disabled: 401,
  not_found: 404,
  no_forecast: 404,
  rate_limited: 429,
  invalid_request: 400,
};

/** Values no numeric or string parameter should choke on. */
const HOSTILE = [
  "NaN", "nan", "Infinity", "-Infinity", "inf", "1e309", "-1e309", "1e-400", "5e-324", "0x1A", "0b11", "0o7", "1_000", "12abc",
  "", " ", "  5  ", "+", "-", ".", "1..2", "5e", "١٢", "１２", "-0", "+3", "3.0", "1,5", "null", "undefined", "true", "[]", "{}",
  "' OR '1'='1", "1; DROP TABLE spots; --", "\" OR \"\"=\"", "%' UNION SELECT * FROM api_keys --", "../../etc/passwd", "..\\..\\boot.ini",
  "%00", "%ZZ", "%", "%2e%2e%2f", "%C0%AE%C0%AE%2F", "<script>alert(1)</script>", "${7*7}", "{{7*7}}", "\u0000", "\u202Etxt", "🌊🏄‍♀️",
  "Ωμέγα", "Ærøskøbing", "\uFEFF5", "9".repeat(400), "a".repeat(10_000), "ü".repeat(2_500), "1".padEnd(10_000, "0"),
];
/**
 * Bun refuses a request head over 16 KiB, or with about 200 headers, itself: 431, an empty body and
 * `Connection: close`, before any Surfcast code runs. Such requests must get exactly that (see the todo below).
 */
const HEAD_LIMIT_BYTES = 16 * 1024;
const HEAD_LIMIT_HEADERS = 190;

function refusedByBun(path: string, headers: Record<string, string>): boolean {
  const entries = Object.entries(headers);
  return path.length + entries.reduce((n, [k, v]) => n + k.length + v.length + 4, 0) > HEAD_LIMIT_BYTES || entries.length > HEAD_LIMIT_HEADERS;
}
const NUMERIC_EDGES = ["0", "1", "7", "8", "10", "50", "51", "-1", "-90", "90", "90.0000001", "-180.5", "180", "100", "100.0001", "1e1", "21.6", "-158.05"];
const ID_EDGES = [
  "0123456789abcdef", "FFFFFFFFFFFFFFFF", "PIPELINE", "pipeline%20", "%20", "a".repeat(5_000), "..%2F..%2Fetc%2Fpasswd", "%2e%2e", "%2e%2e%2f%2e%2e",
  "%2F", "%00", "%ZZ", "%", "%C0%AE%C0%AE", "%E2%80%AE", "%F0%9F%8C%8A", "'%20OR%201%3D1", "1%3B%20DROP%20TABLE%20spots", "nearby", "..", "%5C..%5C",
  "%FF%FE", encodeURIComponent("ü".repeat(2_500)),
];
const JUNK_PARAMS = ["x", "__proto__", "constructor", "q[]", "limit[]", "days[0]", "%00", "a".repeat(5_000), "lat%5B%5D"];

interface Endpoint {
  name: string;
  path(rng: Rng): string;
  params: Record<string, string[]>;
}

type ErrorBody = { error?: { code?: unknown; message?: unknown } };

/** Returns a problem description, or null when the response is within the spec. */
function problemIn(status: number, text: string, expectStatus?: number): string | null {
  if (status >= 500) return `status ${status}: ${text.slice(0, 300)}`;
  if (expectStatus !== undefined && status !== expectStatus) return `expected ${expectStatus}, got ${status}: ${text.slice(0, 300)}`;
  if (status < 400) return null;
  let body: ErrorBody;
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    return `status ${status} without a JSON body: ${JSON.stringify(text.slice(0, 200))}`;
  }
  const code = body.error?.code;
  if (typeof code !== "string" || typeof body.error?.message !== "string") return `status ${status} without the Error shape: ${text.slice(0, 300)}`;
  if (!(code in STATUS_OF)) return `status ${status} with code '${code}', which is not a listed non-internal code`;
  if (STATUS_OF[code] !== status && status !== 405) return `code '${code}' came with status ${status}, expected ${STATUS_OF[code]}`;
  return null;
}

/** One value as it goes on the wire: mostly percent-encoded, sometimes raw (malformed escapes included). */
function wire(rng: Rng, value: string): string {
  const rawSafe = /^[\x21-\x7e]*$/.test(value) && !/[#&]/.test(value);
  return rawSafe && rng.next() < 0.3 ? value : encodeURIComponent(value);
}

function generatedValue(rng: Rng, valid: string[]): string {
  const roll = rng.next();
  if (roll < 0.5) return rng.pick(HOSTILE);
  if (roll < 0.8) return rng.pick(valid);
  const length = rng.int(0, 40);
  const ranges: [number, number][] = [[0x20, 0x7e], [0xa0, 0x24f], [0x370, 0x3ff], [0x4e00, 0x4fff], [0x1f300, 0x1f5ff], [0x300, 0x36f]];
  let s = "";
  for (let i = 0; i < length; i++) {
    const [lo, hi] = rng.pick(ranges);
    s += String.fromCodePoint(rng.int(lo, hi));
  }
  return s;
}

function generatedQuery(rng: Rng, params: Record<string, string[]>): string {
  const parts: string[] = [];
  for (const [name, valid] of Object.entries(params)) {
    const roll = rng.next();
    if (roll < 0.2) continue;
    if (roll < 0.3) parts.push(name);
    else {
      const times = roll < 0.85 ? 1 : rng.int(2, 3);
      for (let i = 0; i < times; i++) parts.push(`${name}=${wire(rng, generatedValue(rng, valid))}`);
    }
  }
  if (rng.next() < 0.2) parts.push(`${rng.pick(JUNK_PARAMS)}=${wire(rng, rng.pick(HOSTILE))}`);
  for (let i = parts.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [parts[i], parts[j]] = [parts[j]!, parts[i]!];
  }
  return parts.length ? "?" + parts.join("&") : "";
}

let server: RunningServer;
let key = "";
let disabledKey = "";
let revokedKey = "";
let spotId = "pipeline";

beforeAll(async () => {
  const dataDir = tempDir("robustness");
  key = createKey(dataDir, "robust@example.com", "scale", ["--daily-limit", "100000000", "--minute-limit", "100000"]);
  disabledKey = createKey(dataDir, "disabled@example.com", "starter");
  expect(cli(dataDir, ["accounts", "disable", "disabled@example.com"]).code).toBe(0);
  createKey(dataDir, "revoked@example.com", "starter");
  const made = JSON.parse(cli(dataDir, ["keys", "create", "revoked@example.com", "--name", "gone", "--json"]).stdout) as { id: string; key: string };
  revokedKey = made.key;
  expect(cli(dataDir, ["keys", "revoke", made.id]).code).toBe(0);
  server = await startServer({ dataDir });
  const found = (await (await apiFetch(`${server.url}/v1/spots?q=pipeline&limit=1`, { headers: { "X-API-Key": key } })).json()) as { id: string }[];
  if (Array.isArray(found) && found[0]) spotId = found[0].id;
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const get = (path: string, headers: Record<string, string> = { "X-API-Key": key }) => apiFetch(server.url + path, { headers });

/**
 * GET through apiFetch; returns a problem or null. A head Bun refuses must be its 431 (which apiFetch reports
 * as undeclared in the OpenAPI document); every other answer must be within the spec.
 */
async function check(path: string, headers: Record<string, string> = { "X-API-Key": key }, expectStatus?: number): Promise<string | null> {
  const refused = refusedByBun(path, headers);
  try {
    const res = await get(path, headers);
    const text = await res.text();
    if (refused) return res.status === 431 && text === "" ? null : `head over Bun's limit answered ${res.status}, expected 431`;
    return problemIn(res.status, text, expectStatus);
  } catch (err) {
    return String(err).slice(0, 500);
  }
}

const idPath = (rng: Rng) => (rng.next() < 0.4 ? spotId : rng.next() < 0.5 ? rng.pick(ID_EDGES) : encodeURIComponent(rng.pick(HOSTILE)) || "%20");

const ENDPOINTS: Endpoint[] = [
  { name: "search", path: () => "/v1/spots", params: { q: ["pipeline", "PIPE", "hawaii", "ño", "pi"], limit: NUMERIC_EDGES } },
  { name: "nearby", path: () => "/v1/spots/nearby", params: { lat: NUMERIC_EDGES, lng: NUMERIC_EDGES, radius: NUMERIC_EDGES, limit: NUMERIC_EDGES } },
  { name: "best spots", path: () => "/v1/spots/best", params: { lat: NUMERIC_EDGES, lng: NUMERIC_EDGES, hours: NUMERIC_EDGES, level: ["advanced", "Beginner", "expert", ""], limit: NUMERIC_EDGES } },
  { name: "get spot", path: (rng) => `/v1/spots/${idPath(rng)}`, params: {} },
  { name: "forecast", path: (rng) => `/v1/spots/${idPath(rng)}/forecast`, params: { days: NUMERIC_EDGES } },
  { name: "tides", path: (rng) => `/v1/spots/${idPath(rng)}/tides`, params: { days: NUMERIC_EDGES } },
  { name: "usage", path: () => "/v1/usage", params: { days: NUMERIC_EDGES, q: ["x"] } },
];

describe(`generated bad input on /v1 (seed ${SEED})`, () => {
  for (const [index, endpoint] of ENDPOINTS.entries()) {
    test(`${endpoint.name}: ${CASES_PER_ENDPOINT} generated requests, no 5xx, spec error shape`, async () => {
      const rng = seededRng(SEED + index);
      const paths = Array.from({ length: CASES_PER_ENDPOINT }, () => endpoint.path(rng) + generatedQuery(rng, endpoint.params));
      const problems: string[] = [];
      for (let i = 0; i < paths.length; i += 16) {
        await Promise.all(
          paths.slice(i, i + 16).map(async (path) => {
            const problem = await check(path);
            if (problem) problems.push(`GET ${path.slice(0, 300)} → ${problem}`);
          }),
        );
      }
      expect(problems).toEqual([]);
    });
  }
});

describe("definite invalid values are 400 invalid_request", () => {
  const invalid = ["NaN", "Infinity", "-Infinity", "1e309", "", "0x1A", "a".repeat(10_000), "١٢"];
  const cases: [string, string][] = [];
  for (const v of invalid) {
    const e = encodeURIComponent(v);
    cases.push(["search limit", `/v1/spots?q=pipeline&limit=${e}`], ["nearby lat", `/v1/spots/nearby?lat=${e}&lng=0`], ["nearby radius", `/v1/spots/nearby?lat=0&lng=0&radius=${e}`]);
    cases.push(["forecast days", `/v1/spots/{spot}/forecast?days=${e}`], ["tides days", `/v1/spots/{spot}/tides?days=${e}`]);
  }
  cases.push(
    ["repeated limit", "/v1/spots?q=pipeline&limit=5&limit=5"],
    ["repeated q", "/v1/spots?q=pipeline&q=hawaii"],
    ["repeated lat", "/v1/spots/nearby?lat=1&lat=1&lng=0"],
    ["repeated days", "/v1/spots/{spot}/forecast?days=1&days=2"],
    ["empty q", "/v1/spots?q="],
    ["bare q", "/v1/spots?q"],
    ["10k q", `/v1/spots?q=${"a".repeat(10_000)}`],
    ["missing lng", "/v1/spots/nearby?lat=0"],
  );

  test("each is 400 with the spec's error shape", async () => {
    const problems: string[] = [];
    for (const [name, template] of cases) {
      const path = template.replace("{spot}", spotId);
      const problem = await check(path, undefined, 400);
      if (problem) problems.push(`${name}: GET ${path.slice(0, 200)} → ${problem}`);
    }
    expect(problems).toEqual([]);
  });
});

describe("broken credentials", () => {
  test("malformed, conflicting, revoked and disabled keys: 401 with the right code, never more", async () => {
    const other = "sk_live_" + "b".repeat(43);
    const invalid: Record<string, string>[] = [
      {},
      { "X-API-Key": "" },
      { "X-API-Key": " " },
      { "X-API-Key": key.slice(0, -1) },
      { "X-API-Key": key + "x" },
      { "X-API-Key": key.toUpperCase() },
      { "X-API-Key": "sk_live_" },
      { "X-API-Key": other },
      { "X-API-Key": revokedKey },
      { "X-API-Key": "' OR 1=1 --" },
      { "X-API-Key": "sk_live_" + "é".repeat(43) },
      { "X-API-Key": "k".repeat(8_000) },
      { Authorization: "Bearer" },
      { Authorization: "Bearer " },
      { Authorization: `Basic ${key}` },
      { Authorization: key },
      { Authorization: `Bearer ${key} extra` },
      { Authorization: `Bearer ${key},Bearer ${key}` },
      { Authorization: `Token ${key}` },
      { Authorization: "Bearer \u00ff\u00fe" },
      { Authorization: `Bearer ${"x".repeat(8_000)}` },
      { "X-API-Key": key, Authorization: `Bearer ${other}` },
      { "X-API-Key": other, Authorization: `Bearer ${key}` },
    ];
    const problems: string[] = [];
    for (const headers of invalid) {
      for (const path of ["/v1/usage", `/v1/spots/${spotId}`, "/v1/spots?q=NaN&limit=1e309"]) {
        const res = await get(path, headers);
        const text = await res.text();
        const problem = problemIn(res.status, text, 401);
        const code = problem ? "" : ((JSON.parse(text) as ErrorBody).error?.code as string);
        if (problem) problems.push(`${JSON.stringify(headers).slice(0, 120)} ${path} → ${problem}`);
        else if (code !== "invalid_key") problems.push(`${JSON.stringify(headers).slice(0, 120)} ${path} → code ${code}, expected invalid_key`);
      }
    }
    const disabled = await get("/v1/spots?q=pipeline", { Authorization: `Bearer ${disabledKey}` });
    const text = await disabled.text();
    const problem = problemIn(disabled.status, text, 401);
    if (problem) problems.push(`disabled key → ${problem}`);
    else expect((JSON.parse(text) as ErrorBody).error?.code).toBe("account_disabled");
    expect(problems).toEqual([]);
  });

  test("oversized and numerous headers never cause a 5xx; heads over 16 KiB get Bun's 431", async () => {
    const problems: string[] = [];
    const many: Record<string, string> = { "X-API-Key": key };
    for (let i = 0; i < 200; i++) many[`X-Junk-${i}`] = "v".repeat(50);
    const variants: [string, Record<string, string>, string][] = [
      ["8 KB junk header", { "X-API-Key": key }, "X-Junk: " + "j".repeat(8_000)],
      ["8 KB key header", { "X-API-Key": "k".repeat(8_000) }, ""],
      ["64 KB junk header", { "X-API-Key": key, "X-Junk": "j".repeat(64_000) }, ""],
      ["64 KB key header", { "X-API-Key": "k".repeat(64_000) }, ""],
      ["200 headers", many, ""],
      ["60 KB URL", { "X-API-Key": key }, `q=${encodeURIComponent("ü".repeat(10_000))}`],
    ];
    for (const [name, headers, extra] of variants) {
      if (extra.startsWith("X-Junk: ")) headers["X-Junk"] = extra.slice("X-Junk: ".length);
      const path = extra.startsWith("q=") ? `/v1/spots?${extra}` : `/v1/spots/${spotId}`;
      const problem = await check(path, headers);
      if (problem) problems.push(`${name}: ${problem}`);
    }
    expect(problems).toEqual([]);
    // The server is still healthy afterwards.
    expect((await get("/healthz", {})).status).toBe(200);
  });


});

/** MCP: tool errors are results whose text starts with a listed code; `internal` is never one of them. */
const TOOL_ERROR = /^(invalid_key|account_disabled|not_found|no_forecast|rate_limited|invalid_request): /;

function hostileArgument(rng: Rng): unknown {
  const roll = rng.next();
  if (roll < 0.35) return rng.pick(HOSTILE);
  if (roll < 0.55) return rng.pick([0, -0, 1, 7, 8, 50, 51, -91, 90.5, 1e308, -1e308, 5e-324, 0.5, 3.7, Number.MAX_SAFE_INTEGER + 2, -1]);
  if (roll < 0.7) return rng.pick<unknown>([null, true, false, [], {}, [1], { value: 1 }, ["pipeline"], { toString: "x" }]);
  if (roll < 0.85) return undefined;
  return rng.pick(["pipeline", "hawaii", spotId, "0123456789abcdef", "21.6", "-158"]);
}

describe(`MCP tools with generated bad arguments (seed ${SEED})`, () => {
  const TOOL_ARGS: Record<string, string[]> = {
    search_spots: ["query", "limit"],
    spots_nearby: ["lat", "lng", "radius_km", "limit"],
    get_forecast: ["spot_id", "days"],
    get_tides: ["spot_id", "days"],
  };
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: "robustness", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { "X-API-Key": key } },
      fetch: (url, init) => apiFetch(String(url), init),
    });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
  });

  for (const [index, [tool, names]] of Object.entries(TOOL_ARGS).entries()) {
    test(`${tool}: 120 generated calls answer a result or a listed tool error`, async () => {
      const rng = seededRng(SEED + 100 + index);
      const problems: string[] = [];
      for (let i = 0; i < 120; i++) {
        const args: Record<string, unknown> = {};
        for (const name of names) {
          const value = hostileArgument(rng);
          if (value !== undefined) args[name] = value;
        }
        if (rng.next() < 0.1) args[rng.pick(JUNK_PARAMS)] = rng.pick(HOSTILE);
        const shown = JSON.stringify(args).slice(0, 300);
        try {
          const result = (await client.callTool({ name: tool, arguments: args })) as { isError?: boolean; content?: { type: string; text?: string }[]; structuredContent?: unknown };
          const text = result.content?.[0]?.text ?? "";
          if (result.isError) {
            if (!TOOL_ERROR.test(text)) problems.push(`${tool}(${shown}) → tool error without a listed code: ${text.slice(0, 200)}`);
          } else if (typeof result.structuredContent !== "object" || result.structuredContent === null) {
            problems.push(`${tool}(${shown}) → success without structuredContent`);
          }
        } catch (err) {
          problems.push(`${tool}(${shown}) → protocol error: ${String(err).slice(0, 200)}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  test("raw JSON-RPC bodies with 1e309, deep nesting and broken JSON never cause a 5xx", async () => {
    const call = (args: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"spots_nearby","arguments":${args}}}`;
    const bodies = [
      call(`{"lat":1e309,"lng":0}`),
      call(`{"lat":-1e309,"lng":1e309,"radius_km":1e309,"limit":1e309}`),
      call(`{"lat":0,"lng":0,"limit":${"9".repeat(400)}}`),
      call(`{"lat":"${"1".repeat(10_000)}","lng":0}`),
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast","arguments":{"spot_id":"${"a".repeat(5_000)}"}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call"`,
      `not json at all`,
      ``,
      `[]`,
      `null`,
      `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`,
    ];
    const problems: string[] = [];
    for (const body of bodies) {
      const res = await apiFetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { "X-API-Key": key, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" },
        body,
      });
      const text = await res.text();
      if (res.status >= 500) problems.push(`POST /mcp ${body.slice(0, 120)} → ${res.status}: ${text.slice(0, 200)}`);
      if (/"code"\s*:\s*"internal"|-32603/.test(text)) problems.push(`POST /mcp ${body.slice(0, 120)} → internal error: ${text.slice(0, 200)}`);
    }
    expect(problems).toEqual([]);
    expect((await get("/healthz", {})).status).toBe(200);
  });

  // tools/call whose `arguments` is not an object once answered -32603 with the SDK's zod dump (fixed in src/mcp).
  test("non-object tool arguments are invalid params, not an internal error", async () => {
    for (const args of [`"pipeline"`, `${"[".repeat(5_000)}${"]".repeat(5_000)}`]) {
      const res = await apiFetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { "X-API-Key": key, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" },
        body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_tides","arguments":${args}}}`,
      });
      expect(res.status).toBeLessThan(500);
      expect(await res.text()).not.toContain("-32603");
    }
  });
});
