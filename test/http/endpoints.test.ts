/**
 * The endpoint table (core/endpoints.ts) that the router, the gate's counting, the usage report, the metrics and log
 * labels and the OpenAPI document read: which path is which endpoint, and that the served document and the labels
 * agree with it.
 */
import { describe, expect, test } from "bun:test";
import { USAGE_KEYS, V1_ENDPOINTS } from "../../src/core/endpoints";
import { endpointAt, MOUNTS } from "../../src/core/mounts";
import { endpointLabel } from "../../src/ops/metrics";
import { startTestServer } from "../support/inprocess";

describe("endpointAt", () => {
  test.each([
    ["/v1/spots", "searchSpots"],
    ["/v1/spots/nearby", "spotsNearby"],
    ["/v1/spots/best", "bestSpots"],
    ["/v1/spots/pipeline", "getSpot"],
    ["/v1/spots/pipeline/forecast", "getForecast"],
    ["/v1/spots/pipeline/tides", "getTides"],
    ["/v1/spots/pipeline/now", "getSpotNow"],
    ["/v1/now", "getNow"],
    ["/v1/usage", "getUsage"],
    ["/v1/spots/", null],
    ["/v1/spots//forecast", null],
    ["/v1/spots/pipeline/forecast/", null],
    ["/v1/spots/pipeline/wind", null],
    ["/v1/spot", null],
    ["/v1", null],
  ] as [string, string | null][])("%s → %p", (path, operationId) => expect<string | null>(endpointAt(path)?.operationId ?? null).toBe(operationId));

  test("usage keys in the order /v1/usage reports them", () => {
    expect(USAGE_KEYS).toEqual(["spots.search", "spots.nearby", "spots.get", "forecast", "tides", "now", "spots.best", "observations", "verification", "climate", "embed", "calendar"]);
  });
});

test("the served OpenAPI document has exactly the table's paths and operations, and /metrics a label for each", async () => {
  const server = await startTestServer();
  try {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, { get: { operationId: string } }> };
    const served = Object.entries(doc.paths).map(([path, item]) => [path, item.get.operationId]).sort();
    expect(served).toEqual(V1_ENDPOINTS.map((e) => [e.path, e.operationId]).sort());
    const labels = Object.keys(doc.paths).map((path) => endpointLabel(`http://x${path.replaceAll("{id}", "some-spot")}?q=1`));
    expect(labels.sort()).toEqual(Object.keys(doc.paths).sort());
  } finally {
    await server.close();
  }
}, 30_000);

test("every row of the mount table is answered by its room, and a path no row serves is the spec's 404", async () => {
  const server = await startTestServer();
  const noSuchPath = (path: string) => ({ error: { code: "not_found", message: `No such endpoint: ${path}` } });
  try {
    for (const mount of MOUNTS) {
      if (mount.guard === "key" || mount.guard === "local") continue; // behind a key (the 404 there is /v1's), or another port
      const path = mount.path.replace(/\{\w+\}/g, "AAAAAAAAAAAAAAAAAAAAAAAA").replace(/\*$/, "nothing-here");
      const method = "methods" in mount && mount.methods ? mount.methods[0]! : "GET";
      const res = await fetch(server.url + path, { method, redirect: "manual" });
      const body = await res.text();
      expect([mount.path, body]).not.toEqual([mount.path, JSON.stringify(noSuchPath(path))]);
    }
    for (const path of ["/nope", "/alerts", "/consolex", "/healthz/", "/docs/nope"]) {
      const res = await fetch(server.url + path);
      expect([path, res.status, await res.json()]).toEqual([path, 404, noSuchPath(path)]);
    }
  } finally {
    await server.close();
  }
}, 30_000);
