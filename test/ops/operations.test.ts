/**
 * Operations through the compiled binary: `surfcast status` and `/healthz?verbose=1`, and `surfcast backup`
 * taken under request load and a refresh, then a server on the copy finding the same accounts, keys, usage and
 * forecasts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { BINARY, tempDir } from "../support/env";
import { cli, createKey, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";

let fake: FakeOpenMeteo;
let server: RunningServer;
let key: string;
let upstream: Record<string, string>;
const SPOTS = ["supertubos", "pipeline", "uluwatu"];

beforeAll(async () => {
  fake = await startFakeOpenMeteo();
  upstream = { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url };
  const dir = tempDir("ops");
  key = createKey(dir, "ops@example.com", "scale", ["--daily-limit", "100000000", "--minute-limit", "100000"]);
  expect((await run(["refresh", "--spots", SPOTS.join(",")], dir)).code).toBe(0); // async: the fake runs in this process
  server = await startServer({ dataDir: dir, env: upstream });
}, 30_000);
afterAll(async () => {
  await server?.stop();
  await fake.close();
});

async function run(args: string[], dataDir = server.dataDir) {
  const proc = Bun.spawn([BINARY, "--data-dir", dataDir, ...args], { env: { ...process.env, ...upstream }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

describe("status", () => {
  test("surfcast status and /healthz?verbose=1 tell forecast ages, the last refresh, the tide window, the database size", async () => {
    const r = await run(["status", "--json"]);
    expect(r.code).toBe(0);
    const status = JSON.parse(r.stdout);
    expect(status.forecasts).toMatchObject({ withForecast: 3 });
    expect(status.forecasts.oldestAgeHours).toBeLessThan(1);
    expect(status.lastRefresh).toMatchObject({ outcome: "complete", spots: 3, ok: 3, failed: 0 });
    expect(status.databaseBytes).toBeGreaterThan(100_000);
    expect(Object.keys(status)).toEqual(["status", "time", "forecasts", "lastRefresh", "nextRefresh", "refreshRetryAt", "tideWindowEnd", "databaseBytes", "demo", "refreshScope"]);
    const text = await run(["status"]);
    expect(text.stdout).toContain("Last refresh:  complete at");

    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: "ok" });
    const verbose = (await (await fetch(`${server.url}/healthz?verbose=1`)).json()) as typeof status;
    expect(verbose.forecasts).toEqual(status.forecasts);
    expect(verbose.lastRefresh).toEqual(status.lastRefresh);
    expect(verbose.nextRefresh).toBeNull(); // this server runs without the scheduler
  });
});

describe("backup", () => {
  test("a backup under load and a refresh restores the same accounts, keys, usage and forecasts", async () => {
    let loading = true;
    let served = 0;
    const load = (async () => {
      for (let i = 0; loading && i < 50_000; i++) {
        const r = await fetch(`${server.url}/v1/spots/${SPOTS[i % 3]}/forecast?days=1`, { headers: { "X-API-Key": key } });
        await r.arrayBuffer();
        if (r.status === 200) served++;
      }
    })();
    await Bun.sleep(700); // some usage flushed before the copy
    const file = join(tempDir("backup"), "surfcast-backup.db");
    const [refresh, backup] = await Promise.all([run(["refresh", "--spots", SPOTS.join(",")]), run(["backup", file])]);
    loading = false;
    await load;
    expect(served).toBeGreaterThan(0);
    expect(refresh.code).toBe(0);
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(/^backup written to .*surfcast-backup\.db: [\d.]+ MiB \(\d+ bytes\), integrity ok/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(cli(server.dataDir, ["backup", file]).stderr).toContain("already exists");

    const copy = new Database(file, { readonly: true });
    const usage = (copy.query("SELECT SUM(count) AS n FROM usage_counters").get() as { n: number }).n;
    const documents = (copy.query("SELECT COUNT(*) AS n FROM forecast_documents").get() as { n: number }).n;
    copy.close();
    expect(usage).toBeGreaterThan(0);
    expect(documents).toBe(3);

    const restored = tempDir("restored");
    copyFileSync(file, join(restored, "surfcast.db"));
    expect(cli(restored, ["accounts", "list", "--json"]).stdout).toBe(cli(server.dataDir, ["accounts", "list", "--json"]).stdout);
    expect(cli(restored, ["keys", "list", "ops@example.com", "--json"]).stdout).toBe(cli(server.dataDir, ["keys", "list", "ops@example.com", "--json"]).stdout);
    const second = await startServer({ dataDir: restored });
    try {
      const report = (await (await fetch(`${second.url}/v1/usage`, { headers: { "X-API-Key": key } })).json()) as { today: number };
      expect(report.today).toBe(usage); // the copy's counts (the /v1/usage call itself is counted after it answers)
      for (const id of SPOTS) {
        const r = await fetch(`${second.url}/v1/spots/${id}/forecast?days=1`, { headers: { "X-API-Key": key } });
        expect(r.status).toBe(200);
      }
    } finally {
      await second.stop();
    }
  }, 60_000);
});
