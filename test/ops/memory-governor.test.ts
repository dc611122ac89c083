/**
 * The server's memory governor (src/ops/memory.ts): collects while above its target, never at 0; and the idle release,
 * which drops every cache once per quiet spell, and the request count it reads (the gate's, kept by the App).
 */
import { expect, test } from "bun:test";
import { HEAP_GROWTH_MB, idleStep, shouldCollect, startIdleRelease, startMemoryGovernor, type IdleState, type MemoryProbe } from "../../src/ops/memory";
import { budgetShare, clearCaches, DEFAULT_CACHE_MB, setCacheBudget } from "../../src/core/caches";
import { openApp } from "../../src/app";
import { Lru } from "../../src/core/lru";
import { BoundedMap } from "../../src/core/bounded-map";
import { loadConfig } from "../../src/config";
import { closeDatabase, openDatabase } from "../../src/db";
import { startTestServer } from "../support/inprocess";
import { waitFor } from "../support/wait";
import { SpotService } from "../../src/spots/service";
import { sqliteCatalog } from "../../src/spots/sqlite-store";
import { tempDir } from "../support/env";

test("shouldCollect: above the target and the heap grown HEAP_GROWTH_MB since the last collection", () => {
  const cases: [rss: number, target: number, heap: number, heapAfterLast: number, collect: boolean][] = [
    [150, 140, 100, 0, true], // the first time above the target
    [140, 140, 100, 0, false],
    [100, 140, 500, 0, false], // under the target: never
    [150, 0, 100, 0, false], // 0: off
    [150, 140, 100 + HEAP_GROWTH_MB - 1, 100, false], // idle with its caches above the target: nothing to gain
    [150, 140, 100 + HEAP_GROWTH_MB, 100, true], // garbage being made: collect
  ];
  for (const [rss, target, heap, after, collect] of cases) expect([rss, target, heap, after, shouldCollect(rss, target, heap, after)]).toEqual([rss, target, heap, after, collect]);
});

/** A probe of `rssMb` that counts the governor's checks (each reads the resident size first). */
function counted(probe: MemoryProbe): MemoryProbe & { checks: number } {
  const counting = { ...probe, checks: 0, rssMb: () => (counting.checks++, probe.rssMb()) };
  return counting;
}

test("above the target it collects at each check while garbage is made, once when none is; target 0 never collects", async () => {
  let heap = 100;
  // 50 MB of garbage made between any two checks: each check finds it.
  const busy = startMemoryGovernor(140, { rssMb: () => ((heap = 150), 200), heapMb: () => heap, collect: () => void (heap = 100) });
  const idleProbe = counted({ rssMb: () => 200, heapMb: () => 100, collect: () => {} });
  const idle = startMemoryGovernor(140, idleProbe);
  const off = startMemoryGovernor(0);
  try {
    await waitFor("three collections while garbage is made", () => busy.collections() >= 3);
    await waitFor("three checks of the idle governor", () => idleProbe.checks >= 3);
    expect(idle.collections()).toBe(1);
    expect(off.collections()).toBe(0);
  } finally {
    busy.stop();
    idle.stop();
    off.stop();
  }
});

test("a real process above the target collects", async () => {
  const real = startMemoryGovernor(1); // any process is above 1 MB
  try {
    await waitFor("a collection", () => real.collections() >= 1);
    expect(real.collections()).toBeGreaterThanOrEqual(1);
  } finally {
    real.stop();
  }
});

test("below the target it does nothing", async () => {
  const probe = counted({ rssMb: () => process.memoryUsage.rss() / 2 ** 20, heapMb: () => process.memoryUsage().heapUsed / 2 ** 20, collect: () => Bun.gc(true) });
  const below = startMemoryGovernor(1_000_000, probe);
  try {
    await waitFor("two checks", () => probe.checks >= 2);
    expect(below.collections()).toBe(0);
  } finally {
    below.stop();
  }
});

test("SURFCAST_MEMORY_TARGET_MB: default 140, 0 switches it off, a bad value is a clear error", () => {
  expect(loadConfig({}, {}).memoryTargetMb).toBe(140);
  expect(loadConfig({}, { SURFCAST_MEMORY_TARGET_MB: "0" }).memoryTargetMb).toBe(0);
  expect(() => loadConfig({}, { SURFCAST_MEMORY_TARGET_MB: "lots" })).toThrow(/SURFCAST_MEMORY_TARGET_MB/);
});

test("idleStep: releases once after idleMs without a request, again only after new requests and another quiet spell", () => {
  const idleMs = 30_000;
  // [time, request count, release?]
  const steps: [number, number, boolean][] = [
    [1_000, 5, false], // requests moved: the quiet spell starts now
    [20_000, 5, false],
    [31_000, 5, true], // 30 s without a request
    [40_000, 5, false], // once per spell
    [41_000, 6, false], // a request: a new spell starts
    [70_000, 6, false],
    [71_000, 6, true],
  ];
  let state: IdleState = { requests: 0, since: 0, released: false };
  for (const [now, requests, release] of steps) {
    const step = idleStep(state, requests, now, idleMs);
    expect([now, step.release]).toEqual([now, release]);
    state = step.state;
  }
  expect(idleStep({ requests: 1, since: 0, released: false }, 1, 1e9, 0).release).toBe(false); // 0: never
});

/** A request count that moves at every check while `busy` (requests keep coming), and tells how many checks read it. */
function requestCount() {
  const count = { busy: true, requests: 0, checks: 0, read: () => (count.checks++, count.busy ? ++count.requests : count.requests) };
  return count;
}

test("the idle release runs after a quiet spell, not while requests keep coming", async () => {
  const count = requestCount();
  let released = 0;
  const idle = startIdleRelease(300, count.read, () => void released++);
  try {
    await waitFor("checks spanning more than the quiet spell", () => count.checks >= 3); // 300 ms apart, the first at the start
    expect(released).toBe(0);
    count.busy = false;
    await waitFor("the release", () => released === 1);
    const checks = count.checks;
    await waitFor("another quiet check", () => count.checks > checks);
    expect(released).toBe(1);
    expect(idle.releases()).toBe(1);
  } finally {
    idle.stop();
  }
});

test("the gate counts every request but a health probe into its own App's activity (what the idle release reads)", async () => {
  const [server, other] = await Promise.all([startTestServer(), startTestServer()]);
  try {
    const before = server.app.activity.requests;
    await (await fetch(`${server.url}/healthz`)).text();
    expect(server.app.activity.requests).toBe(before);
    await (await fetch(`${server.url}/v1/spots`)).text(); // a 401 is a request all the same
    await (await fetch(`${server.url}/openapi.json`)).text();
    expect(server.app.activity.requests).toBe(before + 2);
    expect(other.app.activity.requests).toBe(0);
  } finally {
    await Promise.all([server.close(), other.close()]);
  }
});

test("a release that throws is logged, and neither escapes its timer nor stops the server", async () => {
  const count = requestCount();
  count.busy = false;
  let attempts = 0;
  const idle = startIdleRelease(100, count.read, () => {
    attempts++;
    throw new Error("boom");
  });
  try {
    await waitFor("the release's attempt", () => attempts === 1);
    const checks = count.checks;
    await waitFor("three more quiet checks", () => count.checks >= checks + 3);
    expect(attempts).toBe(1); // once per quiet spell, failed or not
    expect(idle.releases()).toBe(0);
  } finally {
    idle.stop();
  }
});

test("clearCaches empties every bounded cache of the process", () => {
  const lru = new Lru<string>(1_000);
  const bounded = new BoundedMap<string, number>(10);
  lru.set("a", "kept", 4);
  bounded.set("b", 1);
  expect(clearCaches()).toBeGreaterThanOrEqual(2);
  expect([lru.get("a"), bounded.size]).toEqual([undefined, 0]);
});

test("the loaded catalog (spot objects, lookups, search and spatial indexes) is dropped with the caches and reloaded at the next call, same answers", async () => {
  const db = openDatabase(tempDir("idle-catalog"));
  try {
    const spots = await SpotService.open(sqliteCatalog(db));
    const ask = () => [
      spots.search({ q: "pipe", limit: 5 }).map((s) => s.id),
      spots.nearby({ lat: 21.66, lng: -158.05, radius: 20, limit: 5 }).map((s) => s.id),
      spots.detail(spots.all()[0]!.hexId),
    ];
    const before = ask();
    const catalog = spots.all();
    expect((before[0] as string[]).length).toBeGreaterThan(0);
    expect((before[1] as string[]).length).toBeGreaterThan(0);
    expect(spots.all()).toBe(catalog); // kept between calls
    clearCaches();
    const reloaded = spots.all();
    expect(reloaded).not.toBe(catalog); // dropped: the next call read it again
    expect(reloaded).toEqual(catalog);
    expect(ask()).toEqual(before);
  } finally {
    closeDatabase(db);
  }
});

test("SQLite's page caches are emptied with the caches: every open connection's, a closed one's without an error", () => {
  const kept = openDatabase(tempDir("idle-sqlite-a"));
  closeDatabase(openDatabase(tempDir("idle-sqlite-b")));
  openDatabase(tempDir("idle-sqlite-c")).$client.close(); // closed behind closeDatabase's back
  try {
    const executed: string[] = [];
    const exec = kept.$client.exec.bind(kept.$client);
    kept.$client.exec = ((sql: string) => (executed.push(sql), exec(sql))) as typeof exec;
    expect(() => clearCaches()).not.toThrow();
    expect(executed).toEqual(["PRAGMA shrink_memory"]);
    expect(kept.$client.query("SELECT count(*) AS n FROM spots").get()).toEqual({ n: 0 });
  } finally {
    closeDatabase(kept);
  }
});

test("a cache sized by a share of the budget follows SURFCAST_CACHE_MB, even when made before the setting", () => {
  const lru = new Lru<string>(budgetShare(0.5));
  const KB = 1024;
  try {
    setCacheBudget(1); // 512 KB for this cache
    for (let i = 0; i < 8; i++) lru.set(`k${i}`, "x", 100 * KB);
    expect([...Array(8).keys()].filter((i) => lru.get(`k${i}`) !== undefined)).toEqual([3, 4, 5, 6, 7]);
    setCacheBudget(2); // 1 MB: ten of them fit
    for (let i = 8; i < 20; i++) lru.set(`k${i}`, "x", 100 * KB);
    expect([...Array(20).keys()].filter((i) => lru.get(`k${i}`) !== undefined)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  } finally {
    setCacheBudget(DEFAULT_CACHE_MB);
  }
});

test("SURFCAST_CACHE_MB: default 16, applied by openApp, a bad value is a clear error", async () => {
  expect(loadConfig({}, {}).cacheMb).toBe(DEFAULT_CACHE_MB);
  expect(DEFAULT_CACHE_MB).toBe(16);
  expect(loadConfig({}, { SURFCAST_CACHE_MB: "64" }).cacheMb).toBe(64);
  expect(() => loadConfig({}, { SURFCAST_CACHE_MB: "lots" })).toThrow(/SURFCAST_CACHE_MB/);
  const lru = new Lru<string>(budgetShare(1));
  const app = await openApp(loadConfig({ dataDir: tempDir("cache-budget"), scheduler: false }, { SURFCAST_CACHE_MB: "1" }));
  try {
    for (let i = 0; i < 3; i++) lru.set(`k${i}`, "x", 400 * 1024);
    expect([lru.get("k0"), lru.get("k1"), lru.get("k2")]).toEqual([undefined, "x", "x"]); // 1 MB, not 16
  } finally {
    await app.close();
    setCacheBudget(DEFAULT_CACHE_MB);
  }
});

test("SURFCAST_IDLE_RELEASE_S: default 30 s, 0 switches it off, a bad value is a clear error", () => {
  expect(loadConfig({}, {}).idleReleaseMs).toBe(30_000);
  expect(loadConfig({}, { SURFCAST_IDLE_RELEASE_S: "0" }).idleReleaseMs).toBe(0);
  expect(() => loadConfig({}, { SURFCAST_IDLE_RELEASE_S: "soon" })).toThrow(/SURFCAST_IDLE_RELEASE_S/);
});
