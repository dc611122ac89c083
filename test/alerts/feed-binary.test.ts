/**
 * An alert's calendar feed through the compiled binary, against the fake Open-Meteo: the feed ends with its key (a
 * revoked key, a disabled account: 404 on GET and HEAD), each fetch is counted as `calendar` in the key's usage
 * outside its quota, a feed fetched past its hourly allowance answers 429 with Retry-After, and a second fetch
 * answers the kept text without reading the forecast again — seen on the metrics port, which counts feeds built
 * (the forecast document read and parsed) apart from kept texts answered.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { BINARY } from "../support/env";
import { cli, installDir, metricsUrlOf, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { FEED_FETCHES_PER_HOUR } from "../../src/alerts/feeds";

const dir = installDir("feed-binary");
let fake: FakeOpenMeteo;
let env: Record<string, string>;
let server: RunningServer;
let metricsUrl: string;
let spot: string;

interface Owner {
  email: string;
  keyId: string;
  key: string;
  feed: string;
}

/** An account with a key and an e-mail alert on the spot; the alert's feed path. */
function owner(email: string): Owner {
  expect(cli(dir, ["accounts", "create", email, "--plan", "pro"], env).code).toBe(0);
  const made = cli(dir, ["keys", "create", email, "--name", "phone"], env);
  const keyId = /created key (key_[0-9a-f]{16})/.exec(made.stdout)![1]!;
  const alert = cli(dir, ["alerts", "create", keyId, "--spot", spot, "--email", email, "--min-wave", "0.1"], env);
  expect(alert.code).toBe(0);
  const feed = new URL(/calendar feed \(secret, shown once\): (\S+)/.exec(alert.stdout)![1]!).pathname;
  return { email, keyId, key: made.stdout.trim().split("\n").at(-1)!, feed };
}

let rider: Owner;
let leaver: Owner;
let disabled: Owner;
let poller: Owner;

beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  env = { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_PUBLIC_URL: "http://surf.test" };
  // The first command loads the catalog into the new install.
  expect(cli(dir, ["accounts", "list"], env).code).toBe(0);
  const db = new Database(join(dir, "surfcast.db"), { readonly: true });
  // The catalog spot nearest the fake's Supertubos series.
  spot = (db.query("SELECT id FROM spots ORDER BY (lat - 39.344) * (lat - 39.344) + (lng + 9.363) * (lng + 9.363) LIMIT 1").get() as { id: string }).id;
  db.close();
  rider = owner("rider@example.com");
  leaver = owner("leaver@example.com");
  disabled = owner("disabled@example.com");
  poller = owner("poller@example.com");
  const refresh = Bun.spawn([BINARY, "--data-dir", dir, "refresh", "--spots", spot], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  expect(await refresh.exited).toBe(0);
  server = await startServer({ dataDir: dir, env: { ...env, SURFCAST_METRICS: "on", SURFCAST_METRICS_PORT: "0" } });
  metricsUrl = await metricsUrlOf(server);
}, 120_000); // thirteen binary runs and a refresh: seconds each on a busy machine
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

async function feedFetches(): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/^surfcast_calendar_feed_fetches_total\{answer="(\w+)"\} (\d+)$/gm)) counts[m[1]!] = Number(m[2]);
  return counts;
}

async function until(what: string, done: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

const status = async (path: string, method = "GET") => (await fetch(server.url + path, { method })).status;

describe("calendar feed (compiled binary)", () => {
  test("a second fetch answers the kept text: the forecast is read and parsed once", async () => {
    const first = await fetch(server.url + rider.feed);
    expect(first.status).toBe(200);
    const text = await first.text();
    expect(text).toContain("BEGIN:VEVENT");
    expect(await feedFetches()).toEqual({ built: 1, kept: 0, spent: 0 });
    const second = await fetch(server.url + rider.feed);
    expect(await second.text()).toBe(text);
    const head = await fetch(server.url + rider.feed, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await feedFetches()).toEqual({ built: 1, kept: 2, spent: 0 });
  });

  test("each fetch is counted as `calendar` in the key's usage, outside its quota", async () => {
    const usage = (await (await fetch(`${server.url}/v1/usage`, { headers: { "X-API-Key": rider.key } })).json()) as { today: number; days: { total: number; byEndpoint: Record<string, number> }[] };
    const today = usage.days.at(-1)!;
    expect(today.byEndpoint.calendar).toBe(3);
    // /v1/usage itself is what the quota counted.
    expect(usage.today).toBe(today.total - 3);
  });

  test("a revoked key's feed answers 404, to HEAD as to GET", async () => {
    expect(await status(leaver.feed)).toBe(200);
    expect(cli(dir, ["keys", "revoke", leaver.keyId], env).code).toBe(0);
    await until("the revocation", async () => (await status(leaver.feed)) === 404);
    expect(await status(leaver.feed, "HEAD")).toBe(404);
  });

  test("a disabled account's feed answers 404, to HEAD as to GET", async () => {
    expect(await status(disabled.feed, "HEAD")).toBe(200);
    expect(cli(dir, ["accounts", "disable", disabled.email], env).code).toBe(0);
    await until("the account switched off", async () => (await status(disabled.feed)) === 404);
    expect(await status(disabled.feed, "HEAD")).toBe(404);
    // Enabled again, its feed is back.
    expect(cli(dir, ["accounts", "enable", disabled.email], env).code).toBe(0);
    await until("the account switched on", async () => (await status(disabled.feed)) === 200);
  });

  test(`past ${FEED_FETCHES_PER_HOUR} fetches in an hour a feed answers 429 with Retry-After; other feeds are unaffected`, async () => {
    let served = 0;
    let refused: Response | undefined;
    // The hour may turn during the run: the allowance starts afresh, so a few more are allowed for.
    for (let i = 0; i < 2 * FEED_FETCHES_PER_HOUR && !refused; i++) {
      const res = await fetch(server.url + poller.feed, { method: i % 2 === 0 ? "GET" : "HEAD" });
      await res.arrayBuffer();
      if (res.status === 200) served++;
      else refused = res;
    }
    expect(refused?.status).toBe(429);
    expect(served).toBeGreaterThanOrEqual(FEED_FETCHES_PER_HOUR);
    const retryAfter = Number(refused!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect((await feedFetches()).spent).toBeGreaterThanOrEqual(1);
    expect(await status(rider.feed)).toBe(200);
    // The refused fetch is not counted in the key's usage.
    const usage = (await (await fetch(`${server.url}/v1/usage`, { headers: { "X-API-Key": poller.key } })).json()) as { days: { byEndpoint: Record<string, number> }[] };
    expect(usage.days.at(-1)!.byEndpoint.calendar).toBe(served);
  }, 60_000);
});
