/**
 * The forecast refresh against the local fake Open-Meteo: grid dedup and batching (GET and POST), both time
 * formats, each upstream fault (retried with an injected sleep, then given up per batch), previous documents
 * kept, no half-written batch, and the schedule.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { loadConfig } from "../../src/config";
import type { App } from "../../src/app";
import { closeDatabase, openDatabase, type Db } from "../../src/db";
import { OpenMeteoClient, RETRY_WAIT_BUDGET_MS, WEIGHT_PER_LOCATION } from "../../src/forecast/openmeteo";
import { ManualClock } from "../../src/core/clock";
import { plainPacer, type Pacer } from "../../src/core/pacing";
import { fetchAhead, forecastCell, marineCell, planBatches, runForecastRefresh, type RefreshSpot, type RefreshSummary } from "../../src/forecast/refresh";
import { FIRST_RETRY_MS, nextRefreshAt, retryAt, startupRefreshReason, STALE_AFTER_MS } from "../../src/forecast/schedule";
import { startForecastJobs } from "../../src/server/forecast-jobs";
import { sqliteForecastStore } from "../../src/forecast/sqlite-store";
import { documentText } from "../../src/db/document-codec";
import { CATALOG_PATH, tempDir } from "../support/env";
import { startFakeOpenMeteo, type Fault, type FakeOpenMeteo } from "../support/fake-open-meteo";

/** Six spots in three marine cells and four forecast cells (two pairs share both, one shares only marine). */
const SPOTS: RefreshSpot[] = [
  { id: "zz-supertubos", lat: 39.344, lng: -9.363 },
  { id: "zz-supertubos-north", lat: 39.35, lng: -9.36 },
  { id: "zz-supertubos-far", lat: 39.405, lng: -9.363 },
  { id: "zz-uluwatu", lat: -8.815, lng: 115.0867 },
  { id: "zz-pipeline", lat: 21.665, lng: -158.053 },
  { id: "zz-pipeline-west", lat: 21.66, lng: -158.06 },
];

let fake: FakeOpenMeteo;
beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: "2026-11-21" }); // the day of the tests' clock
});
afterAll(async () => {
  await fake.close();
});

interface Harness {
  db: Db;
  clock: ManualClock;
  sleeps: number[];
  refresh(spots?: readonly RefreshSpot[], timeformat?: "iso8601" | "unixtime", signal?: AbortSignal): Promise<RefreshSummary>;
  /** A refresh of `only` that logs, in order, each upstream request it starts, each batch it reports done and its memory hook. */
  traced(only?: readonly RefreshSpot[]): Promise<string[]>;
  /** A refresh of `only` that logs, in order, each call of its pacer and each batch it reports done. */
  paced(only?: readonly RefreshSpot[]): Promise<string[]>;
  ages(): Promise<Map<string, number>>;
  close(): void;
}

function insertSpots(db: Db, spots: readonly RefreshSpot[]): void {
  const insert = db.$client.prepare("INSERT OR IGNORE INTO spots (id, hex_id, name, country, region, lat, lng) VALUES (?, ?, ?, ?, NULL, ?, ?)");
  spots.forEach((s) => insert.run(s.id, `ffff${Bun.hash(s.id).toString(16).padStart(12, "0").slice(-12)}`, s.id, "Testland", s.lat, s.lng));
}

/** The refresh engine on its own database (no catalog, tides or facings: those are other domains' tests). */
function harness(env: Record<string, string> = {}, spots: readonly RefreshSpot[] = SPOTS): Harness {
  fake.reset();
  const config = loadConfig(
    { dataDir: tempDir("refresh"), scheduler: false },
    { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_OPEN_METEO_TIMEOUT_MS: "2000", ...env },
  );
  const clock = new ManualClock(Date.parse("2026-11-21T13:25:00Z"));
  const db = openDatabase(config.dataDir);
  insertSpots(db, spots);
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };
  const deps = (client: OpenMeteoClient) => ({
    forecasts: sqliteForecastStore(db),
    clock,
    client,
    batchSize: config.openMeteo.batchSize,
    tides: { forDocument: () => ({ reference: { datum: null, station: null }, hourly: (times: number[]) => times.map(() => null) }) },
    facings: async () => new Map(),
  });
  return {
    db,
    clock,
    sleeps,
    refresh: (only = spots, timeformat = "iso8601", signal) => runForecastRefresh({ ...deps(new OpenMeteoClient({ ...config.openMeteo, sleep, timeformat })), signal }, only),
    traced: async (only = spots) => {
      const events: string[] = [];
      const client = new OpenMeteoClient({ ...config.openMeteo, sleep });
      const fetch = client.fetch.bind(client);
      client.fetch = (endpoint, points) => {
        events.push(`ask ${endpoint} ${points.map((p) => p.lat).join(",")}`);
        return fetch(endpoint, points);
      };
      const pacer: Pacer = { ...plainPacer, beforeBatches: () => void events.push("before batches") };
      await runForecastRefresh({ ...deps(client), pacer, onProgress: (p) => events.push(`done ${p.batch} ${p.batchOk ? "ok" : "failed"}`) }, only);
      return events;
    },
    paced: async (only = spots) => {
      const events: string[] = [];
      const pacer: Pacer = {
        pause: async () => void events.push("pause"),
        dropYoung: () => void events.push("drop young"),
        dropAll: () => void events.push("drop all"),
        beforeBatches: () => void events.push("before batches"),
      };
      await runForecastRefresh({ ...deps(new OpenMeteoClient({ ...config.openMeteo, sleep })), pacer, onProgress: (p) => events.push(`done ${p.batch}`) }, only);
      return events;
    },
    ages: () => sqliteForecastStore(db).documentAges(),
    close: () => closeDatabase(db),
  };
}

/** The part of an App the forecast jobs read, over a harness's database, refreshing every spot. */
function jobsApp(h: Harness, dir: string): App {
  return {
    config: loadConfig({ dataDir: tempDir(dir) }, { SURFCAST_REFRESH_SCOPE: "all" }),
    clock: h.clock,
    db: h.db,
    stores: { forecasts: sqliteForecastStore(h.db) },
    engine: { kind: "sqlite", db: h.db },
    spots: { all: () => SPOTS },
  } as unknown as App;
}

describe("grid dedup and batching", () => {
  test("each grid cell is fetched once; one document per spot; weight counted", async () => {
    // The product's upstream timeout, not the harness's 2 s: on a loaded machine a slow answer would be asked again.
    const h = harness({ SURFCAST_OPEN_METEO_TIMEOUT_MS: "30000" });
    const summary = await h.refresh();
    expect(summary).toMatchObject({ spots: 6, ok: 6, failed: 0, batches: 1, failedBatches: 0, requests: 2, locations: { marine: 3, forecast: 4 } });
    // Marine asks for 14 variables (1.4 per location), forecast for 8 (1.0).
    expect(summary.weight).toBeCloseTo(3 * 1.4 + 4, 9);
    expect(fake.requests.map((r) => [r.endpoint, r.locations, r.method]).sort()).toEqual([
      ["forecast", 4, "GET"],
      ["marine", 3, "GET"],
    ]);
    expect(fake.weight()).toBeCloseTo(summary.weight, 9);
    expect([...(await h.ages()).keys()].sort()).toEqual(SPOTS.map((s) => s.id).sort());
    const body = (id: string) => JSON.parse(documentText((h.db.$client.query("SELECT body FROM forecast_documents WHERE spot_id = ?").get(id) as { body: Uint8Array }).body));
    // Spots sharing both cells share the series; the one with its own forecast cell got its own request slot.
    expect(body("zz-supertubos").hours).toEqual(body("zz-supertubos-north").hours);
    expect(body("zz-pipeline").hours).toHaveLength(166);
    expect(body("zz-uluwatu").daily[0].sunrise).toBe("2026-11-20T21:49:00Z");
    h.close();
  });

  test("small batches: every request within the batch size, every spot written, no cell fetched twice", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_BATCH_SIZE: "2" });
    const summary = await h.refresh();
    expect(summary.ok).toBe(6);
    expect(summary.batches).toBeGreaterThan(1);
    expect(fake.requests.every((r) => r.locations <= 2)).toBe(true);
    expect(fake.locations("marine")).toBe(3);
    expect(fake.locations("forecast")).toBe(4);
    h.close();
  });

  test("long location lists go as a form-encoded POST with the same parameters", async () => {
    const coast: RefreshSpot[] = Array.from({ length: 400 }, (_, i) => ({ id: `zz-coast-${i}`, lat: 30 + i * 0.1, lng: -20 + (i % 7) * 0.3 }));
    // 400 cells in one request: its URL would pass 4,000 characters (the default batch of 200 stays below).
    // The fake takes a while to make 400 locations' hours on a loaded machine: the product's own timeout, not the
    // harness's short one.
    const h = harness({ SURFCAST_OPEN_METEO_BATCH_SIZE: "400", SURFCAST_OPEN_METEO_TIMEOUT_MS: "30000" }, coast);
    const summary = await h.refresh();
    expect(summary.ok).toBe(400);
    expect(summary.failedBatches).toBe(0);
    expect(fake.requests.filter((r) => r.method === "POST").length).toBeGreaterThan(0);
    expect(fake.requests.every((r) => r.locations <= 500)).toBe(true);
    h.close();
  });

  test("planBatches: cells never split across batches, batch size respected, every spot once", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const spots = Array.from({ length: 3000 }, (_, i) => ({ id: `s${i}`, lat: -60 + rand() * 120, lng: -180 + rand() * 360 }));
    for (const size of [144, 200, 1000]) {
      const batches = planBatches(spots, size);
      expect(batches.flatMap((b) => b.spots.map((s) => s.id)).sort()).toEqual(spots.map((s) => s.id).sort());
      const marineKeys = batches.flatMap((b) => b.marine.map((c) => c.key));
      const forecastKeys = batches.flatMap((b) => b.forecast.map((c) => c.key));
      expect(new Set(marineKeys).size).toBe(marineKeys.length);
      expect(new Set(forecastKeys).size).toBe(forecastKeys.length);
      expect(batches.every((b) => b.marine.length <= size && b.forecast.length <= size)).toBe(true);
    }
  });

  test.if(existsSync(CATALOG_PATH))("the shipped catalog needs fewer than 1.2 × 5,877 upstream locations and at most 1.5 × 5,877 call weight per refresh, each cell fetched once at the default batch size", () => {
    const catalog = JSON.parse(readFileSync(CATALOG_PATH, "utf8")) as { lat: string; lng: string }[];
    const spots = catalog.map((s, i) => ({ id: String(i), lat: Number(s.lat), lng: Number(s.lng) }));
    const marine = new Set(spots.map(marineCell)).size;
    const forecast = new Set(spots.map(forecastCell)).size;
    for (const size of [loadConfig({}, {}).openMeteo.batchSize, 500]) {
      const batches = planBatches(spots, size);
      const planned = batches.reduce((n, b) => n + b.marine.length + b.forecast.length, 0);
      expect([size, planned]).toEqual([size, marine + forecast]); // no cell in two batches: no tile split
      // Whole tiles leave some room unused in a batch: within 10 % of the fewest batches possible.
      expect(batches.length).toBeLessThanOrEqual(Math.ceil((1.1 * Math.max(marine, forecast)) / size) + 1);
    }
    expect(marine + forecast).toBeLessThan(1.2 * 5877);
    // The budget: a full refresh's Open-Meteo call weight stays within 1.5 × the spots (bench/RESULTS.md).
    const weight = marine * WEIGHT_PER_LOCATION.marine + forecast * WEIGHT_PER_LOCATION.forecast;
    expect(weight).toBeLessThanOrEqual(1.5 * 5877);
  });
});

describe("time formats", () => {
  test("unixtime responses give the same documents as iso8601", async () => {
    const a = harness();
    await a.refresh();
    const b = harness();
    await b.refresh(SPOTS, "unixtime");
    expect(fake.requests.every((r) => r.timeformat === "unixtime")).toBe(true);
    const bodies = (db: Db) => db.$client.query("SELECT spot_id, body FROM forecast_documents ORDER BY spot_id").all();
    expect(bodies(b.db)).toEqual(bodies(a.db));
    a.close();
    b.close();
  });
});

describe("pipelining", () => {
  const TWO: RefreshSpot[] = [SPOTS[0]!, SPOTS[3]!];
  const THREE: RefreshSpot[] = [SPOTS[0]!, SPOTS[3]!, SPOTS[4]!];

  test.each([
    // [the upstream's answer (ms), the last batch's assembly (ms), asked for ahead]
    [300, 200, true],
    [100, 200, true],
    [99, 200, false],
    [5, 200, false],
    [0, 0, true],
    [5000, undefined, false],
  ] as const)("fetchAhead(%p, %p) = %p: ahead when the upstream takes at least half an assembly", (answerMs, assemblyMs, ahead) => {
    expect(fetchAhead(answerMs, assemblyMs)).toBe(ahead);
  });

  test("a slow upstream: the next batch is asked for while this one is assembled and written (never during the first)", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_BATCH_SIZE: "1" }, THREE);
    fake.inject({ delayMs: 300 });
    const events = await h.traced();
    const [first, second, third] = planBatches(THREE, 1).map((b) => b.spots[0]!.lat);
    expect(events).toEqual([
      "before batches",
      `ask marine ${first}`,
      `ask forecast ${first}`,
      "done 1 ok",
      `ask marine ${second}`,
      `ask forecast ${second}`,
      `ask marine ${third}`,
      `ask forecast ${third}`,
      "done 2 ok",
      "done 3 ok",
    ]);
    h.close();
  });

  test("the second batch is asked for after the first is written: nothing has been timed yet", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_BATCH_SIZE: "1" }, TWO);
    const events = await h.traced();
    const [first, second] = planBatches(TWO, 1).map((b) => b.spots[0]!.lat);
    expect(events).toEqual(["before batches", `ask marine ${first}`, `ask forecast ${first}`, "done 1 ok", `ask marine ${second}`, `ask forecast ${second}`, "done 2 ok"]);
    h.close();
  });

  test("after a failed batch the next is asked for only then: one batch at a time while the upstream fails", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_BATCH_SIZE: "1", SURFCAST_OPEN_METEO_RETRIES: "0" }, TWO);
    fake.inject("503", { requests: [1] });
    const events = await h.traced();
    const [first, second] = planBatches(TWO, 1).map((b) => b.spots[0]!.lat);
    expect(events).toEqual(["before batches", `ask marine ${first}`, `ask forecast ${first}`, "done 1 failed", `ask marine ${second}`, `ask forecast ${second}`, "done 2 ok"]);
    h.close();
  });

  test("the memory hook runs before the first of several batches, and not for a one-batch refresh (a spot asked for)", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_BATCH_SIZE: "1" }, TWO);
    expect((await h.traced()).filter((e) => e === "before batches")).toHaveLength(1);
    expect(await h.traced(TWO.slice(0, 1))).not.toContain("before batches");
    h.close();
  });

  test("the pacer is called where the refresh makes garbage: young every 20 spots assembled, all every 3 batches of one model", async () => {
    // 44 spots on Supertubos' cells: its batch assembles 45 spots, the other two batches one each.
    const crowd = Array.from({ length: 44 }, (_, i): RefreshSpot => ({ id: `zz-crowd-${i}`, lat: THREE[0]!.lat, lng: THREE[0]!.lng }));
    const h = harness({ SURFCAST_OPEN_METEO_BATCH_SIZE: "1" }, [...crowd, ...THREE]);
    const events = await h.paced();
    expect(events[0]).toBe("before batches");
    expect(events.filter((e) => e === "drop young")).toHaveLength(2);
    expect(events.filter((e) => e === "pause")).toHaveLength(2);
    expect(events.slice(-2)).toEqual(["drop all", "done 3"]);
    expect(events.filter((e) => e === "drop all")).toHaveLength(1);
    expect((await h.paced(THREE.slice(0, 2))).filter((e) => e === "drop all")).toHaveLength(0);
    h.close();
  });
});

describe("faults", () => {
  const transient: [string, Fault][] = [
    ["500", "500"],
    ["503", "503"],
    ["429 minutely", "429"],
    ["truncated JSON", "truncated"],
    ["all-null series", "all-null"],
    ["timeout", { delayMs: 2500 }],
  ];
  for (const [name, fault] of transient) {
    test(`${name} once → retried with backoff, every spot refreshed`, async () => {
      const h = harness();
      fake.inject(fault, { next: 1, endpoint: "marine" });
      const summary = await h.refresh();
      expect(summary).toMatchObject({ ok: 6, failedBatches: 0, requests: 3 });
      expect(fake.requests.filter((r) => r.endpoint === "marine")).toHaveLength(2);
      expect(h.sleeps).toHaveLength(1);
      // Open-Meteo sends no Retry-After: a minutely limit would wait a minute, cut to the outage wait budget.
      expect(h.sleeps[0]).toBe(fault === "429" ? RETRY_WAIT_BUDGET_MS : 1000);
      h.close();
    });
  }

  test("a fault that persists: the batch is given up after the retries; its spots keep their previous documents", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_RETRIES: "2" });
    await h.refresh();
    const before = await h.ages();
    h.clock.advance(3_600_000);
    fake.reset();
    fake.inject("503", { endpoint: "forecast" });
    const summary = await h.refresh();
    expect(summary).toMatchObject({ ok: 0, failed: 6, failedBatches: 1 });
    expect(summary.errors[0]).toContain("forecast: HTTP 503: The service is overloaded");
    expect(fake.requests.filter((r) => r.endpoint === "forecast")).toHaveLength(3);
    expect(h.sleeps).toEqual([1000, 2000]);
    expect(await h.ages()).toEqual(before);
    h.close();
  });

  test("only the failing batch is given up; the others are written", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_BATCH_SIZE: "1", SURFCAST_OPEN_METEO_RETRIES: "0" });
    fake.inject("500", { requests: [1, 2] });
    const summary = await h.refresh();
    expect(summary.failedBatches).toBe(1);
    expect(summary.ok).toBeGreaterThan(0);
    expect(summary.ok + summary.failed).toBe(6);
    expect((await h.ages()).size).toBe(summary.ok);
    h.close();
  });

  test("three failed batches in a row: the rest of the run is given up, every previous document kept", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_BATCH_SIZE: "1", SURFCAST_OPEN_METEO_RETRIES: "0" });
    await h.refresh();
    const before = await h.ages();
    fake.reset();
    fake.inject("503", {});
    const summary = await h.refresh();
    expect(summary.batches).toBeGreaterThan(3);
    expect(summary).toMatchObject({ ok: 0, failed: 6, gaveUp: true });
    expect(summary.failedBatches).toBe(summary.batches);
    expect(fake.requests).toHaveLength(6); // three batches of two requests, nothing after
    expect(summary.errors.at(-1)).toBe(`upstream down: 3 batches failed in a row; gave up the remaining ${summary.batches - 3} batches`);
    expect(await h.ages()).toEqual(before);
    h.close();
  });

  test("retry waits stop at the outage budget while nothing succeeds", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_RETRIES: "5" });
    fake.inject("429", {});
    const summary = await h.refresh();
    expect(summary.ok).toBe(0);
    expect(h.sleeps.reduce((a, b) => a + b, 0)).toBe(RETRY_WAIT_BUDGET_MS);
    h.close();
  });

  test("400 is not retried; a daily 429 stops the refresh without retrying or fetching more", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_BATCH_SIZE: "1" });
    fake.inject("400", { next: 1, endpoint: "marine" });
    let summary = await h.refresh();
    expect(summary.failedBatches).toBe(1);
    expect(summary.errors[0]).toContain("HTTP 400");
    expect(h.sleeps).toEqual([]);

    fake.reset();
    fake.inject("429-daily", {});
    summary = await h.refresh();
    expect(summary.failedBatches).toBe(summary.batches);
    expect(fake.requests.length).toBe(2); // the first batch's two requests, nothing after
    expect(summary.errors.at(-1)).toBe("gave up on the remaining batches");
    h.close();
  });

  test("no network: the refresh gives up after the first batch with one clear reason", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_MARINE_URL: "http://127.0.0.1:9", SURFCAST_OPEN_METEO_FORECAST_URL: "http://127.0.0.1:9", SURFCAST_OPEN_METEO_BATCH_SIZE: "1", SURFCAST_OPEN_METEO_RETRIES: "1" });
    const summary = await h.refresh();
    expect(summary.ok).toBe(0);
    expect(summary.failedBatches).toBe(summary.batches);
    expect(summary.requests).toBe(4); // two endpoints × (1 try + 1 retry), first batch only
    expect(summary.errors[0]).toContain("cannot connect");
    h.close();
  });

  test("a batch whose transaction fails writes nothing: readers see the old documents, never a mix", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_BATCH_SIZE: "2" });
    await h.refresh();
    const before = await h.ages();
    const bodiesBefore = h.db.$client.query("SELECT spot_id, body FROM forecast_documents ORDER BY spot_id").all();
    // Fail the write of one spot in the middle of its batch's transaction.
    h.db.$client.exec(
      "CREATE TEMP TRIGGER fail_one BEFORE UPDATE ON forecast_documents WHEN NEW.spot_id = 'zz-supertubos-north' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
    );
    h.clock.advance(3_600_000);
    const summary = await h.refresh();
    expect(summary.failedBatches).toBe(1);
    expect(summary.errors[0]).toContain("disk on fire");
    const after = await h.ages();
    const failedBatchSpots = SPOTS.filter((s) => after.get(s.id) === before.get(s.id)).map((s) => s.id);
    expect(failedBatchSpots).toContain("zz-supertubos-north");
    expect(failedBatchSpots.length).toBeGreaterThan(1); // its batch companions were rolled back with it
    expect(failedBatchSpots.length).toBeLessThan(SPOTS.length);
    expect(summary.failedSpotIds.sort()).toEqual(failedBatchSpots.sort());
    const unchanged = h.db.$client
      .query(`SELECT spot_id, body FROM forecast_documents WHERE spot_id IN (${failedBatchSpots.map(() => "?").join(",")}) ORDER BY spot_id`)
      .all(...failedBatchSpots);
    expect(unchanged).toEqual(bodiesBefore.filter((r) => failedBatchSpots.includes((r as { spot_id: string }).spot_id)));
    h.close();
  });
});

describe("stopping", () => {
  test("an aborted refresh (server shutdown) stops between batches and counts the rest as failed", async () => {
    const h = harness({ SURFCAST_OPEN_METEO_BATCH_SIZE: "1" });
    const controller = new AbortController();
    fake.inject({ delayMs: 200 }, { requests: [1] });
    const running = h.refresh(SPOTS, "iso8601", controller.signal);
    await Bun.sleep(50);
    controller.abort();
    const summary = await running;
    expect(summary.ok).toBe(0);
    expect(summary.failedBatches).toBe(summary.batches);
    expect(fake.requests).toHaveLength(2); // the first batch's requests only
    expect((await h.ages()).size).toBe(0);
    h.close();
  });
});

describe("schedule", () => {
  const crons = ["0 1 * * *", "0 13 * * *"];

  test("twice a day at 01:00 and 13:00 UTC", () => {
    expect(nextRefreshAt(crons, new Date("2026-11-21T05:00:00Z"))?.toISOString()).toBe("2026-11-21T13:00:00.000Z");
    expect(nextRefreshAt(crons, new Date("2026-11-21T13:00:00Z"))?.toISOString()).toBe("2026-11-22T01:00:00.000Z");
    expect(nextRefreshAt(crons, new Date("2026-11-21T00:59:59Z"))?.toISOString()).toBe("2026-11-21T01:00:00.000Z");
  });

  test("startup refresh when documents are missing or older than 12 h", () => {
    const now = Date.parse("2026-11-21T13:00:00Z");
    const ages = new Map([
      ["a", now - 3_600_000],
      ["b", now - STALE_AFTER_MS - 1],
    ]);
    expect(startupRefreshReason(["a"], ages, now)).toBeNull();
    expect(startupRefreshReason(["a", "b"], ages, now)).toBe("0 spots without a forecast, 1 older than 12 h");
    expect(startupRefreshReason(["a", "c"], ages, now)).toBe("1 spots without a forecast, 0 older than 12 h");
  });

  test("jobs run the startup refresh in the background and stop cleanly", async () => {
    const h = harness();
    const app = jobsApp(h, "jobs");
    const calls: string[] = [];
    let release!: () => void;
    const jobs = startForecastJobs(app, {
      refresh: () => {
        calls.push("refresh");
        return new Promise<void>((r) => (release = r));
      },
    });
    expect(calls).toEqual([]); // not blocking: the check runs after startup
    await Bun.sleep(10);
    expect(calls).toEqual(["refresh"]);
    expect(jobs.running()).not.toBeNull();
    release();
    await jobs.running();
    jobs.stop();

    // Fresh documents: nothing to do at startup.
    await h.refresh();
    const quiet = startForecastJobs(app, { refresh: async () => void calls.push("again") });
    await Bun.sleep(10);
    quiet.stop();
    expect(calls).toEqual(["refresh"]);
    h.close();
  });

  test("retries after an incomplete run: 10, 20, 40 min…, never at or after the next scheduled run", () => {
    const now = Date.parse("2026-11-21T13:05:00Z");
    const next = nextRefreshAt(["0 1 * * *", "0 13 * * *"], new Date(now))!;
    const minutes = [1, 2, 3, 4, 5, 6, 7].map((n) => retryAt(n, now, next)).map((at) => (at === null ? null : (at - now) / 60_000));
    expect(minutes).toEqual([10, 20, 40, 80, 160, 320, 640]);
    expect(retryAt(8, now, next)).toBeNull(); // 1280 min: past 01:00
    expect(FIRST_RETRY_MS).toBe(600_000);
  });

  test("the scheduler retries only the spots a partial run missed, until a run is complete", async () => {
    const h = harness();
    const app = jobsApp(h, "jobs-retry");
    const runs: (string[] | undefined)[] = [];
    const summaryOf = (failedSpotIds: string[]) => ({ spots: SPOTS.length, ok: SPOTS.length - failedSpotIds.length, failed: failedSpotIds.length, failedSpotIds }) as unknown as RefreshSummary;
    const jobs = startForecastJobs(app, {
      firstRetryMs: 20,
      refresh: async (_app, _signal, spots) => {
        runs.push(spots?.map((s) => s.id));
        // The start-up run misses two spots, the first retry one of them, the second retry none.
        return summaryOf(runs.length === 1 ? [SPOTS[0]!.id, SPOTS[1]!.id] : runs.length === 2 ? [SPOTS[1]!.id] : []);
      },
    });
    for (let i = 0; i < 100 && runs.length < 3; i++) await Bun.sleep(10);
    await Bun.sleep(100); // no fourth run: the third was complete
    jobs.stop();
    expect(runs).toEqual([undefined, [SPOTS[0]!.id, SPOTS[1]!.id], [SPOTS[1]!.id]]);
    h.close();
  });
});
