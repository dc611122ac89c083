/**
 * `surfcast refresh` by hand on a shared database (compiled binary): it refreshes into PostgreSQL, and it takes its
 * turn with a refresh a server is running (the `forecast-refresh` lease) instead of running beside it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { openPostgres, closePostgres, type PgDb } from "../../src/db/postgres";
import { runOnce } from "../../src/db/postgres/lease";
import { installDir } from "../support/binary";
import { BINARY } from "../support/env";
import { waitFor } from "../support/wait";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../support/postgres";

describeWithPostgres("refresh by hand on PostgreSQL", () => {
  let database: TestDatabase;
  let fake: FakeOpenMeteo;
  let pg: PgDb;
  const dir = installDir("refresh-pg");
  const env = () => ({ SURFCAST_DATABASE_URL: database.url(), SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_OPEN_METEO_RETRIES: "0" });

  beforeAll(async () => {
    database = await createTestDatabase();
    fake = await startFakeOpenMeteo();
    pg = await openPostgres(database.url());
  });
  afterAll(async () => {
    await closePostgres(pg);
    await fake.close();
    await database.drop();
  });

  test("waits for the refresh another server holds, then stores its forecasts in PostgreSQL", async () => {
    let holding = false;
    let released = 0;
    let stdout = "";
    // Another server's refresh, holding the job until the refresh by hand says it waits for its turn.
    const held = runOnce(pg, { name: "forecast-refresh", slot: "scheduled elsewhere", node: "other-1" }, async () => {
      holding = true;
      await waitFor("the refresh by hand to wait", () => stdout.includes("waiting for a refresh another server runs"), 30_000);
      released = Date.now();
    });
    await waitFor("the other server's refresh to hold the job", () => holding);
    const proc = Bun.spawn([BINARY, "--data-dir", dir, "refresh", "--spots", "pipeline,supertubos"], { env: { ...process.env, ...env() }, stdout: "pipe", stderr: "pipe" });
    const stderr = new Response(proc.stderr).text();
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) stdout += decoder.decode(chunk, { stream: true });
    const code = await proc.exited;
    const finished = Date.now();
    await held;
    expect([code, await stderr]).toEqual([0, expect.any(String)]);
    expect(stdout).toContain("waiting for a refresh another server runs");
    // Its upstream calls came after the other server's refresh ended.
    expect(released).toBeGreaterThan(0);
    expect(finished).toBeGreaterThan(released);
    expect(fake.requests.length).toBeGreaterThan(0);
    const rows = (await database.sql`SELECT spot_id FROM forecast_documents ORDER BY spot_id`) as { spot_id: string }[];
    expect(rows.map((row) => row.spot_id)).toEqual(["pipeline", "supertubos"]);
    const runs = (await database.sql`SELECT node, finished_at IS NOT NULL AS done FROM cluster.job_runs WHERE name = 'forecast-refresh' ORDER BY started_at`) as { node: string; done: boolean }[];
    expect(runs.map((run) => run.done)).toEqual([true, true]);
    expect(runs[0]!.node).toBe("other-1");
  }, 60_000);
});
