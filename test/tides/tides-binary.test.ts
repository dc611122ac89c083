/**
 * The compiled binary serves tides from the tide database embedded in it: GET /v1/spots/{id}/tides on a fresh
 * server without the scheduler, so nothing is predicted ahead: the very first request computes its spot on demand,
 * from the station the build chose for it; a spot imported later has its station chosen by the tide database.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, createKey, startServer, type RunningServer } from "../support/binary";
import { BINARY, tempDir } from "../support/env";
import { apiFetch } from "../support/http";
import type { TidesResponse } from "../../src/tides/types";
import type { Spot } from "../../src/spots/types";

let server: RunningServer;
let key: string;

beforeAll(async () => {
  server = await startServer();
  key = createKey(server.dataDir);
});

afterAll(async () => {
  await server?.stop();
});

const get = (path: string) => apiFetch(server.url + path, { headers: { "X-API-Key": key } });

async function spotId(q: string, region: RegExp): Promise<string> {
  const res = await get(`/v1/spots?q=${encodeURIComponent(q)}&limit=50`);
  expect(res.status).toBe(200);
  const spot = ((await res.json()) as Spot[]).find((s) => region.test(`${s.country}, ${s.region}`));
  if (!spot) throw new Error(`no spot ${q} in ${region}`);
  return spot.id;
}

async function tides(id: string, days = 7): Promise<TidesResponse> {
  const res = await get(`/v1/spots/${id}/tides?days=${days}`);
  expect(res.status).toBe(200);
  return (await res.json()) as TidesResponse;
}

test("serves alternating extremes from now on with datum and station", async () => {
  const id = await spotId("Nazaré", /Portugal/);
  const body = await tides(id, 2);
  expect(body.tideless).toBe(false);
  expect(body.datum).toBe("LAT");
  expect(body.station).toMatchObject({ id: expect.any(String), name: expect.any(String), source: expect.any(String) });
  const now = Date.now();
  expect(body.extremes.length).toBeGreaterThanOrEqual(6);
  expect(body.extremes.length).toBeLessThanOrEqual(9);
  body.extremes.forEach((e, i) => {
    const t = Date.parse(e.time);
    expect(t).toBeGreaterThanOrEqual(now - 60_000);
    expect(t).toBeLessThan(now + 2 * 86_400_000);
    if (i > 0) expect(e.type).not.toBe(body.extremes[i - 1]!.type);
  });
  const highs = body.extremes.filter((e) => e.type === "high").map((e) => e.height);
  const lows = body.extremes.filter((e) => e.type === "low").map((e) => e.height);
  expect(Math.min(...highs) - Math.max(...lows)).toBeGreaterThan(0.5);
});

test("before any refresh, a Great Lakes spot no station serves waits for the model: not tideless by accident", async () => {
  const id = await spotId("Sheboygan", /Great Lakes/);
  const body = await tides(id);
  expect(body).toMatchObject({ tideless: false, extremes: [], datum: null, station: null, source: null, unavailable: "awaiting_model" });
});

test("unknown spot → 404 not_found, bad days → 400", async () => {
  const missing = await get("/v1/spots/no-such-spot-anywhere/tides");
  expect(missing.status).toBe(404);
  expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
  const id = await spotId("Nazaré", /Portugal/);
  expect((await get(`/v1/spots/${id}/tides?days=8`)).status).toBe(400);
});

test("the tide database is embedded once, and neither unrelated commands nor the default catalog's spots load it", async () => {
  const binary = new TextDecoder("latin1").decode(await Bun.file(BINARY).arrayBuffer());
  const count = (needle: string) => binary.split(needle).length - 1;
  expect(binary).toMatch(/\$bunfs\/root\/neaps[^"`\s]*\.tcdb/);
  // The database module decodes its root table once per copy bundled.
  expect(count("getRootAsRoot(new")).toBe(1);
  const listed = cli(server.dataDir, ["accounts", "list"], { SURFCAST_LOG_LEVEL: "debug" });
  expect(listed.code).toBe(0);
  expect(listed.stderr).not.toContain("tide database loaded");
  // The spots asked for so far are the default catalog's: their stations were chosen at build.
  expect(server.output()).not.toContain("tide database loaded");
});

test("a new install's first start chooses every default spot's station from the build: the window pass never loads the tide database", async () => {
  const first = await startServer({ args: [], env: { SURFCAST_REFRESH_SCOPE: "requested" } });
  try {
    const deadline = Date.now() + 60_000;
    while (!/tide window ready/.test(first.output()) && Date.now() < deadline) await Bun.sleep(50);
    const [, spots, chosen] = /tide window ready spots=(\d+) chosen=(\d+)/.exec(first.output()) ?? [];
    expect(Number(spots)).toBeGreaterThan(5000);
    expect(chosen).toBe(spots);
    expect(first.output()).not.toContain("tide database loaded");
  } finally {
    await first.stop();
  }
}, 90_000);

test("a restart predicts from the stored station records: tides and now of a chosen spot without loading the tide database", async () => {
  const id = await spotId("Nazaré", /Portugal/);
  const before = await tides(id, 7);
  await server.stop();
  server = await startServer({ dataDir: server.dataDir });
  const after = await tides(id, 7);
  expect(after.station).toEqual(before.station);
  expect(after.extremes.length).toBeGreaterThanOrEqual(before.extremes.length - 1);
  const now = await get(`/v1/spots/${id}/now`);
  expect(now.status).toBe(200);
  expect(((await now.json()) as { tide: { height: number } | null }).tide?.height).toEqual(expect.any(Number));
  expect(server.output()).not.toContain("tide database loaded");
});

test("a spot imported later has its station chosen by the tide database, in its worker", async () => {
  const file = join(tempDir("tide-import"), "spots.json");
  // Off every default spot's position: the build did not choose its station.
  writeFileSync(file, JSON.stringify([{ name: "Tidecheck Reef", country: "Portugal", lat: "39.6013", lng: "-9.0872" }]));
  expect(cli(server.dataDir, ["spots", "import", file]).code).toBe(0);
  let id: string | undefined;
  const deadline = Date.now() + 10_000;
  while (!id && Date.now() < deadline) {
    const res = await get(`/v1/spots?q=${encodeURIComponent("Tidecheck Reef")}&limit=5`);
    id = ((await res.json()) as Spot[]).find((s) => s.name === "Tidecheck Reef")?.id;
    if (!id) await Bun.sleep(100);
  }
  const body = await tides(id!, 2);
  expect(body.tideless).toBe(false);
  expect(body.station).toMatchObject({ id: expect.any(String) });
  expect(server.output()).toContain("tide database loaded");
});
