/**
 * A typed client generated from the served document (openapi-typescript → test/generated/surfcast-api.d.ts,
 * committed) drives the server through openapi-fetch. `tsc` type-checks this file against the generated
 * types, and the first test fails when they no longer match the served document.
 * After changing the document: SURFCAST_REGENERATE=1 bun test test/http/openapi-client.test.ts, then commit.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from "openapi-typescript";
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/surfcast-api";
import { ROOT } from "../support/env";
import { apiFetch } from "../support/http";
import { startTestServer, type TestServer } from "../support/inprocess";

type Spot = components["schemas"]["Spot"];
type UsageResponse = components["schemas"]["UsageResponse"];

const GENERATED = join(ROOT, "test/generated/surfcast-api.d.ts");

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** The typed client; its requests go through apiFetch, so every response is also held to the document. */
function client(key?: string) {
  return createClient<paths>({
    baseUrl: server.url,
    headers: key ? { "X-API-Key": key } : {},
    fetch: (request) => apiFetch(request.url, { method: request.method, headers: request.headers }),
  });
}

describe("typed client", () => {
  test("the committed types are what openapi-typescript generates from the served document", async () => {
    const document = (await (await fetch(server.url + "/openapi.json")).json()) as OpenAPI3;
    const generated = COMMENT_HEADER + astToString(await openapiTS(document, { silent: true }));
    if (process.env.SURFCAST_REGENERATE === "1") writeFileSync(GENERATED, generated);
    expect(readFileSync(GENERATED, "utf8")).toBe(generated);
  });

  test("end to end: search, get, nearby, tides, forecast and usage with typed results and typed errors", async () => {
    const api = client(await server.key("starter"));

    const found = await api.GET("/v1/spots", { params: { query: { q: "pipeline", limit: 3 } } });
    expect(found.response.status).toBe(200);
    const spots: Spot[] = found.data ?? [];
    expect(spots.length).toBeGreaterThan(0);
    const first = spots[0]!;

    const one = await api.GET("/v1/spots/{id}", { params: { path: { id: first.id } } });
    expect(one.data?.name).toBe(first.name);

    const near = await api.GET("/v1/spots/nearby", { params: { query: { lat: first.lat, lng: first.lng, radius: 5 } } });
    const closest = near.data?.[0];
    expect(closest?.id).toBe(first.id);
    expect(closest?.distanceKm).toBeLessThan(0.01);

    const tides = await api.GET("/v1/spots/{id}/tides", { params: { path: { id: first.id }, query: { days: 2 } } });
    expect(tides.data?.units).toBe("metric");
    expect(tides.data?.spot.id).toBe(first.id);

    // No refresh has run in this server: the spot exists but has no forecast document yet.
    const forecast = await api.GET("/v1/spots/{id}/forecast", { params: { path: { id: first.id } } });
    expect(forecast.response.status).toBe(404);
    expect(forecast.error?.error.code).toBe("no_forecast");

    const usage = await api.GET("/v1/usage");
    const report: UsageResponse | undefined = usage.data;
    expect(report?.plan).toBe("starter");
    expect(report?.today).toBe(5);
    expect(report?.days).toHaveLength(30);
    expect(report?.days.at(-1)?.byEndpoint["spots.search"]).toBe(1);
  });

  test("after the error check a response's data is defined: typed code needs no `?.` or `!` (tsc checks this file)", async () => {
    const api = client(await server.key("starter"));
    const { data, error } = await api.GET("/v1/spots/{id}", { params: { path: { id: "pipeline" } } });
    if (error) throw new Error(error.error.message);
    const name: string = data.name; // TS18048 here if any error response of the operation had no body
    expect(name.length).toBeGreaterThan(0);
    const usage = await api.GET("/v1/usage");
    if (usage.error) throw new Error(usage.error.error.message);
    expect(usage.data.days).toHaveLength(30);
  });

  test("errors come back typed as the Error schema", async () => {
    const api = client(await server.key("starter"));
    const tooShort = await api.GET("/v1/spots", { params: { query: { q: "a" } } });
    expect(tooShort.response.status).toBe(400);
    expect(tooShort.error?.error.code).toBe("invalid_request");

    const unknown = await api.GET("/v1/spots/{id}", { params: { path: { id: "no-such-spot-anywhere" } } });
    expect(unknown.response.status).toBe(404);
    expect(unknown.error?.error.code).toBe("not_found");

    const anonymous = await client().GET("/v1/usage");
    expect(anonymous.response.status).toBe(401);
    expect(anonymous.error?.error.code).toBe("invalid_key");
  });
});
