/**
 * What third-party validators and clients send, through the compiled binary (raw sockets where the header's exact
 * text matters): the bearer scheme in any case, If-None-Match compared weakly (a weak tag, a list, `*`), integers
 * written as integer-valued numbers (`10.0`, `1e1`), HEAD as the document declares it, and the rules the served
 * document states in its schemas (`q`'s pattern, `/v1/now`'s list) agreeing with what the server accepts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, startServer, type RunningServer } from "../support/binary";
import { apiFetch } from "../support/http";
import { rawRequest, type RawResponse } from "../support/raw-http";

let server: RunningServer;
let port: number;
let key: string;
let document: Record<string, any>;

beforeAll(async () => {
  server = await startServer({ args: ["--demo"] });
  port = Number(new URL(server.url).port);
  key = createKey(server.dataDir);
  document = (await (await fetch(`${server.url}/openapi.json`)).json()) as Record<string, any>;
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

function raw(target: string, headers: string[], method = "GET"): Promise<RawResponse> {
  return rawRequest(port, [`${method} ${target} HTTP/1.1`, "Host: localhost", ...headers, "Connection: close", "", ""].join("\r\n"));
}

describe("Authorization: the scheme name is case-insensitive (RFC 9110 §11.1)", () => {
  for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
    test(`${scheme} <key> on /v1 and /mcp`, async () => {
      const spot = await raw("/v1/spots/pipeline", [`Authorization: ${scheme} ${key}`]);
      expect(spot.status).toBe(200);
      expect(JSON.parse(spot.body).id).toBe("pipeline");
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      const mcp = await rawRequest(
        port,
        [
          "POST /mcp HTTP/1.1",
          "Host: localhost",
          `Authorization: ${scheme} ${key}`,
          "Content-Type: application/json",
          "Accept: application/json, text/event-stream",
          "MCP-Protocol-Version: 2025-06-18",
          `Content-Length: ${body.length}`,
          "Connection: close",
          "",
          body,
        ].join("\r\n"),
      );
      expect(mcp.status).toBe(200);
      expect(mcp.body).toContain("get_forecast");
    });
  }

  test("another scheme, or a bearer of a wrong key, is still 401 invalid_key", async () => {
    for (const value of [`Basic ${key}`, `Bearerx ${key}`, `bearer ${key.slice(0, -1)}x`]) {
      const res = await raw("/v1/spots/pipeline", [`Authorization: ${value}`]);
      expect([value, res.status, JSON.parse(res.body).error.code]).toEqual([value, 401, "invalid_key"]);
    }
  });
});

describe("If-None-Match compares weakly (RFC 9110 §13.1.2): a weak tag, a list and * answer 304", () => {
  for (const target of ["/v1/spots/pipeline/forecast?days=1", "/v1/spots/pipeline/now", "/v1/now?spots=pipeline,supertubos"]) {
    test(target, async () => {
      const first = await raw(target, [`X-API-Key: ${key}`]);
      expect(first.status).toBe(200);
      const etag = first.headers.etag!;
      expect(etag).toMatch(/^"[^"]+"$/);
      const cases: [string, number][] = [
        [etag, 304],
        [`W/${etag}`, 304],
        ["*", 304],
        [`"other", ${etag}`, 304],
        [`W/"other",W/${etag}`, 304],
        ['"other"', 200],
        [`"other", W/"x${etag.slice(1)}`, 200],
      ];
      for (const [value, status] of cases) {
        const res = await raw(target, [`X-API-Key: ${key}`, `If-None-Match: ${value}`]);
        // The content moves on at the minute (now) or the hour (forecast): a 200 with a new tag is not a refusal.
        if (status === 304 && res.status === 200 && res.headers.etag !== etag) return;
        expect([value, res.status]).toEqual([value, status]);
        if (status === 304) {
          expect(res.body).toBe("");
          expect(res.headers.etag).toBe(etag);
        }
      }
    });
  }
});

describe("integers written as integer-valued numbers are integers (JSON Schema 2020-12)", () => {
  test("limit, days and hours as 10.0, 1e1 or 7.0 answer as 10 and 7; a fraction is still a 400", async () => {
    const answer = async (path: string) => {
      const res = await apiFetch(server.url + path, { headers: { "X-API-Key": key } });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await answer("/v1/spots?q=beach&limit=10.0")).body).toHaveLength(10);
    expect((await answer("/v1/spots?q=beach&limit=1e1")).body).toHaveLength(10);
    expect((await answer("/v1/spots/nearby?lat=21.66&lng=-158.05&limit=3.0")).body).toHaveLength(3);
    expect((await answer("/v1/spots/pipeline/forecast?days=1.0")).body.hours).toEqual((await answer("/v1/spots/pipeline/forecast?days=1")).body.hours);
    expect((await answer("/v1/spots/pipeline/tides?days=7.0")).status).toBe(200);
    expect((await answer("/v1/spots/best?lat=21.66&lng=-158.05&hours=24.0&limit=2.00")).status).toBe(200);
    for (const path of ["/v1/spots?q=beach&limit=10.5", "/v1/spots/pipeline/forecast?days=7.01", "/v1/spots/pipeline/tides?days=1e400"]) {
      const refused = await answer(path);
      expect([path, refused.status, refused.body.error.code]).toEqual([path, 400, "invalid_request"]);
    }
  });
});

describe("HEAD, as the document declares it", () => {
  test("every /v1 operation has a HEAD answered with its GET's status and headers and no body (each checked against the document)", async () => {
    for (const path of ["/v1/spots?q=pipe", "/v1/spots/nearby?lat=21.66&lng=-158.05", "/v1/spots/best?lat=21.66&lng=-158.05", "/v1/spots/pipeline", "/v1/spots/pipeline/forecast", "/v1/spots/pipeline/tides", "/v1/spots/pipeline/now", "/v1/now?spots=pipeline", "/v1/usage", "/v1/spots/nowhere"]) {
      const get = await apiFetch(server.url + path, { headers: { "X-API-Key": key } });
      const head = await apiFetch(server.url + path, { method: "HEAD", headers: { "X-API-Key": key } });
      expect([path, head.status]).toEqual([path, get.status]);
      expect(await head.text()).toBe("");
      expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    }
    expect(Object.values<any>(document.paths).every((item) => item.head?.operationId === `${item.get.operationId}Head`)).toBe(true);
  });

  test("info.license is declared", () => {
    expect(document.info.license.name).toContain("CC BY 4.0");
  });
});

describe("rules in the schema agree with the server", () => {
  const parameter = (path: string, name: string) => (document.paths[path].get.parameters as { name: string; schema: Record<string, any> }[]).find((p) => p.name === name)!.schema;

  test("q: the pattern, minLength and maxLength accept exactly what the server accepts", async () => {
    const schema = parameter("/v1/spots", "q");
    const pattern = new RegExp(schema.pattern, "u");
    for (const q of ["pi", " pi ", "p i", "ño", "p", " p ", "  ", "\tp\t", "  ab  "]) {
      const valid = pattern.test(q) && q.length >= schema.minLength && q.length <= schema.maxLength;
      const res = await apiFetch(`${server.url}/v1/spots?q=${encodeURIComponent(q)}`, { headers: { "X-API-Key": key } });
      expect([q, res.status]).toEqual([q, valid ? 200 : 400]);
    }
  });

  test("/v1/now spots: the pattern accepts what the server accepts, save distinctness (its description)", async () => {
    const pattern = new RegExp(parameter("/v1/now", "spots").pattern, "u");
    const list = (n: number) => ["pipeline", "supertubos", "uluwatu"].concat(Array.from({ length: n - 3 }, () => "x")).slice(0, n).join(",");
    for (const spots of ["pipeline", " pipeline , supertubos ", "pipeline,,supertubos", "pipeline, ,supertubos", ",pipeline", "pipeline,", list(21)]) {
      const res = await apiFetch(`${server.url}/v1/now?spots=${encodeURIComponent(spots)}`, { headers: { "X-API-Key": key } });
      expect([spots, res.status]).toEqual([spots, pattern.test(spots) ? 200 : 400]);
    }
  });
});
