/**
 * Hardening, tried as an attacker and as an operator behind a proxy would, against the compiled binary and over
 * raw sockets (client libraries add a Host and tidy the target): no data without a key whatever the request line
 * and Host say, short and odd proxy Hosts route, the burst window meters every authenticated request, MCP batches
 * are refused, one server per data directory, keyed responses are private, bodies over the limit get the spec's
 * 413, and nothing a client or the upstream sends can forge or pollute a log line.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seededRng } from "../../bench/prng";
import { cli, createKey, installDir, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo } from "../support/fake-open-meteo";
import { inBatches, rawRequest, type RawResponse } from "../support/raw-http";
import { BINARY, tempDir } from "../support/env";
import { untilKeyAccepted } from "../support/wait";

let server: RunningServer;
let port: number;
let key = "";

beforeAll(async () => {
  server = await startServer();
  port = Number(new URL(server.url).port);
  key = createKey(server.dataDir, "hardening@example.com", "scale", ["--daily-limit", "1000000", "--minute-limit", "100000"]);
  await untilKeyAccepted(server.url, key);
}, 30_000);

afterAll(async () => {
  await server.stop();
});

const MCP_CALL = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_spots", arguments: { query: "pipeline" } } });

/** Every keyed route: [method, target, body]. */
const ROUTES: [string, string, string?][] = [
  ["GET", "/v1/spots?q=pipeline"],
  ["GET", "/v1/spots/nearby?lat=21.66&lng=-158.05"],
  ["GET", "/v1/spots/pipeline"],
  ["GET", "/v1/spots/pipeline/forecast?days=1"],
  ["GET", "/v1/spots/pipeline/tides?days=1"],
  ["GET", "/v1/usage"],
  ["POST", "/mcp", MCP_CALL],
];

function request(method: string, target: string, opts: { version?: string; host?: string | null; key?: string; body?: string; extra?: string[] } = {}): string {
  const lines = [`${method} ${target} ${opts.version ?? "HTTP/1.1"}`];
  if (opts.host !== null) lines.push(`Host: ${opts.host ?? "localhost"}`.trimEnd());
  if (opts.key) lines.push(`X-API-Key: ${opts.key}`);
  if (opts.body !== undefined) lines.push("Content-Type: application/json", "Accept: application/json, text/event-stream", `Content-Length: ${Buffer.byteLength(opts.body)}`);
  lines.push(...(opts.extra ?? []), "Connection: close");
  return `${lines.join("\r\n")}\r\n\r\n${opts.body ?? ""}`;
}

/** Hosts a proxy or an old client may send, which must route. null = no Host line at all (HTTP/1.0). */
const GOOD_HOSTS: (string | null)[] = [null, "api", "api:80", "a", "ab", "abc", "my_upstream", "localhost:8080", "127.0.0.1", "[::1]:8080", "surf.example.com."];
/** Hosts that cannot be understood: 400, never data. */
const BAD_HOSTS = ["", "x/y", "a b", "a@b", "a?b", "a#b", "[zz", "[::1", "localhost:abc", "localhost:99999", "a:0"];

function errorCode(res: RawResponse): string | undefined {
  try {
    return (JSON.parse(res.body) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

describe("no data without a key, whatever the request line and Host say (raw sockets)", () => {
  test("good Hosts (HTTP/1.0 without Host included): 401 without a key, data and rate-limit headers with one", async () => {
    for (const host of GOOD_HOSTS) {
      for (const [method, target, body] of ROUTES) {
        const version = host === null ? "HTTP/1.0" : "HTTP/1.1";
        const anonymous = await rawRequest(port, request(method, target, { version, host, body }));
        expect([host, target, anonymous.status, errorCode(anonymous)]).toEqual([host, target, 401, "invalid_key"]);
        const keyed = await rawRequest(port, request(method, target, { version, host, body, key }));
        // The forecast is a 404 no_forecast here (no refresh ran): still answered under the key.
        const expected = target.includes("/forecast") ? 404 : 200;
        expect([host, target, keyed.status]).toEqual([host, target, expected]);
        expect(keyed.headers["x-ratelimit-limit"]).toBe("1000000");
      }
    }
  });

  test("a Host that cannot be understood is a 400 in the spec's shape, with or without a key", async () => {
    for (const host of BAD_HOSTS) {
      for (const [method, target, body] of [...ROUTES, ["GET", "/console/sign-in"] as [string, string]]) {
        for (const withKey of [false, true]) {
          const res = await rawRequest(port, request(method, target, { host, body, key: withKey ? key : undefined }));
          expect([host, target, withKey, res.status, errorCode(res)]).toEqual([host, target, withKey, 400, "invalid_request"]);
          expect(res.headers["content-type"]).toStartWith("application/json");
        }
      }
    }
  });

  test("HTTP/1.1 without Host and unusable request targets are refused with 400 by the HTTP parser", async () => {
    for (const text of ["GET /v1/spots/pipeline HTTP/1.1\r\nConnection: close\r\n\r\n", "GET * HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", "GET v1/spots/pipeline HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"]) {
      const res = await rawRequest(port, text);
      expect([text, res.status]).toEqual([text, 400]);
    }
  });

  test("absolute-form, prefixed, dot-segment and doubled-slash targets never skip the key check", async () => {
    const variants = (target: string) => [`http://evil.example${target}`, `/x/y/zzzzzzz${target}`, `/foo/..${target}`, `/v1/./..${target}`, `/v1/%2e%2e${target}`, `/${target}`, `${target.split("?")[0]}/?${target.split("?")[1] ?? ""}`];
    for (const [method, target, body] of ROUTES) {
      for (const variant of variants(target)) {
        for (const host of ["api", "x/y", null]) {
          const res = await rawRequest(port, request(method, variant, { host, body, version: host === null ? "HTTP/1.0" : "HTTP/1.1" }));
          // Never data: a refusal (401), or a path that names nothing (404), or a malformed request (400).
          expect([variant, host, [400, 401, 404].includes(res.status)]).toEqual([variant, host, true]);
          expect(res.body).not.toContain('"name"');
        }
      }
    }
  });

  test("short and odd proxy Hosts route every public path too", async () => {
    for (const host of GOOD_HOSTS) {
      const version = host === null ? "HTTP/1.0" : "HTTP/1.1";
      const health = await rawRequest(port, request("GET", "/healthz", { version, host }));
      expect([host, health.status, health.body]).toEqual([host, 200, '{"status":"ok"}']);
      const doc = await rawRequest(port, request("GET", "/openapi.json", { version, host }));
      expect([host, doc.status]).toEqual([host, 200]);
      // The developer console is behind the same target check, and answers without an API key (its own sign-in).
      const consolePage = await rawRequest(port, request("GET", "/console/sign-in", { version, host }));
      expect([host, consolePage.status]).toEqual([host, 200]);
      expect(consolePage.headers["content-type"]).toStartWith("text/html");
    }
  });

  test("fuzz: 2,500 generated request lines and Hosts — no 5xx, no data without a valid key", async () => {
    const rng = seededRng(20261123);
    const methods = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "get", "CONNECT", "TRACE"];
    const pieces = ["/v1", "/spots", "/pipeline", "/nearby", "/forecast", "/tides", "/usage", "/mcp", "/..", "/.", "//", "/%2e%2e", "/%2F", "/%00", "/healthz", "/openapi.json", "?q=pipeline", "?days=1&days=2", "?lat=21&lng=-158", "#frag", "x", "http://a", "http://[::1]:1", ";", "@", "%", "/\u00e9"];
    const hosts: (string | null)[] = [null, "", "a", "api:80", "[::1]", "[::1]:99999", "x/y", "a b", "@", "?", "#", "localhost", "a:b:c", "..", "\u00e9", "[", "]", "::1", "a%20b"];
    const versions = ["HTTP/1.1", "HTTP/1.0", "HTTP/1.1", "HTTP/2.0", "HTTP/1.x"];
    const keyLines = [[], [], ["X-API-Key: sk_live_" + "A".repeat(43)], ["Authorization: Bearer nope"], ["X-API-Key:"], ["Authorization: Basic eDp5"], [`X-API-Key: ${key.slice(0, -1)}x`]];
    const tasks = Array.from({ length: 2500 }, () => {
      let target = rng.next() < 0.1 ? "*" : "";
      for (let n = rng.int(1, 5); n > 0; n--) target += rng.pick(pieces);
      if (!target.startsWith("/") && !target.startsWith("http") && rng.next() < 0.8) target = "/" + target;
      const method = rng.pick(methods);
      const host = rng.pick(hosts);
      const head = [`${method} ${target} ${rng.pick(versions)}`, ...(host === null ? [] : [`Host: ${host}`]), ...rng.pick(keyLines), "Connection: close"];
      const body = method === "POST" && rng.next() < 0.5 ? MCP_CALL : "";
      if (body) head.push(`Content-Length: ${body.length}`, "Content-Type: application/json", "Accept: application/json, text/event-stream");
      const text = `${head.join("\r\n")}\r\n\r\n${body}`;
      return async () => ({ text, res: await rawRequest(port, text) });
    });
    const results = await inBatches(tasks, 16);
    for (const { text, res } of results) {
      // Bun's HTTP parser answers a version other than HTTP/1.0 and 1.1 with a bare 505, the status RFC 9110 names.
      const unsupportedVersion = res.status === 505 && !/^\S+ \S+ HTTP\/1\.[01]\r\n/.test(text);
      expect([text, res.status >= 500 && !unsupportedVersion]).toEqual([text, false]);
      if (res.status === 200) {
        // The only 200s without a key are the public health, OpenAPI and home (links only) answers.
        const publicAnswer = res.body === '{"status":"ok"}' || res.body.startsWith('{"openapi":') || res.body.startsWith('{"name":"Surfcast"') || res.body === "";
        expect([text, publicAnswer]).toEqual([text, true]);
      }
    }
    // The server is still there, and nothing of this was logged as an error.
    expect((await rawRequest(port, request("GET", "/healthz"))).status).toBe(200);
    expect(server.output()).not.toContain(" ERROR ");
  }, 120_000);
});

describe("the burst window meters every authenticated request", () => {
  test("with 2 a minute: parallel MCP initialize, tools/list and POST /v1 get at most 2 answers, the rest 429", async () => {
    const limited = createKey(server.dataDir, "burst@example.com", "starter", ["--minute-limit", "2"]);
    await untilKeyAccepted(server.url, createKey(server.dataDir, "burst-probe@example.com")); // made after it: the server has both
    const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const sends = [
      ...Array.from({ length: 20 }, () => () => rawRequest(port, request("POST", "/mcp", { key: limited, body: initialize }))),
      ...Array.from({ length: 20 }, () => () => rawRequest(port, request("POST", "/mcp", { key: limited, body: list }))),
      ...Array.from({ length: 20 }, () => () => rawRequest(port, request("POST", "/v1/spots", { key: limited }))),
    ];
    const answers = await inBatches(sends, 20);
    const admitted = answers.filter((r) => r.status !== 429);
    expect(admitted.length).toBeLessThanOrEqual(2);
    for (const r of answers.filter((a) => a.status === 429)) {
      expect(errorCode(r)).toBe("rate_limited");
      expect(Number(r.headers["retry-after"])).toBeGreaterThan(0);
    }
  });

  test("a JSON-RPC batch of tool calls is refused whole: no tool runs", async () => {
    const batch = JSON.stringify(Array.from({ length: 60 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "search_spots", arguments: { query: "pipeline" } } })));
    const res = await rawRequest(port, request("POST", "/mcp", { key, body: batch }));
    expect(res.status).toBe(400);
    expect((JSON.parse(res.body) as { error: { code: number } }).error.code).toBe(-32600);
  });
});

describe("exposure", () => {
  test("keyed responses are private and vary on the key headers; usage is not stored at all", async () => {
    for (const [, target] of ROUTES.filter(([m]) => m === "GET")) {
      const res = await rawRequest(port, request("GET", target, { key }));
      expect(res.headers.vary).toContain("X-API-Key");
      expect(res.headers.vary).toContain("Authorization");
      expect(res.headers["cache-control"]).toStartWith("private");
    }
    const usage = await rawRequest(port, request("GET", "/v1/usage", { key }));
    expect(usage.headers["cache-control"]).toBe("private, no-store");
  });

  test("/mcp refuses an Origin equal to a Host that is not one of the server's names (DNS rebinding)", async () => {
    const rebound = await rawRequest(port, request("POST", "/mcp", { key, host: `attacker.example:${port}`, body: MCP_CALL, extra: [`Origin: http://attacker.example:${port}`] }));
    expect(rebound.status).toBe(403);
    const own = await rawRequest(port, request("POST", "/mcp", { key, host: `127.0.0.1:${port}`, body: MCP_CALL, extra: [`Origin: http://127.0.0.1:${port}`] }));
    expect(own.status).toBe(200);
  });

  test("bodies over the limit get 413 with the spec's error body; a body of unknown length is read no further than the limit", async () => {
    const big = "x".repeat(2 * 1024 * 1024);
    for (const target of ["/mcp", "/v1/spots", "/healthz"]) {
      const res = await rawRequest(port, `POST ${target} HTTP/1.1\r\nHost: a\r\nX-API-Key: ${key}\r\nContent-Length: ${big.length}\r\n\r\n${big}`);
      expect([target, res.status, errorCode(res)]).toEqual([target, 413, "invalid_request"]);
    }
    const chunked = `POST /mcp HTTP/1.1\r\nHost: a\r\nX-API-Key: ${key}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\r\n${(100_000).toString(16)}\r\n${"x".repeat(100_000)}\r\n0\r\n\r\n`;
    const res = await rawRequest(port, chunked);
    expect([res.status, errorCode(res)]).toEqual([413, "invalid_request"]);
  });

  test("serve binds to loopback by default and prints the address it listens on", async () => {
    const dir = tempDir("loopback");
    const proc = Bun.spawn([BINARY, "--data-dir", dir, "serve", "--port", "0", "--no-scheduler"], { stdout: "pipe", stderr: "pipe", env: { ...process.env, HOST: "" } });
    let out = "";
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
      out += new TextDecoder().decode(chunk);
      if (out.includes("\n")) break;
    }
    proc.kill("SIGTERM");
    await proc.exited;
    expect(out).toMatch(/^Surfcast is serving on http:\/\/127\.0\.0\.1:\d+ \(data in /);
  });
});

describe("one server per data directory", () => {
  test("a second serve on the same directory exits 2 with one line; operator commands keep working", async () => {
    const second = Bun.spawnSync([BINARY, "--data-dir", server.dataDir, "serve", "--port", "0", "--no-scheduler"], { stdout: "pipe", stderr: "pipe" });
    expect(second.exitCode).toBe(2);
    const lines = second.stderr.toString().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^surfcast: surfcast serve \(pid \d+\) is already serving .*; stop it first/);
    expect(cli(server.dataDir, ["accounts", "list"]).code).toBe(0);
    expect(createKey(server.dataDir, "second@example.com", "starter")).toStartWith("sk_live_");
  });
});

describe("secrets and logs", () => {
  test("keys that fail in every way, in headers and query strings, never reach the log", async () => {
    const secret = "sk_live_" + "S".repeat(43);
    const attempts = [
      request("GET", `/v1/spots?q=pipeline&api_key=${secret}`),
      request("GET", `/v1/spots/pipeline?key=${secret}`, { key }),
      request("GET", "/v1/spots/pipeline", { key: secret }),
      request("GET", "/v1/spots/pipeline", { extra: [`Authorization: Bearer ${secret}`] }),
      request("GET", "/v1/spots/pipeline", { extra: [`Authorization: Basic ${btoa(`u:${secret}`)}`] }),
      request("GET", "/v1/spots/pipeline", { extra: [`X-API-Key: ${secret}`, `Authorization: Bearer ${key}`] }),
      request("POST", `/mcp?api_key=${secret}`, { body: MCP_CALL }),
      request("GET", `/nowhere?api_key=${secret}`),
      request("GET", `/v1/spots/pipeline?api_key=${secret}`, { host: "x/y" }),
    ];
    for (const text of attempts) expect((await rawRequest(port, text)).status).toBeLessThan(500);
    await Bun.sleep(100);
    expect(server.output()).not.toContain("SSSSSSSS");
    expect(server.output()).not.toContain(key);
  });

  test("an upstream error text cannot forge a log line, drive the terminal, or leak the upstream key", async () => {
    const upstream = await startFakeOpenMeteo();
    try {
      const forged = `bad\n${new Date().toISOString()} INFO  forecast refresh done spots=1\u001b[2J key=UPSTREAM-SECRET-42`;
      upstream.inject({ status: 400, reason: forged });
      const dir = installDir("forge");
      // Spawned, not spawnSync: the fake upstream answers from this process's event loop.
      const proc = Bun.spawn([BINARY, "--data-dir", dir, "refresh", "--spots", "pipeline"], {
        stdout: "pipe",
        stderr: "pipe",
        env: {
          ...process.env,
          SURFCAST_OPEN_METEO_MARINE_URL: upstream.url,
          SURFCAST_OPEN_METEO_FORECAST_URL: upstream.url,
          SURFCAST_OPEN_METEO_API_KEY: "UPSTREAM-SECRET-42",
          SURFCAST_OPEN_METEO_RETRIES: "0",
        },
      });
      const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      expect(code).not.toBe(0);
      const log = stdout + stderr;
      expect(log).toContain("forecast refresh failed");
      expect(log).not.toContain("\u001b");
      expect(log).not.toContain("UPSTREAM-SECRET-42");
      expect(upstream.requests.every((r) => r.apikey === "UPSTREAM-SECRET-42")).toBe(true);
      // Every line of the log is one of ours: the forged INFO line stays inside a quoted field.
      for (const line of log.split("\n").filter((l) => /^\d{4}-\d\d-\d\dT/.test(l))) expect(line).not.toMatch(/^\S+ INFO {2}forecast refresh done spots=1/);
    } finally {
      await upstream.close();
    }
  }, 30_000);
});
