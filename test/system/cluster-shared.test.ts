/**
 * Several servers, round two, through the compiled binary: three `serve` nodes on one PostgreSQL and one Redis
 * (test/support/cluster.ts). Every limit is shared: the console's sign-in throttle (one address, 10 failures per
 * 15 minutes whatever the node), an embed's view-minutes (once per embed and minute across nodes, and its day's
 * allowance), a key's quota through a Redis that loses its data (FLUSHALL: the day restarts from PostgreSQL's count).
 * Failing the same way everywhere: an embed while Redis is away answers its own HTML 503 page with Retry-After; a
 * PostgreSQL that hangs (the relay stops passing anything on) costs a request that needs it a 503, and
 * /healthz?verbose=1 tells it, where before a request waited for TCP. The node list names where each node listens;
 * a node started with other shared settings warns. One cluster serves the whole file; the tests run in order.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { cliOk, describeWithCluster, importSpots, newClusterKey, startCluster, type Cluster, type ClusterNode } from "../support/cluster";
import { startServer } from "../support/binary";
import { ConsoleClient } from "../support/console-client";
import { waitFor } from "../support/wait";

const SPOTS = [
  { name: "Supertubos", lat: 39.3448, lng: -9.3645, country: "Portugal" },
  { name: "Uluwatu", lat: -8.8166, lng: 115.0862, country: "Indonesia" },
  { name: "Pipeline", lat: 21.6678, lng: -158.0505, country: "USA, Hawaii" },
];
const SEARCH = "/v1/spots?q=super&limit=1";

let cluster: Cluster;
let nodes: ClusterNode[];

const run = (args: string[]) => cliOk(cluster, args);
const newKey = (email: string, accountFlags?: string[]) => newClusterKey(cluster, email, accountFlags);

const get = (base: string, path: string, key?: string, timeoutMs = 15_000) =>
  fetch(base + path, { headers: key === undefined ? {} : { "X-API-Key": key }, signal: AbortSignal.timeout(timeoutMs) });

/** Until every node answers `path` with `key` 200 (a new key reaches every node's registry). */
async function everyNodeServes(path: string, key: string): Promise<void> {
  for (const node of nodes) await waitFor(`${node.name} to accept the key`, async () => (await get(node.url, path, key)).status === 200, 20_000, 100);
}

const usageOf = async (key: string) => (await (await get(nodes[0]!.url, "/v1/usage", key)).json()) as { today: number; days: { byEndpoint: Record<string, number> }[] };

describeWithCluster("several servers share every limit and fail alike (compiled binary, PostgreSQL, Redis)", () => {
  beforeAll(async () => {
    cluster = await startCluster({
      nodes: 3,
      args: ["--no-scheduler"],
      prepare: importSpots(SPOTS),
    });
    nodes = cluster.nodes;
  }, 90_000);

  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  test("one address gets 10 failed sign-ins per 15 minutes, whatever the node: 30 wrong passwords over three nodes check 10", async () => {
    const password = "a long enough console password";
    const link = new URL((JSON.parse(run(["accounts", "invite", "victim@example.com", "--plan", "starter", "--json"])) as { url: string }).url).pathname;
    const invited = new ConsoleClient(nodes[0]!.url);
    await invited.get(link);
    expect((await invited.post(link, { password, confirm: password })).status).toBe(303);

    const browsers = nodes.map((node) => new ConsoleClient(node.url));
    for (const browser of browsers) await browser.get("/console/sign-in");
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await browsers[i % 3]!.post("/console/sign-in", { email: "victim@example.com", password: `wrong guess ${i}` })).status);
    // 401: the password was checked and wrong; 429: refused before any check.
    expect({ checked: statuses.filter((s) => s === 401).length, throttled: statuses.filter((s) => s === 429).length }).toEqual({ checked: 10, throttled: 20 });
    // Refused on every node, and the right password from this address too until the window passes.
    for (const browser of browsers) expect((await browser.post("/console/sign-in", { email: "victim@example.com", password })).status).toBe(429);
  }, 120_000);

  test("an embed's view is counted once per minute across nodes, and its day's allowance is the embed's on every node", async () => {
    const { id: keyId, key } = newKey("shop@example.com", ["--plan", "starter"]);
    const embed = JSON.parse(run(["embeds", "create", keyId, "--spots", "supertubos", "--json"])) as { id: string };
    // Every node knows the embed (its stamp, which counts no view, answers).
    for (const node of nodes) await waitFor(`${node.name} to know the embed`, async () => (await get(node.url, `/embed/${embed.id}/stamp`)).status === 200, 20_000, 100);
    // Nine views over three nodes within one UTC minute (started with at least 20 s of it left).
    await waitFor("a UTC minute with 20 s left", () => Date.now() % 60_000 < 40_000, 61_000, 200);
    const minute = Math.floor(Date.now() / 60_000);
    for (let i = 0; i < 9; i++) expect((await get(nodes[i % 3]!.url, `/embed/${embed.id}`)).status).toBe(200);
    expect(Math.floor(Date.now() / 60_000)).toBe(minute);
    expect((await usageOf(key)).days.at(-1)!.byEndpoint.embed).toBe(1);

    // The day's allowance spent (as 720 view-minutes would leave it): every node answers the 429 page.
    const redis = new RedisClient(cluster.redis.url);
    try {
      const [dayKey] = (await redis.send("KEYS", [`surfcast:{${keyId}}:embed:${embed.id}:*`])) as string[];
      expect(dayKey).toBeDefined();
      await redis.send("HSET", [dayKey!, "minutes", "720", "last", "0"]);
    } finally {
      redis.close();
    }
    for (const node of nodes) {
      const res = await get(node.url, `/embed/${embed.id}`);
      expect({ node: node.name, status: res.status, type: res.headers.get("content-type") }).toEqual({ node: node.name, status: 429, type: "text/html; charset=utf-8" });
    }
  }, 120_000);

  test("a Redis that loses its data (FLUSHALL) does not give a key a fresh day: it restarts from PostgreSQL's count", async () => {
    const { id, key } = newKey("flush@example.com", ["--plan", "scale", "--daily-limit", "20", "--minute-limit", "1000"]);
    await everyNodeServes(SEARCH, key);
    for (let i = 0; i < 9; i++) expect((await get(nodes[i % 3]!.url, SEARCH, key)).status).toBe(200);
    const used = (await usageOf(key)).today;
    expect(used).toBeGreaterThanOrEqual(12);
    // Every node has written its counts to PostgreSQL (each flushes every half second).
    const stored = async () => Number((await cluster.db.sql`SELECT COALESCE(SUM(count), 0)::int AS n FROM usage_counters WHERE key_id = ${id} AND endpoint = 'spots.search'`)[0].n);
    await waitFor("the nodes' counts in PostgreSQL", async () => (await stored()) === used, 20_000, 100);
    const redis = new RedisClient(cluster.redis.url);
    try {
      await redis.send("FLUSHALL", []);
    } finally {
      redis.close();
    }
    const statuses: number[] = [];
    for (let i = 0; i < 24 - used; i++) statuses.push((await get(nodes[i % 3]!.url, SEARCH, key)).status);
    expect(statuses).toEqual([...Array(20 - used).fill(200), ...Array(4).fill(429)]);
    // The usage report takes the larger of Redis's count (flushed away) and PostgreSQL's, a moment behind.
    await waitFor("the usage report to count the 20", async () => (await usageOf(key)).today === 20, 20_000, 100);
  }, 120_000);

  test("GET /embed/{id} while Redis is away: the embed's own HTML 503 page with Retry-After on every node, no unhandled error", async () => {
    const { id: keyId } = newKey("away@example.com", ["--plan", "starter"]);
    const embed = JSON.parse(run(["embeds", "create", keyId, "--spots", "uluwatu", "--json"])) as { id: string };
    for (const node of nodes) await waitFor(`${node.name} to serve the embed`, async () => (await get(node.url, `/embed/${embed.id}`)).status === 200, 20_000, 100);
    const logged = nodes.map((n) => n.output().length);
    await cluster.redis.stop();
    try {
      for (const node of nodes) {
        const res = await get(node.url, `/embed/${embed.id}`);
        const body = await res.text();
        expect({ node: node.name, status: res.status, type: res.headers.get("content-type"), retryAfter: res.headers.get("retry-after") }).toEqual({ node: node.name, status: 503, type: "text/html; charset=utf-8", retryAfter: "5" });
        expect(body).toContain("<html");
      }
    } finally {
      await cluster.redis.start();
    }
    for (const [i, node] of nodes.entries()) expect(node.output().slice(logged[i])).not.toMatch(/RedisUnavailable|route failed|Internal server error/);
    for (const node of nodes) await waitFor(`${node.name} to serve the embed again`, async () => (await get(node.url, `/embed/${embed.id}`)).status === 200, 20_000, 100);
  }, 120_000);

  test("PostgreSQL that hangs: a request that needs it gets its 503 (where it waited for TCP before), /healthz?verbose=1 tells it; back, every node recovers", async () => {
    const { key } = newKey("hang@example.com");
    await everyNodeServes(SEARCH, key);
    cluster.postgres.hang();
    try {
      for (const node of nodes) {
        // No node has read Pipeline's forecast: answering needs the database. Without a deadline this waits for TCP.
        const forecast = await get(node.url, "/v1/spots/pipeline/forecast?days=1", key, 8_000);
        expect({ node: node.name, status: forecast.status, retryAfter: forecast.headers.get("retry-after") }).toEqual({ node: node.name, status: 503, retryAfter: "5" });
        expect(((await forecast.json()) as { error: { code: string } }).error.code).toBe("internal");
        const health = await get(node.url, "/healthz?verbose=1", undefined, 8_000);
        expect({ node: node.name, status: health.status }).toEqual({ node: node.name, status: 503 });
        // What a node holds in memory still answers.
        expect((await get(node.url, SEARCH, key, 8_000)).status).toBe(200);
      }
    } finally {
      cluster.postgres.restore();
    }
    for (const node of nodes) await waitFor(`${node.name} to answer /healthz?verbose=1 again`, async () => (await get(node.url, "/healthz?verbose=1")).status === 200, 30_000, 200);
  }, 120_000);

  test("the node list names where each node itself listens; a node started with other shared settings warns", async () => {
    await waitFor(
      "each node's listen address in the node list",
      () => {
        const status = JSON.parse(run(["status", "--json"])) as { cluster: { peers: { address: string | null }[] } };
        const addresses = status.cluster.peers.map((p) => p.address).sort();
        return JSON.stringify(addresses) === JSON.stringify(nodes.map((n) => n.url).sort());
      },
      20_000,
      250,
    );
    const odd = await startServer({ env: { ...cluster.env, SURFCAST_SMTP_URL: "smtp://mail.example.com:2525" }, args: ["--no-scheduler"] });
    try {
      expect(odd.output()).toMatch(/this server's SURFCAST_SMTP_URL differs from that of server \S+, which started before it/);
      expect(odd.output()).not.toContain("dataDir=");
      expect(odd.output()).toContain("database=postgres://");
    } finally {
      await odd.stop();
    }
  }, 60_000);
});
