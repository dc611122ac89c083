/**
 * Tides through the real app (catalog service, HTTP routes, OpenAPI-checked responses) in process: the startup job
 * fills the window in the background while requests are answered, computing a requested spot on demand.
 */
import { sqliteDb } from "../support/inprocess";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, ManualClock, type TestServer } from "../support/inprocess";
import { startTideJobs } from "../../src/server/tide-jobs";
import type { TidesResponse } from "../../src/tides/types";
import type { Spot } from "../../src/spots/types";
import { waitFor } from "../support/wait";

const clock = new ManualClock(Date.parse("2025-06-20T08:30:00Z"));
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ clock });
  key = await server.key();
});

afterAll(async () => {
  await server?.close();
});

async function spotId(q: string, region: RegExp): Promise<string> {
  const res = await server.get(`/v1/spots?q=${encodeURIComponent(q)}&limit=50`, key);
  const spot = ((await res.json()) as Spot[]).find((s) => region.test(`${s.country}, ${s.region}`));
  if (!spot) throw new Error(`no spot ${q} in ${region}`);
  return spot.id;
}

const meta = (k: string) => sqliteDb(server.app).$client.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(k)?.value;

test("the startup job fills the window in the background; a requested spot is computed on demand meanwhile", async () => {
  const jobs = startTideJobs(server.app);
  try {
    await server.app.tides.ready();
    const id = await spotId("Supertubos", /Portugal/);
    const res = await server.get(`/v1/spots/${id}/tides?days=3`, key);
    expect(res.status).toBe(200);
    const body = (await res.json()) as TidesResponse;
    expect(body).toMatchObject({ spot: { id }, units: "metric", tideless: false, datum: "LAT" });
    expect(body.extremes.length).toBeGreaterThanOrEqual(5);
    expect(Date.parse(body.extremes[0]!.time)).toBeGreaterThanOrEqual(clock.now());
    expect(Date.parse(body.extremes.at(-1)!.time)).toBeLessThan(clock.now() + 3 * 86_400_000);

    await waitFor("the tide window to be written", () => meta("tides.window.end"), 90_000, 200);
    expect(meta("tides.window.start")).toBe("2025-06-19T00:00:00.000Z");
    expect(meta("tides.window.end")).toBe("2025-06-29T00:00:00.000Z");
    const again = (await (await server.get(`/v1/spots/${id}/tides?days=3`, key)).json()) as TidesResponse;
    expect(again).toEqual(body);
  } finally {
    jobs.stop();
  }
}, 120_000);

test("before any refresh, a spot no station serves is waiting for the model (not tideless); unknown and bad days", async () => {
  const lake = await spotId("Sheboygan", /Great Lakes/);
  const body = (await (await server.get(`/v1/spots/${lake}/tides`, key)).json()) as TidesResponse;
  expect(body).toMatchObject({ tideless: false, extremes: [], datum: null, station: null, source: null, unavailable: "awaiting_model" });
  const missing = await server.get("/v1/spots/no-such-spot-anywhere/tides", key);
  expect(missing.status).toBe(404);
  expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
  for (const days of ["0", "8", "x", "1.5"]) expect((await server.get(`/v1/spots/${lake}/tides?days=${days}`, key)).status).toBe(400);
});
