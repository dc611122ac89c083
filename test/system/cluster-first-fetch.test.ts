/**
 * On-demand first fetches among several servers, through the compiled binary: two `serve` nodes in the `requested`
 * refresh scope on one PostgreSQL and one Redis (test/support/cluster.ts), against the fake Open-Meteo. Both asked at
 * once for a spot nobody asked for before: the spot is fetched from upstream once (the forecast-first-fetch lease),
 * and both answer its forecast.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { describeWithCluster, importSpots, newClusterKey, startCluster, type Cluster } from "../support/cluster";
import { waitFor } from "../support/wait";

const SPOTS = [
  { name: "Supertubos", lat: 39.3448, lng: -9.3645, country: "Portugal" },
  { name: "Uluwatu", lat: -8.8166, lng: 115.0862, country: "Indonesia" },
];

let cluster: Cluster;

describeWithCluster("a new spot asked of two servers at once (compiled binary, PostgreSQL, Redis)", () => {
  beforeAll(async () => {
    cluster = await startCluster({
      nodes: 2,
      env: { SURFCAST_REFRESH_SCOPE: "requested" },
      prepare: importSpots(SPOTS),
    });
  }, 90_000);

  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  test("is fetched from upstream once, and both servers answer its forecast", async () => {
    const { key } = newClusterKey(cluster, "first@example.com");
    const [a, b] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    for (const node of [a, b]) await waitFor(`${node.name} to accept the key`, async () => (await fetch(`${node.url}/v1/spots?q=super&limit=1`, { headers: { "X-API-Key": key } })).status === 200, 20_000, 100);
    // Nothing was asked for before: the start-up refreshes of the requested scope fetch nothing.
    expect(cluster.fake.requests).toEqual([]);
    const ask = (base: string) => fetch(`${base}/v1/spots/uluwatu/forecast?days=1`, { headers: { "X-API-Key": key }, signal: AbortSignal.timeout(30_000) });
    const answers = await Promise.all([ask(a.url), ask(b.url)]);
    // A server that waited for the other's fetch reads the document it wrote (a moment later on a loaded machine).
    for (const [i, node] of [a, b].entries()) {
      if (answers[i]!.status !== 200) await waitFor(`${node.name} to answer the forecast`, async () => (await ask(node.url)).status === 200, 20_000, 200);
    }
    expect({ marine: cluster.fake.locations("marine"), forecast: cluster.fake.locations("forecast"), calls: cluster.fake.requests.length }).toEqual({ marine: 1, forecast: 1, calls: 2 });
  }, 90_000);
});
