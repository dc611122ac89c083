/**
 * Several servers, one service, through the compiled binary: three `serve` nodes on one PostgreSQL database and one
 * Redis (test/support/cluster.ts), against the fake Open-Meteo. One service (keys, accounts, console sessions and
 * usage agree on every node within 2 s), exact limits across nodes, one start-up refresh and one run per scheduled
 * slot between them, and faults: kill -9 under load, a rolling restart behind a balancer, PostgreSQL and Redis going
 * away and coming back. One cluster serves the whole file; the tests run in order and each leaves it whole.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { hostname } from "node:os";
import { cliOk, describeWithCluster, importSpots, newClusterKey, startCluster, type Balancer, type Cluster, type ClusterNode } from "../support/cluster";
import { ConsoleClient, text } from "../support/console-client";
import { BINARY, tempDir } from "../support/env";
import { waitFor } from "../support/wait";

/** A small catalog, so a refresh is two upstream calls of three locations: the fake's own fixture points. */
const SPOTS = [
  { name: "Supertubos", lat: 39.3448, lng: -9.3645, country: "Portugal" },
  { name: "Uluwatu", lat: -8.8166, lng: 115.0862, country: "Indonesia" },
  { name: "Pipeline", lat: 21.6678, lng: -158.0505, country: "USA, Hawaii" },
];
const SEARCH = "/v1/spots?q=super&limit=1";
const ERROR_CODES = ["invalid_key", "account_disabled", "not_found", "no_forecast", "rate_limited", "invalid_request", "internal"];
const PROPAGATION_MS = 2000;

/**
 * The scheduled refresh's second of every minute, set so that the first slot comes well after the start-up refresh.
 * Every minute rather than once: however late a loaded machine gets to the slot's test, a slot comes after it.
 */
let slotSecond: number;

let cluster: Cluster;
let nodes: ClusterNode[];
/** Keys made before the tests, each on an account of its own with the limits its test needs. */
const keys: Record<"quota" | "burst" | "load", string> = { quota: "", burst: "", load: "" };

const run = (args: string[]) => cliOk(cluster, args);
const newKey = (email: string, accountFlags?: string[]) => newClusterKey(cluster, email, accountFlags);

const get = (base: string, path: string, key?: string) =>
  fetch(base + path, { headers: key === undefined ? {} : { "X-API-Key": key }, signal: AbortSignal.timeout(15_000) });

/** The body of an error answer in the spec's shape, or what was wrong with it. */
async function errorOf(res: Response): Promise<{ code: string } | string> {
  const type = res.headers.get("content-type") ?? "";
  const raw = await res.text();
  if (!type.includes("application/json")) return `${res.status} ${type}: ${raw.slice(0, 120)}`;
  const body = JSON.parse(raw) as { error?: { code?: unknown; message?: unknown } };
  const shaped = Object.keys(body).length === 1 && typeof body.error?.code === "string" && typeof body.error.message === "string" && ERROR_CODES.includes(body.error.code);
  return shaped ? { code: body.error!.code as string } : `${res.status} not the Error shape: ${raw.slice(0, 120)}`;
}

/**
 * Asks every node `path` with `key` until each answers as `wanted` says; answers the milliseconds each took from now
 * (Infinity for a node that did not within `withinMs`).
 */
async function untilEveryNode(path: string, key: string, wanted: (res: Response) => Promise<boolean>, withinMs = PROPAGATION_MS): Promise<Record<string, number>> {
  const started = Date.now();
  const took: Record<string, number> = {};
  await Promise.all(
    nodes.map(async (node) => {
      took[node.name] = Infinity;
      while (Date.now() - started <= withinMs) {
        const res = await get(node.url, path, key).catch(() => null);
        if (res && (await wanted(res))) {
          took[node.name] = Date.now() - started;
          return;
        }
        await Bun.sleep(50);
      }
    }),
  );
  return took;
}

/** The nodes of `took` slower than `ms` (Infinity: never), for a failure message that names them. */
const slowerThan = (took: Record<string, number>, ms: number) => Object.entries(took).filter(([, t]) => t > ms).map(([name, t]) => `${name}: ${t} ms`);
const status = (code: number) => async (res: Response) => (await res.arrayBuffer(), res.status === code);
const refusedWith = (code: number, errorCode: string) => async (res: Response) => res.status === code && ((await errorOf(res)) as { code?: string }).code === errorCode;

/** Waits until the fake upstream has had requests and then none for `quietMs`. */
async function upstreamSettled(quietMs = 2000, maxMs = 20_000): Promise<void> {
  const until = Date.now() + maxMs;
  let seen = -1;
  let since = Date.now();
  while (Date.now() < until) {
    const n = cluster.fake.requests.length;
    if (n !== seen) [seen, since] = [n, Date.now()];
    else if (n > 0 && Date.now() - since >= quietMs) return;
    await Bun.sleep(100);
  }
}

/** Searches through `balancer` with `key` from `clients` loops until `stop` resolves; answers every status seen. */
/** The answers a balancer passed on, from every node. */
const servedIn = (balancer: Balancer) => [...balancer.served.values()].reduce((sum, n) => sum + n, 0);

async function loadThrough(balancer: Balancer, key: string, clients: number, stop: Promise<unknown>): Promise<number[]> {
  let running = true;
  const done = () => (running = false);
  stop.then(done, done);
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (running) {
        const res = await get(balancer.url, SEARCH, key).catch(() => null);
        statuses.push(res?.status ?? 0);
        await res?.arrayBuffer();
      }
    }),
  );
  return statuses;
}

const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});

describeWithCluster("several servers, one service (compiled binary, PostgreSQL, Redis)", () => {
  beforeAll(async () => {
    // At most :40, so that a node firing a few seconds late is still within the slot's minute (else :05 of the minute after).
    const second = new Date(Date.now() + 45_000).getUTCSeconds();
    slotSecond = second <= 40 ? second : 5;
    cluster = await startCluster({
      nodes: 3,
      env: { SURFCAST_REFRESH_SCOPE: "all", SURFCAST_REFRESH_CRON: `${slotSecond} * * * * *` },
      prepare: importSpots(SPOTS),
    });
    nodes = cluster.nodes;
    keys.quota = newKey("quota@example.com", ["--plan", "scale", "--daily-limit", "300", "--minute-limit", "1000"]).key;
    keys.burst = newKey("burst@example.com", ["--plan", "scale", "--daily-limit", "100000", "--minute-limit", "50"]).key;
    keys.load = newKey("load@example.com", ["--plan", "scale", "--daily-limit", "100000000", "--minute-limit", "100000"]).key;
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  // ── one refresh, not N ─────────────────────────────────────────────────────────────────────────────

  test("three nodes starting together run one start-up refresh between them, and every node serves its forecasts", async () => {
    // The refresh asks upstream first and writes the documents after: they are served once it is done.
    expect(slowerThan(await untilEveryNode("/v1/spots/supertubos/forecast?days=1", keys.load, status(200), 20_000), 20_000)).toEqual([]);
    await upstreamSettled();
    // One start-up refresh between the three nodes. On a loaded machine the start can outlast the wait before the
    // first scheduled slot, whose run (one as well, next test) then asks upstream too: each run that started asks once.
    const started = (trigger: string) => nodes.reduce((n, node) => n + node.output().split("\n").filter((line) => line.includes(`forecast refresh starting trigger="${trigger}`)).length, 0);
    expect(started("startup")).toBe(1);
    const runs = started("");
    // Each run one call to each API for the three spots; three start-up refreshes would ask thrice.
    expect({ marine: cluster.fake.locations("marine"), forecast: cluster.fake.locations("forecast"), calls: cluster.fake.requests.length }).toEqual({ marine: 3 * runs, forecast: 3 * runs, calls: 2 * runs });
  }, 30_000);

  test("a scheduled slot runs once between the three nodes", async () => {
    await upstreamSettled();
    const calls = () => ({ marine: cluster.fake.locations("marine"), forecast: cluster.fake.locations("forecast"), calls: cluster.fake.requests.length });
    const before = calls();
    // The next slot at least two seconds away (a slot that close may already be under way).
    const now = Date.now();
    let slot = Math.floor(now / 60_000) * 60_000 + slotSecond * 1000;
    while (slot < now + 2000) slot += 60_000;
    await Bun.sleep(slot - now);
    // The slot's refresh has begun (however late a busy machine starts it), then every node has had its say.
    await waitFor("the slot's refresh", () => cluster.fake.requests.length > before.calls, 30_000);
    await upstreamSettled();
    // One refresh of three spots: one call to each API for the three of them, not one per node.
    const after = calls();
    expect({ marine: after.marine - before.marine, forecast: after.forecast - before.forecast, calls: after.calls - before.calls }).toEqual({ marine: 3, forecast: 3, calls: 2 });
  }, 120_000);

  test("/healthz?verbose=1 counts the servers and names none; surfcast status (the metrics port's /status) lists every one, fresh", async () => {
    const ids = nodes.map((n) => `${hostname()}-${n.process()!.proc.pid}`);
    for (const node of nodes) {
      const res = await get(node.url, "/healthz?verbose=1");
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ status: "ok", nodes: 3 });
      for (const named of [hostname(), ...ids]) expect(text).not.toContain(named);
    }
    const status = JSON.parse(run(["status", "--json"])) as { cluster: { peers: { id: string; freshness: string; version: string }[] } };
    expect(status.cluster.peers.map((p) => [p.id, p.freshness]).sort()).toEqual(ids.map((id) => [id, "fresh"]).sort());
  }, 30_000);

  test("serve on PostgreSQL without Redis refuses to start, with one line", async () => {
    const proc = Bun.spawn([BINARY, "--data-dir", tempDir("cluster-no-redis"), "serve", "--port", "0"], {
      env: { ...process.env, ...cluster.env, SURFCAST_REDIS_URL: "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const giveUp = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    clearTimeout(giveUp);
    expect(proc.signalCode).toBeNull();
    expect(code).not.toBe(0);
    expect(stderr.trim().split("\n")).toEqual([expect.stringContaining("Redis")]);
  }, 30_000);

  // ── one service ────────────────────────────────────────────────────────────────────────────────────

  test("a key created by the CLI works on every node within 2 s, and a revoked one answers 401 invalid_key on every node within 2 s", async () => {
    const { id, key } = newKey("one@example.com");
    const working = await untilEveryNode(SEARCH, key, status(200));
    expect(slowerThan(working, PROPAGATION_MS)).toEqual([]);

    run(["keys", "revoke", id]);
    const revoked = await untilEveryNode(SEARCH, key, refusedWith(401, "invalid_key"));
    expect(slowerThan(revoked, PROPAGATION_MS)).toEqual([]);
    // And it stays refused.
    for (const node of nodes) expect((await get(node.url, SEARCH, key)).status).toBe(401);
  }, 30_000);

  test("an account disabled by the CLI is refused (401 account_disabled) on every node within 2 s", async () => {
    const { key } = newKey("shop@example.com");
    expect(slowerThan(await untilEveryNode(SEARCH, key, status(200)), PROPAGATION_MS)).toEqual([]);

    run(["accounts", "disable", "shop@example.com"]);
    const disabled = await untilEveryNode(SEARCH, key, refusedWith(401, "account_disabled"));
    expect(slowerThan(disabled, PROPAGATION_MS)).toEqual([]);
  }, 30_000);

  test("a console session made by signing in on one node is valid on the others", async () => {
    const [a, ...others] = nodes as [ClusterNode, ...ClusterNode[]];
    const password = "a long enough console password";
    const link = new URL((JSON.parse(run(["accounts", "invite", "owner@example.com", "--plan", "starter", "--json"])) as { url: string }).url).pathname;
    const invited = new ConsoleClient(a.url);
    await invited.get(link);
    expect((await invited.post(link, { password, confirm: password })).status).toBe(303);

    const browser = new ConsoleClient(a.url);
    await browser.get("/console/sign-in");
    const signedIn = await browser.post("/console/sign-in", { email: "owner@example.com", password });
    expect({ status: signedIn.status, location: signedIn.location }).toEqual({ status: 303, location: "/console/overview" });
    for (const node of others) {
      const page = await new ConsoleClient(node.url).get("/console/overview", { Cookie: browser.cookieHeader() });
      expect({ node: node.name, status: page.status }).toEqual({ node: node.name, status: 200 });
      expect(text(page.body)).toContain("owner@example.com");
      // The same request without the session is sent to sign in: the page above was the session's.
      expect((await new ConsoleClient(node.url).get("/console/overview")).status).toBe(303);
    }
  }, 30_000);

  test("/v1/usage answers the same on every node", async () => {
    const { key } = newKey("usage@example.com");
    await untilEveryNode("/v1/usage", key, status(200));
    const spread: [ClusterNode, string, number][] = [
      [nodes[0]!, SEARCH, 4],
      [nodes[1]!, SEARCH, 3],
      [nodes[2]!, SEARCH, 2],
      ...nodes.map((n): [ClusterNode, string, number] => [n, "/v1/spots/supertubos", 1]),
    ];
    for (const [node, path, times] of spread) for (let i = 0; i < times; i++) expect((await get(node.url, path, key)).status).toBe(200);

    let bodies: string[] = [];
    for (const until = Date.now() + 3000; Date.now() < until; await Bun.sleep(100)) {
      bodies = await Promise.all(nodes.map(async (n) => await (await get(n.url, "/v1/usage", key)).text()));
      if (new Set(bodies).size === 1 && (JSON.parse(bodies[0]!) as { today: number }).today === 12) break;
    }
    expect(new Set(bodies).size).toBe(1);
    const usage = JSON.parse(bodies[0]!) as { today: number; days: { date: string; total: number; byEndpoint: Record<string, number> }[] };
    expect(usage.today).toBe(12);
    const today = usage.days.at(-1)!;
    expect({ date: today.date, total: today.total }).toEqual({ date: new Date().toISOString().slice(0, 10), total: 12 });
    expect(Object.fromEntries(Object.entries(today.byEndpoint).filter(([, n]) => n > 0))).toEqual({ "spots.search": 9, "spots.get": 3 });
  }, 30_000);

  // ── exact limits across nodes ──────────────────────────────────────────────────────────────────────

  test("a daily quota of 300: 450 requests over three nodes, 30 at a time, get exactly 300 answers; the rate-limit headers are exact", async () => {
    type Answer = { status: number; code?: string; limit: string | null; remaining: string | null; reset: string | null; retryAfter: string | null };
    const answers: Answer[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 30 }, async () => {
        for (let i = next++; i < 450; i = next++) {
          const res = await get(nodes[i % nodes.length]!.url, SEARCH, keys.quota);
          const h = (name: string) => res.headers.get(name);
          const answer: Answer = { status: res.status, limit: h("X-RateLimit-Limit"), remaining: h("X-RateLimit-Remaining"), reset: h("X-RateLimit-Reset"), retryAfter: h("Retry-After") };
          if (res.status === 200) await res.arrayBuffer();
          else answer.code = (await errorOf(res) as { code?: string }).code;
          answers.push(answer);
        }
      }),
    );
    expect(tally(answers.map((a) => a.status))).toEqual({ 200: 300, 429: 150 });
    expect(new Set(answers.map((a) => a.limit))).toEqual(new Set(["300"]));
    // Each answer counted one request: the remaining counts of the 300 answers are 299 … 0, each once.
    const remaining = answers.filter((a) => a.status === 200).map((a) => Number(a.remaining));
    expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    const refusals = answers.filter((a) => a.status === 429);
    expect(new Set(refusals.map((a) => `${a.code} ${a.remaining}`))).toEqual(new Set(["rate_limited 0"]));
    expect(refusals.every((a) => Number(a.retryAfter) >= 1)).toBe(true);
    const resets = new Set(answers.map((a) => a.reset));
    expect(resets.size).toBe(1);
    const now = new Date();
    expect(Date.parse([...resets][0]!)).toBe(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    // Every node reports the same 300.
    for (const node of nodes) expect(((await (await get(node.url, "/v1/usage", keys.quota)).json()) as { today: number }).today).toBe(300);
  }, 30_000);

  test("a burst of 50 a minute: 120 simultaneous requests over three nodes let 50 through, plus at most the refill of the seconds they took", async () => {
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 120 }, async (_, i) => {
        const res = await get(nodes[i % nodes.length]!.url, SEARCH, keys.burst);
        if (res.status === 200) return { status: 200 };
        return { status: res.status, code: (await errorOf(res) as { code?: string }).code, retryAfter: Number(res.headers.get("Retry-After")) };
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const admitted = answers.filter((a) => a.status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(50);
    expect(admitted).toBeLessThanOrEqual(50 + Math.ceil((seconds * 50) / 60));
    const refusals = answers.filter((a) => a.status !== 200);
    expect(refusals).toHaveLength(120 - admitted);
    for (const refusal of refusals) expect(refusal).toEqual({ status: 429, code: "rate_limited", retryAfter: expect.any(Number) });
    expect(refusals.every((r) => (r.retryAfter ?? 0) >= 1)).toBe(true);
  }, 30_000);

  // ── faults ─────────────────────────────────────────────────────────────────────────────────────────

  test("kill -9 of one node under load through a balancer: no failed request; the restarted node rejoins and serves", async () => {
    const balancer = cluster.balancer();
    const victim = nodes[1]!;
    let servedAfterRestart = 0;
    const scenario = (async () => {
      await waitFor("the load to flow through the balancer", () => servedIn(balancer) >= 50);
      await victim.kill();
      await waitFor("the load to meet the dead node", () => balancer.retries > 0);
      await victim.start();
      const before = balancer.served.get(victim.name) ?? 0;
      for (const until = Date.now() + 10_000; Date.now() < until && servedAfterRestart < 20; await Bun.sleep(100)) {
        servedAfterRestart = (balancer.served.get(victim.name) ?? 0) - before;
      }
    })();
    const statuses = await loadThrough(balancer, keys.load, 6, scenario);
    await scenario;
    expect(tally(statuses)).toEqual({ 200: statuses.length });
    expect(balancer.failed).toBe(0);
    // The load did meet the dead node: the balancer had to send requests on to another.
    expect(balancer.retries).toBeGreaterThan(0);
    expect(servedAfterRestart).toBeGreaterThanOrEqual(20);
    expect((await get(victim.url, SEARCH, keys.load)).status).toBe(200);
  }, 40_000);

  test("a rolling restart behind the balancer (SIGTERM one node, start it again, the next) drops no request", async () => {
    const balancer = cluster.balancer();
    const exits: number[] = [];
    const rolling = (async () => {
      await waitFor("the load to flow through the balancer", () => servedIn(balancer) >= 50);
      for (const node of nodes) {
        exits.push(await node.stop());
        const before = balancer.served.get(node.name) ?? 0;
        await node.start();
        await waitFor(`${node.name} to serve the load again`, () => (balancer.served.get(node.name) ?? 0) >= before + 20);
      }
    })();
    const statuses = await loadThrough(balancer, keys.load, 6, rolling);
    await rolling;
    expect(exits).toEqual([0, 0, 0]);
    expect(tally(statuses)).toEqual({ 200: statuses.length });
    expect(balancer.failed).toBe(0);
    expect(balancer.retries).toBeGreaterThan(0);
    for (const node of nodes) expect(balancer.served.get(node.name) ?? 0).toBeGreaterThan(0);
  }, 60_000);

  test("PostgreSQL cut away: 503 JSON where the database is needed, never an answer without a key or uncounted; back, every node recovers by itself", async () => {
    const { key } = newKey("outage@example.com");
    expect(slowerThan(await untilEveryNode(SEARCH, key, status(200)), PROPAGATION_MS)).toEqual([]);
    const usageToday = async () => ((await (await get(nodes[0]!.url, "/v1/usage", key)).json()) as { today: number }).today;
    /** Answers given under the key: each must have been counted. */
    let served = await usageToday();

    cluster.postgres.cut();
    const problems: string[] = [];
    const forecastRefusals = new Set<string>();
    try {
      for (const until = Date.now() + 3000; Date.now() < until; await Bun.sleep(100)) {
        await Promise.all(
          nodes.map(async (node) => {
            const keyless = await get(node.url, SEARCH);
            if (keyless.status === 200) problems.push(`${node.name}: 200 without a key`);
            await keyless.arrayBuffer();
            const search = await get(node.url, SEARCH, key);
            const searchError = search.status === 200 ? (await search.arrayBuffer(), null) : await errorOf(search);
            if (search.status === 200) served++;
            else if (search.status !== 503 || typeof searchError === "string") problems.push(`${node.name}: search ${search.status} ${JSON.stringify(searchError)}`);
            // No node has read this spot's forecast since the last refresh: answering it needs the database.
            const forecast = await get(node.url, "/v1/spots/uluwatu/forecast?days=1", key);
            const forecastError = await errorOf(forecast);
            if (forecast.status === 503 && typeof forecastError !== "string") forecastRefusals.add(node.name);
            else problems.push(`${node.name}: forecast ${forecast.status} ${JSON.stringify(forecastError)}`);
          }),
        );
      }
    } finally {
      cluster.postgres.restore();
    }
    expect(problems).toEqual([]);
    expect([...forecastRefusals].sort()).toEqual(nodes.map((n) => n.name));

    const recovered = await untilEveryNode("/v1/spots/uluwatu/forecast?days=1", key, status(200), 20_000);
    expect(slowerThan(recovered, 20_000)).toEqual([]);
    served += nodes.length;
    // Every answer given during the outage was counted (a refusal may count too, as any error under a key does).
    let today = 0;
    for (const until = Date.now() + 3000; Date.now() < until && today < served; await Bun.sleep(100)) today = await usageToday();
    expect(today).toBeGreaterThanOrEqual(served);
  }, 60_000);

  test("Redis stopped: 503 JSON on keyed routes, never a 200 without counting; started again, every node recovers by itself", async () => {
    for (const node of nodes) expect((await get(node.url, SEARCH, keys.load)).status).toBe(200);
    await cluster.redis.stop();
    const answers: string[] = [];
    try {
      for (const until = Date.now() + 2000; Date.now() < until; await Bun.sleep(100)) {
        await Promise.all(
          nodes.map(async (node) => {
            const keyed = await get(node.url, SEARCH, keys.load);
            const error = await errorOf(keyed);
            answers.push(keyed.status === 503 && typeof error !== "string" ? `503 ${error.code}` : `${node.name}: ${keyed.status} ${JSON.stringify(error)}`);
            const keyless = await get(node.url, SEARCH);
            answers.push(keyless.status === 401 ? "401 without a key" : `${node.name}: ${keyless.status} without a key`);
            await keyless.arrayBuffer();
          }),
        );
      }
    } finally {
      await cluster.redis.start();
    }
    expect(new Set(answers)).toEqual(new Set(["503 internal", "401 without a key"]));
    expect(slowerThan(await untilEveryNode(SEARCH, keys.load, status(200), 15_000), 15_000)).toEqual([]);
  }, 60_000);
});
