/**
 * The refresh scope through the compiled binary: a new install in the default scope (`requested`) calls Open-Meteo
 * only for the spots someone asks for, fetches a never-asked spot on its first request without making the client
 * retry, pauses after a failed first fetch, shows its scope in `status`; `--no-scheduler` calls no upstream at all.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cli, cliAsync, createKey, installDir, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { waitFor } from "../support/wait";

let fake: FakeOpenMeteo;
beforeAll(async () => {
  fake = await startFakeOpenMeteo();
  fake.setFirstDay(new Date(Date.now() - 86_400_000).toISOString().slice(0, 10));
});
afterAll(() => fake.close());

const upstream = (extra: Record<string, string> = {}) => ({ SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_OPEN_METEO_RETRIES: "0", ...extra });

describe("refresh scope `requested` (the default)", () => {
  let server: RunningServer;
  let key: string;
  beforeAll(async () => {
    fake.reset();
    server = await startServer({ args: [], env: upstream({ SURFCAST_REFRESH_SCOPE: "" }) });
    key = createKey(server.dataDir);
  }, 60_000);
  afterAll(() => server.stop());

  const get = (path: string) => fetch(server.url + path, { headers: { "X-API-Key": key } });

  test("a new install spends no upstream call before someone asks", async () => {
    // The start-up check runs right after listening and says why it starts no refresh.
    await waitFor("the start-up check", () => server.output().includes("no spot was asked for in the last 7 days"));
    expect(fake.requests).toEqual([]);
  }, 30_000);

  test("a never-asked spot's forecast is fetched on its first request, which answers 200", async () => {
    const res = await get("/v1/spots/supertubos/forecast?days=1");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { hours: unknown[] };
    expect(body.hours.length).toBeGreaterThanOrEqual(1);
    expect(fake.requests.map((r) => r.endpoint).sort()).toEqual(["forecast", "marine"]);
    expect(fake.requests.every((r) => r.locations === 1)).toBe(true);
    // Asked again: served from the stored forecast, no upstream call.
    expect((await get("/v1/spots/supertubos/now")).status).toBe(200);
    expect(fake.requests).toHaveLength(2);
  }, 30_000);

  test("a spot whose first fetch failed answers no_forecast and is not fetched again at once", async () => {
    fake.inject("500", { next: 2 });
    const before = fake.requests.length;
    const first = await get("/v1/spots/pipeline/forecast");
    expect(first.status).toBe(404);
    expect(((await first.json()) as { error: { code: string } }).error.code).toBe("no_forecast");
    const asked = fake.requests.length - before;
    expect(asked).toBeGreaterThan(0);
    expect((await get("/v1/spots/pipeline/forecast")).status).toBe(404);
    expect(fake.requests.length - before).toBe(asked);
  }, 30_000);

  test("status names the scope and counts the spots asked for", async () => {
    // Request times are written within a second.
    const r = await waitFor("status to count both spots asked for", async () => {
      const status = await cliAsync(server.dataDir, ["status", "--json"]);
      return status.code === 0 && JSON.parse(status.stdout).refreshScope.requestedSpots === 2 && status;
    });
    expect(JSON.parse(r.stdout).refreshScope).toEqual({ scope: "requested", requestedSpots: 2 });
    // A first fetch on demand is not the last refresh: status keeps saying no refresh has run.
    expect(JSON.parse(r.stdout).lastRefresh).toBeNull();
    expect((await cliAsync(server.dataDir, ["status"])).stdout).toContain("Refresh scope: requested: the 2 spots asked for in the last 7 days");
  }, 30_000);
});

describe("other scopes and settings", () => {
  test("--no-scheduler calls no upstream, on demand neither", async () => {
    fake.reset();
    const server = await startServer({ env: upstream() });
    try {
      const key = createKey(server.dataDir);
      const res = await fetch(`${server.url}/v1/spots/supertubos/forecast`, { headers: { "X-API-Key": key } });
      expect(res.status).toBe(404);
      expect(fake.requests).toEqual([]);
    } finally {
      await server.stop();
    }
  }, 30_000);

  test("a bad scope is one line and exit 2, from the flag and from the environment", () => {
    const flag = cli(".test-tmp", ["serve", "--refresh-scope", "some"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr.trim()).toBe('surfcast: --refresh-scope must be all or requested, got "some"');
    const env = cli(".test-tmp", ["serve"], { SURFCAST_REFRESH_SCOPE: "everything" });
    expect(env.code).toBe(2);
    expect(env.stderr.trim()).toBe('surfcast: SURFCAST_REFRESH_SCOPE must be all or requested, got "everything"');
  });
});

describe("refresh scope `requested` and alerts", () => {
  test("a spot an enabled alert watches is refreshed at start-up although nobody asked for it", async () => {
    fake.reset();
    const dataDir = installDir("scope-alerts");
    createKey(dataDir);
    const keyId = (JSON.parse(cli(dataDir, ["keys", "list", "dev@example.com", "--json"]).stdout) as { id: string }[])[0]!.id;
    const made = cli(dataDir, ["alerts", "create", keyId, "--spot", "uluwatu", "--email", "surfer@example.com"]);
    expect(made.code).toBe(0);
    const server = await startServer({ dataDir, args: [], env: upstream({ SURFCAST_REFRESH_SCOPE: "" }) });
    try {
      // The start-up tide pass of the whole catalog comes first: on a loaded machine (the suite's other files) it
      // has taken over 50 s. What is tested is which spot is fetched, not how soon.
      const deadline = Date.now() + 110_000;
      while (!server.output().includes("forecast refresh done") && Date.now() < deadline) await Bun.sleep(100);
      const marine = fake.requests.filter((r) => r.endpoint === "marine");
      expect(marine).toHaveLength(1);
      // Uluwatu alone: -8.8, 115.1.
      expect(marine[0]!.latitudes.map(Math.round)).toEqual([-9]);
      expect(marine[0]!.longitudes.map(Math.round)).toEqual([115]);
    } finally {
      await server.stop();
    }
  }, 130_000);
});
