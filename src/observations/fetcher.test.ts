import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HOUR_MS, MINUTE_MS, ManualClock } from "../core/clock";
import { NDBC_FIXTURES } from "../../test/support/env";
import { metFileText, specFileText, startFakeNdbc, type FakeStation } from "../../test/support/fake-ndbc";
import { backoffMs, NdbcFetcher, type FetchFunction, type FetchTurn } from "./fetcher";
import { MemoryObservationStore } from "./memory-store";
import { parseMetFile, parseSpecFile } from "./ndbc";
import { latestWaveReading } from "./readings";

const T0 = Date.parse("2026-11-21T13:05:00Z");
/** Pipeline, Oahu: Waimea Bay's buoy 7 km away, Mokapu Point's 43 km. */
const PIPELINE = { lat: 21.665, lng: -158.053 };
const WAIMEA: FakeStation = { id: "51201", name: "Waimea Bay, HI (106)", lat: 21.671, lng: -158.118, owner: "Pacific Islands Ocean Observing System" };
const MOKAPU: FakeStation = { id: "51202", name: "Mokapu Point, HI (098)", lat: 21.417, lng: -157.68 };
/** A lighthouse without waves, nearer than any buoy. */
const LIGHT: FakeStation = { id: "LITE1", name: "Kaena Light", lat: 21.66, lng: -158.06, type: "fixed", files: "no_waves" };

let fakeNow = T0;
const ndbc = await startFakeNdbc({ stations: [LIGHT, WAIMEA, MOKAPU], now: () => fakeNow });
afterAll(() => ndbc.close());

interface Logged {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

function setUp(fetch: FetchFunction = (url, init) => globalThis.fetch(url, init), timeoutMs?: number, turn?: FetchTurn) {
  const clock = new ManualClock(T0);
  const logs: Logged[] = [];
  const store = new MemoryObservationStore();
  const fetcher = new NdbcFetcher({
    baseUrl: ndbc.url + "/",
    publicUrl: "https://surf.example",
    fetch,
    clock,
    store,
    timeoutMs,
    turn,
    logger: { info: (message, fields) => logs.push({ level: "info", message, fields }), warn: (message, fields) => logs.push({ level: "warn", message, fields }) },
  });
  // The fake's files follow the fetcher's clock unless a test holds them still.
  const advance = (ms: number, files = true) => {
    clock.advance(ms);
    if (files) fakeNow = clock.now();
  };
  return { clock, logs, store, fetcher, advance };
}

beforeEach(() => {
  ndbc.reset();
  fakeNow = T0;
});

const txt = (id: string) => `/data/realtime2/${id}.txt`;
const spec = (id: string) => `/data/realtime2/${id}.spec`;

describe("the fake NDBC writes the real layout", () => {
  const realWidth = (name: string) => readFileSync(join(NDBC_FIXTURES, name), "utf8").split("\n")[2]!.length;

  test("every .txt line as wide as the real file's, every .spec line too, and both read back", () => {
    const met = metFileText(WAIMEA, T0);
    const spectral = specFileText(WAIMEA, T0);
    expect(new Set(met.trimEnd().split("\n").slice(2).map((l) => l.length))).toEqual(new Set([realWidth("41002.txt")]));
    expect(new Set(spectral.trimEnd().split("\n").slice(2).map((l) => l.length))).toEqual(new Set([realWidth("41002.spec")]));
    expect(met.split("\n").slice(0, 2)).toEqual(readFileSync(join(NDBC_FIXTURES, "41002.txt"), "utf8").split("\n").slice(0, 2));
    const rows = parseMetFile(met);
    expect(rows.ok && rows.rows.length).toBe(45 * 144);
    expect(rows.ok && rows.rows[0]!.time).toBe(Date.parse("2026-11-21T12:50:00Z"));
    expect(parseSpecFile(spectral).ok).toBe(true);
  });

  test("a file of MM is not a buoy file, a fixed station's is one without waves", () => {
    expect(parseMetFile(metFileText({ ...WAIMEA, files: "all_mm" }, T0))).toEqual({ ok: false, problem: "all_missing" });
    const fixed = parseMetFile(metFileText(LIGHT, T0));
    expect(fixed.ok && fixed.rows.every((r) => r.waveHeight === null && r.windSpeed !== null)).toBe(true);
  });
});

describe("the station table", () => {
  test("at most once a day, then a conditional GET", async () => {
    const { fetcher, advance } = setUp();
    expect((await fetcher.stations())!.map((s) => s.id)).toEqual(["LITE1", "51201", "51202"]);
    advance(23 * HOUR_MS, false);
    await fetcher.stations();
    expect(ndbc.requestsFor("/activestations.xml")).toHaveLength(1);
    advance(HOUR_MS, false);
    expect(await fetcher.stations()).toHaveLength(3);
    const [first, second] = ndbc.requestsFor("/activestations.xml");
    expect(first!.ifNoneMatch).toBeNull();
    expect(second).toMatchObject({ status: 304, ifNoneMatch: expect.stringMatching(/^"/), ifModifiedSince: expect.stringMatching(/GMT$/) });
  });

  test("a failing table: none until one comes, retried after minutes, an hour at most", async () => {
    const { fetcher, advance, logs } = setUp();
    ndbc.setTable("unavailable");
    expect(await fetcher.stations()).toBeNull();
    advance(4 * MINUTE_MS);
    await fetcher.stations();
    expect(ndbc.requestsFor("/activestations.xml")).toHaveLength(1);
    advance(MINUTE_MS);
    ndbc.setTable("html");
    expect(await fetcher.stations()).toBeNull();
    expect(ndbc.requestsFor("/activestations.xml")).toHaveLength(2);
    ndbc.setTable("ok");
    advance(10 * MINUTE_MS);
    expect(await fetcher.stations()).toHaveLength(3);
    expect(logs.map((l) => `${l.level} ${l.fields?.problem ?? ""}`)).toEqual(["warn http 503", "info "]);
  });
});

describe("a buoy's files", () => {
  test("both files, with the User-Agent and gzip; asked again only after 30 minutes", async () => {
    const { fetcher, advance } = setUp();
    const view = await fetcher.buoy("51201");
    expect(view).toMatchObject({ state: "waves", failing: false });
    expect(latestWaveReading(view.readings)).toMatchObject({ time: Date.parse("2026-11-21T12:50:00Z"), swellHeight: expect.any(Number), windSpeed: 25.2 });
    expect(ndbc.requests.map((r) => r.path).sort()).toEqual([spec("51201"), txt("51201")]);
    expect(ndbc.requests.every((r) => r.userAgent === "Surfcast (+https://surf.example)" && r.acceptEncoding === "gzip" && r.status === 200)).toBe(true);

    advance(29 * MINUTE_MS);
    await fetcher.buoy("51201");
    expect(ndbc.requests).toHaveLength(2);
    advance(MINUTE_MS);
    const later = await fetcher.buoy("51201");
    expect(ndbc.requests).toHaveLength(4);
    // The .txt has new rows; the hourly .spec has none since 12:40.
    expect(ndbc.requests.slice(2).map((r) => [r.path, r.status, r.ifNoneMatch !== null]).sort()).toEqual([
      [spec("51201"), 304, true],
      [txt("51201"), 200, true],
    ]);
    expect(later.readings[0]!.time).toBe(Date.parse("2026-11-21T13:20:00Z"));
  });

  test("an unchanged file answers 304 and its readings stay", async () => {
    const { fetcher, advance } = setUp();
    const first = await fetcher.buoy("51201");
    advance(30 * MINUTE_MS, false);
    const again = await fetcher.buoy("51201");
    expect(ndbc.requests.slice(2).map((r) => r.status)).toEqual([304, 304]);
    expect(again.readings).toBe(first.readings);
  });

  test("callers asking at once share one request per file", async () => {
    const { fetcher } = setUp();
    await Promise.all([fetcher.buoy("51201"), fetcher.buoy("51201"), fetcher.buoy("51201")]);
    expect(ndbc.requests).toHaveLength(2);
  });

  test("on several servers a fetch runs in its source's turn, named after the state it replaces; another server's is read back", async () => {
    const turns: string[] = [];
    const { fetcher, advance, store, clock } = setUp(undefined, undefined, async (source, slot, fetchAndStore) => {
      turns.push(`${source} ${slot}`);
      if (turns.length === 1) return fetchAndStore();
      // Another server took this turn: it stored the files as its own fetch found them.
      await store.saveBuoy({ ...(await store.buoy("51201"))!, checkedAt: clock.now() });
    });
    const first = await fetcher.buoy("51201");
    advance(30 * MINUTE_MS);
    expect((await fetcher.buoy("51201")).readings).toBe(first.readings);
    expect(turns).toEqual(["buoy 51201 first", "buoy 51201 after 2026-11-21T13:05:00.000Z"]);
    expect(ndbc.requests).toHaveLength(2);
    // The other server's fetch counts here too: nothing is due for another half hour.
    advance(20 * MINUTE_MS);
    await fetcher.buoy("51201");
    expect(turns).toHaveLength(2);
  });

  test("a bad file never erases the last good reading; the failure spell is logged once, its end once", async () => {
    const { fetcher, advance, logs } = setUp();
    const good = await fetcher.buoy("51201");
    ndbc.setStation("51201", { files: "html" });
    for (let i = 0; i < 4; i++) {
      advance(HOUR_MS);
      const view = await fetcher.buoy("51201");
      expect(view).toMatchObject({ state: "waves", failing: true });
      expect(view.readings).toBe(good.readings);
    }
    expect(logs).toEqual([{ level: "warn", message: "NDBC answer unusable; the last good file stays in use", fields: { source: "buoy 51201", problem: "html" } }]);
    ndbc.setStation("51201", { files: "waves" });
    advance(HOUR_MS);
    expect(await fetcher.buoy("51201")).toMatchObject({ failing: false });
    expect(logs.at(-1)).toMatchObject({ level: "info", message: "NDBC answers again", fields: { source: "buoy 51201", failures: 4 } });
  });

  test("failures back off: every 30 minutes at first, then 40, then hourly", async () => {
    const { fetcher, advance } = setUp();
    ndbc.setStation("51201", { files: "unavailable" });
    const attempts: number[] = [];
    for (let minute = 0; minute <= 5 * 60; minute += 5) {
      const before = ndbc.requestsFor(txt("51201")).length;
      await fetcher.buoy("51201");
      if (ndbc.requestsFor(txt("51201")).length > before) attempts.push(minute);
      advance(5 * MINUTE_MS);
    }
    expect(attempts).toEqual([0, 30, 60, 90, 130, 190, 250]);
  });

  test.each([
    [1, 5],
    [2, 10],
    [3, 20],
    [4, 40],
    [5, 60],
    [12, 60],
  ])("backoff after %p failures: %p minutes", (failures, minutes) => {
    expect(backoffMs(failures)).toBe(minutes * MINUTE_MS);
  });

  test.each([
    ["a file of MM", { files: "all_mm" }, { state: "unavailable", failing: true }, "all_missing"],
    ["an HTML error page", { files: "html" }, { state: "unavailable", failing: true }, "html"],
    ["a 503", { files: "unavailable" }, { state: "unavailable", failing: true }, "http 503"],
    ["a 404: no such file", { files: "missing" }, { state: "no_waves", failing: true }, "http 404"],
    ["a fixed station: no waves, no .spec", { files: "no_waves" }, { state: "no_waves", failing: false }, undefined],
    ["a file cut inside a row: the rows before the cut", { files: "truncated" }, { state: "waves", failing: false }, undefined],
  ] as const)("first answer %s", async (_, changes, expected, problem) => {
    const { fetcher, logs } = setUp();
    ndbc.setStation("51201", changes);
    expect(await fetcher.buoy("51201")).toMatchObject(expected);
    expect(logs.map((l) => l.fields?.problem)).toEqual(problem ? [problem] : []);
  });

  test("an unreachable host or a timeout is a failure, not an exception", async () => {
    const { fetcher, logs } = setUp(async () => {
      throw new TypeError("fetch failed");
    });
    expect(await fetcher.buoy("51201")).toEqual({ readings: [], state: "unavailable", failing: true });
    const slow = setUp(async (_url, init) => {
      await new Promise((_resolve, reject) => init.signal!.addEventListener("abort", () => reject(init.signal!.reason)));
      return new Response("");
    }, 50);
    expect(await slow.fetcher.buoy("51201")).toMatchObject({ failing: true });
    expect(logs[0]!.fields!.problem).toBe("unreachable");
    expect(slow.logs[0]!.fields!.problem).toBe("timeout");
  });
});

describe("a point's buoy", () => {
  test("the nearest station with waves; the lighthouse nearer is passed over, and asked again only a day later", async () => {
    const { fetcher, advance } = setUp();
    const choice = await fetcher.nearestBuoy(PIPELINE.lat, PIPELINE.lng, 100);
    expect("buoy" in choice && choice.buoy.station.id).toBe("51201");
    expect("buoy" in choice && choice.buoy.distanceKm).toBeCloseTo(6.7, 0);
    // Mokapu, farther, was never asked for.
    expect(ndbc.requests.map((r) => r.path).sort()).toEqual(["/activestations.xml", spec("51201"), txt("51201"), spec("LITE1"), txt("LITE1")]);
    advance(HOUR_MS);
    await fetcher.nearestBuoy(PIPELINE.lat, PIPELINE.lng, 100);
    expect(ndbc.requestsFor(txt("LITE1"))).toHaveLength(1);
    expect(ndbc.requestsFor(txt("51201"))).toHaveLength(2);
  });

  test("the next station when the nearest buoy's file is missing; none in reach; no table", async () => {
    const { fetcher } = setUp();
    ndbc.setStation("51201", { files: "missing" });
    const choice = await fetcher.nearestBuoy(PIPELINE.lat, PIPELINE.lng, 100);
    expect("buoy" in choice && choice.buoy.station.id).toBe("51202");
    expect(await fetcher.nearestBuoy(PIPELINE.lat, PIPELINE.lng, 5)).toEqual({ reason: "no_buoy_in_reach" });
    expect(await fetcher.nearestBuoy(39.344, -9.363, 100)).toEqual({ reason: "no_buoy_in_reach" });
    const other = setUp();
    ndbc.setTable("unavailable");
    expect(await other.fetcher.nearestBuoy(PIPELINE.lat, PIPELINE.lng, 100)).toEqual({ reason: "source_unavailable" });
  });

  test("every buoy in reach unreadable: the source is unavailable", async () => {
    const { fetcher } = setUp();
    ndbc.setStation("51201", { files: "unavailable" });
    ndbc.setStation("51202", { files: "html" });
    expect(await fetcher.nearestBuoy(PIPELINE.lat, PIPELINE.lng, 100)).toEqual({ reason: "source_unavailable" });
  });
});
