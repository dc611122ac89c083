/**
 * `surfcast refresh` through the compiled binary against the fake Open-Meteo: unknown ids, progress and
 * summary, exit status, previous documents kept on failure, a kill -9 mid-refresh leaving only whole
 * batches, and the server starting without network.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { BINARY } from "../support/env";
import { installDir, startServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { documentText } from "../../src/db/document-codec";
import { waitFor } from "../support/wait";

let fake: FakeOpenMeteo;
beforeAll(async () => {
  fake = await startFakeOpenMeteo();
});
afterAll(async () => {
  await fake.close();
});

/** Async, so the in-process fake keeps answering while the binary runs. */
async function refresh(dataDir: string, args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([BINARY, "--data-dir", dataDir, "refresh", ...args], {
    env: { ...process.env, SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

function database(dataDir: string): Database {
  return new Database(join(dataDir, "surfcast.db"), { readonly: true });
}

/** Catalog spot ids closest to the given points (the binary seeded its catalog on first open). */
function spotsNear(dataDir: string, points: [number, number][]): string[] {
  const db = database(dataDir);
  const ids = points.map(([lat, lng]) => (db.query("SELECT id FROM spots ORDER BY (lat - ?) * (lat - ?) + (lng - ?) * (lng - ?) LIMIT 1").get(lat, lat, lng, lng) as { id: string }).id);
  db.close();
  return ids;
}

function documents(dataDir: string): Map<string, { updatedAt: number; body: string }> {
  const db = database(dataDir);
  const rows = db.query("SELECT spot_id AS id, updated_at AS updatedAt, body FROM forecast_documents").all() as { id: string; updatedAt: number; body: Uint8Array }[];
  db.close();
  return new Map(rows.map((r) => [r.id, { updatedAt: r.updatedAt, body: documentText(r.body) }]));
}

/** The install every test of this file refreshes (the full refresh below also fills its tide window). */
const dir = installDir("refresh-cli");

describe("surfcast refresh (compiled binary)", () => {

  test("unknown spot ids → a clear error and a non-zero exit", async () => {
    const r = await refresh(dir, ["--spots", "no-such-spot,also-missing"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("unknown spot ids: no-such-spot, also-missing");
    expect(r.stderr).not.toContain("    at ");
    expect(fake.requests).toHaveLength(0);
  });

  test("refreshes the given spots: progress lines, summary with requests and weight, exit 0", async () => {
    fake.reset();
    const ids = spotsNear(dir, [
      [39.344, -9.363],
      [-8.815, 115.0867],
      [21.665, -158.053],
    ]);
    const r = await refresh(dir, ["--spots", ids.join(",")]);
    expect(r.stderr).toMatch(/refresh: batch 1\/1 ok: 3\/3 spots refreshed \(so far 3\/3\)/);
    expect(r.stdout).toContain("Spots:     3 ok, 0 failed (of 3)");
    // Marine: 14 variables × the three default wave models = 4.2 per location; forecast: 1.0.
    expect(r.stdout).toContain("Upstream:  2 requests, weight 15.6 (3 marine + 3 forecast locations)");
    expect(fake.requests.find((q) => q.endpoint === "marine")!.models).toEqual(["meteofrance_wave", "ecmwf_wam025", "ncep_gfswave025"]);
    expect(r.code).toBe(0);
    expect(fake.requests.map((q) => q.endpoint).sort()).toEqual(["forecast", "marine"]);
    const docs = documents(dir);
    expect([...docs.keys()].sort()).toEqual([...ids].sort());
    for (const d of docs.values()) expect(JSON.parse(d.body).hours.length).toBeGreaterThan(160);
  });

  test("a failing upstream: exit 3 (nothing refreshed), the error in the summary, previous documents kept", async () => {
    const ids = [...documents(dir).keys()];
    const before = documents(dir);
    fake.reset();
    fake.inject("500", { endpoint: "marine" });
    const r = await refresh(dir, ["--spots", ids.join(",")], { SURFCAST_OPEN_METEO_RETRIES: "1" });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("refresh: batch 1/1 FAILED: 0/3 spots refreshed (so far 0/3)");
    expect(r.stdout).toContain("Outcome:   failed");
    expect(r.stdout).toContain("Spots:     0 ok, 3 failed");
    expect(r.stdout).toContain("marine: HTTP 500");
    expect(documents(dir)).toEqual(before);
  });

  test("an upstream failing every call: a full refresh gives up after three failed batches, exit 3, one clear log line, documents kept", async () => {
    const before = documents(dir);
    fake.reset();
    fake.inject("500", { endpoint: "marine" });
    fake.inject("503", { endpoint: "forecast" });
    const r = await refresh(dir, []); // default retries and backoff: the real timings
    expect(r.code).toBe(3);
    expect(fake.requests.length).toBe(3 * 2 * 4); // three batches, two APIs, 1 + 3 retries each
    const lines = r.stderr.split("\n").filter((l) => / (ERROR|WARN) /.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("ERROR forecast refresh failed: no spot refreshed, every previous forecast kept");
    expect(lines[0]).toContain("upstream down: 3 batches failed in a row");
    expect(r.stdout).toContain("Outcome:   failed");
    expect(documents(dir)).toEqual(before);
    // Every spot's tide station was chosen in one pass before the first batch (this catalog had few chosen), from
    // the choices the build made for the default catalog: the tide database was never loaded.
    const windowReady = r.stderr.indexOf("tide window ready");
    expect(windowReady).toBeGreaterThan(-1);
    expect(windowReady).toBeLessThan(r.stderr.indexOf("refresh: batch 1/"));
    expect(r.stderr).not.toContain("tide database loaded");
  }, 240_000); // the real retry delays, after a tide pass over the catalog: minutes on a busy machine

  test("a partial refresh: exit 1, a WARN line, the true counts", async () => {
    const ids = [...documents(dir).keys()];
    fake.reset();
    fake.inject("all-null", { endpoint: "marine", requests: [3, 4] }); // the second batch's marine call
    const r = await refresh(dir, ["--spots", ids.join(",")], { SURFCAST_OPEN_METEO_BATCH_SIZE: "1", SURFCAST_OPEN_METEO_RETRIES: "0" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("refresh: batch 2/3 FAILED: 0/1 spots refreshed (so far 1/3)");
    expect(r.stderr).toContain("refresh: batch 3/3 ok: 1/1 spots refreshed (so far 2/3)");
    expect(r.stderr).toContain("WARN  forecast refresh partial: 2 of 3 spots refreshed");
    expect(r.stdout).toContain("Outcome:   partial");
    expect(r.stdout).toContain("Spots:     2 ok, 1 failed (of 3)");
  });

  test("kill -9 in the middle of a refresh: every stored document is a whole, fresh or previous one", async () => {
    const killDir = installDir("refresh-kill");
    await refresh(killDir, ["--spots", "seed-the-catalog-first"]);
    const ids = spotsNear(killDir, [
      [39.344, -9.363],
      [-8.815, 115.0867],
      [21.665, -158.053],
    ]);
    // One spot per batch; from the third request on (the second batch, asked for while the first is written), answers
    // take long enough to kill the process mid-way.
    fake.reset();
    fake.inject({ delayMs: 5000 }, { requests: [3, 4, 5, 6] });
    const proc = Bun.spawn([BINARY, "--data-dir", killDir, "refresh", "--spots", ids.join(",")], {
      env: { ...process.env, SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_OPEN_METEO_BATCH_SIZE: "1" },
      stdout: "ignore",
      stderr: "ignore",
    });
    const deadline = Date.now() + 10_000;
    while ((fake.requests.length < 3 || documents(killDir).size === 0) && Date.now() < deadline) await Bun.sleep(20);
    proc.kill("SIGKILL");
    await proc.exited;
    const docs = documents(killDir);
    expect(docs.size).toBe(1); // the first batch committed, the second never did
    for (const d of docs.values()) {
      const parsed = JSON.parse(d.body);
      expect(parsed.hours.length).toBeGreaterThan(160);
      expect(parsed.daily).toHaveLength(7);
    }
  });
});

describe("server without network", () => {
  test("starts, serves, and logs one error for the failed startup refresh", async () => {
    // On the install above, whose tide window the full refresh filled: the start-up tide pass finds nothing to do
    // (on a new data dir it predicts the whole catalog first, most of a minute on a loaded machine).
    const server = await startServer({ dataDir: dir, args: [], env: { SURFCAST_OPEN_METEO_RETRIES: "0", SURFCAST_REFRESH_SCOPE: "all" } });
    try {
      const health = await fetch(server.url + "/healthz");
      expect(health.status).toBe(200);
      await waitFor("the start-up refresh to give up", () => server.output().includes("forecast refresh incomplete"), 150_000, 50);
      const errors = server.output().split("\n").filter((l) => l.includes(" ERROR "));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain("cannot connect");
      expect((await fetch(server.url + "/healthz")).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 180_000);
});
