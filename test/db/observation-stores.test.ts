/**
 * The observation stores keep what they are given alike: the same cases run against the in-memory store the room's
 * tests use, SQLite and PostgreSQL. Beyond that, what the engines add: what was written is there after a restart
 * (the fetcher then serves a buoy without asking NDBC again), writers on two connections at once all succeed, and of
 * two servers on one PostgreSQL database asking for a buoy at once, one fetches it.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import type { App } from "../../src/app";
import { ManualClock } from "../../src/core/clock";
import { closeDatabase, openDatabase } from "../../src/db";
import { closePostgres, openPostgres } from "../../src/db/postgres";
import { NdbcFetcher, type FetchTurn } from "../../src/observations/fetcher";
import { MemoryObservationStore } from "../../src/observations/memory-store";
import { drizzleObservationStore } from "../../src/observations/drizzle-store";
import { observationFetchTurn } from "../../src/server/observation-fetches";
import type { ObservationStore, StoredBuoy, StoredHindcast, StoredStationTable } from "../../src/observations/store";
import type { LeadForecast } from "../../src/observations/verification";
import { tempDir } from "../support/env";
import { startFakeNdbc } from "../support/fake-ndbc";
import { createTestDatabase, describeWithPostgres } from "../support/postgres";
import { sqliteDialect } from "../../src/db/store-dialect";
import { postgresDialect } from "../../src/db/postgres/store-dialect";

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A store on a fresh database, and how to reach that database again: after a restart, or from another connection. */
interface Opened {
  store: ObservationStore;
  /** Closes the store's connection and opens the database anew (null: the memory store keeps nothing). */
  restart: (() => Promise<ObservationStore>) | null;
  /** A store on a connection of its own, as another process or server would have (null: memory). */
  another: (() => Promise<ObservationStore>) | null;
}

function openSqlite(): Opened {
  const dir = tempDir("observation-stores");
  const open = () => {
    const db = openDatabase(dir);
    let closed = false;
    const close = async () => {
      if (!closed) closeDatabase(db);
      closed = true;
    };
    closing.push(close);
    return { store: drizzleObservationStore(sqliteDialect(db)), close };
  };
  let current = open();
  return {
    store: current.store,
    restart: async () => {
      await current.close();
      current = open();
      return current.store;
    },
    another: async () => open().store,
  };
}

async function openPostgresStore(): Promise<Opened> {
  const database = await createTestDatabase();
  closing.push(() => database.drop());
  const open = async () => {
    const pool = await openPostgres(database.url(), { max: 4 });
    let closed = false;
    const close = async () => {
      if (!closed) await closePostgres(pool);
      closed = true;
    };
    closing.push(close);
    return { store: drizzleObservationStore(postgresDialect(pool)), close };
  };
  let current = await open();
  return {
    store: current.store,
    restart: async () => {
      await current.close();
      current = await open();
      return current.store;
    },
    another: async () => (await open()).store,
  };
}

const engines: { name: string; open(): Promise<Opened> | Opened; describe: typeof describe }[] = [
  { name: "memory", open: () => ({ store: new MemoryObservationStore(), restart: null, another: null }), describe },
  { name: "SQLite", open: openSqlite, describe },
  { name: "PostgreSQL", open: openPostgresStore, describe: describeWithPostgres },
];

const T0 = Date.parse("2026-11-21T13:05:00Z");
const HOUR = 3_600_000;

const table: StoredStationTable = {
  checkedAt: T0,
  failure: null,
  table: {
    rows: [{ id: "51201", name: "Waimea Bay, HI (106)", lat: 21.671, lng: -158.118, owner: "PacIOOS", type: "buoy", met: true }],
    fetchedAt: T0,
    etag: '"abc"',
    lastModified: "Sat, 21 Nov 2026 12:00:00 GMT",
  },
};

const met = { time: T0 - HOUR, windDirection: null, windSpeed: null, windGust: null, waveHeight: 2.1, dominantPeriod: 14, averagePeriod: 9.2, waveDirection: 310, pressure: null, airTemperature: null, waterTemperature: 25.4 };
const spec = { time: T0 - HOUR, waveHeight: 2.1, swellHeight: 1.9, swellPeriod: 14.3, swellDirection: 315, windWaveHeight: 0.6, windWavePeriod: 5.9, windWaveDirection: 68, averagePeriod: 9.2, waveDirection: 310 };

const buoy = (id: string, checkedAt = T0): StoredBuoy => ({
  id,
  checkedAt,
  failure: { since: checkedAt - HOUR, failures: 2, problem: "http 503" },
  met: { rows: [met], fetchedAt: checkedAt - HOUR, etag: null, lastModified: "Sat, 21 Nov 2026 12:00:00 GMT" },
  spec: null,
  missing: false,
});

const position = { lat: 21.671, lng: -158.118 };
const hindcast: StoredHindcast = { position, checkedAt: T0, fetchedAt: T0, hours: { time: [T0, T0 + HOUR], waveHeight: { ecmwf_wam025: [1.5, null], gfs_wave025: [1.7, 1.8] } } };

const forecast = (model: string, issuedAt: number, time: number, waveHeight: number): LeadForecast => ({ model, issuedAt, time, waveHeight });
/** Neither store promises an order. */
const sorted = (forecasts: LeadForecast[]) => [...forecasts].sort((a, b) => a.time - b.time || a.issuedAt - b.issuedAt || a.model.localeCompare(b.model));

for (const engine of engines) {
  engine.describe(`the observation store on ${engine.name}`, () => {
    test("nothing is stored at first", async () => {
      const { store } = await engine.open();
      expect(await store.stationTable()).toBeNull();
      expect(await store.buoy("51201")).toBeNull();
      expect(await store.hindcast("51201")).toBeNull();
      expect(await store.leadForecasts("51201", 0, T0)).toEqual([]);
    });

    test("each source is read back as it was saved, a second save replaces it, and each buoy is kept apart", async () => {
      const { store } = await engine.open();
      await store.saveStationTable(table);
      await store.saveBuoy(buoy("51201"));
      await store.saveBuoy({ ...buoy("51202"), spec: { rows: [spec], fetchedAt: T0, etag: '"s"', lastModified: null }, failure: null });
      await store.saveHindcast("51201", hindcast);
      expect(await store.stationTable()).toEqual(table);
      expect(await store.buoy("51201")).toEqual(buoy("51201"));
      expect((await store.buoy("51202"))?.spec?.rows).toEqual([spec]);
      expect(await store.hindcast("51201")).toEqual(hindcast);
      expect(await store.hindcast("51202")).toBeNull();

      const failed: StoredStationTable = { ...table, checkedAt: T0 + HOUR, failure: { since: T0 + HOUR, failures: 1, problem: "html" } };
      await store.saveStationTable(failed);
      await store.saveBuoy({ id: "51201", checkedAt: T0 + HOUR, failure: null, met: null, spec: null, missing: true });
      await store.saveHindcast("51201", { position, checkedAt: T0 + HOUR, fetchedAt: null, hours: null });
      expect(await store.stationTable()).toEqual(failed);
      expect(await store.buoy("51201")).toEqual({ id: "51201", checkedAt: T0 + HOUR, failure: null, met: null, spec: null, missing: true });
      expect(await store.hindcast("51201")).toEqual({ position, checkedAt: T0 + HOUR, fetchedAt: null, hours: null });
      // The buoys in use: those whose hindcast was attempted since a time; a source of another kind is none.
      await store.saveHindcast("46026", { ...hindcast, checkedAt: T0 - 3 * HOUR });
      expect(await store.hindcastBuoys(T0)).toEqual(["51201"]);
      expect(await store.hindcastBuoys(T0 - 3 * HOUR)).toEqual(["46026", "51201"]);
      expect((await store.buoy("51202"))?.id).toBe("51202");
    });

    test("issued forecasts: one per model, issue and hour, read by hour from inclusive to exclusive, those before keepFrom dropped", async () => {
      const { store } = await engine.open();
      const issued = T0 - 48 * HOUR;
      await store.addLeadForecasts("51201", [forecast("gfs_wave025", issued, T0 - HOUR, 1.2), forecast("gfs_wave025", issued, T0, 1.3), forecast("ecmwf_wam025", issued, T0, 1.1)], 0);
      await store.addLeadForecasts("51202", [forecast("gfs_wave025", issued, T0, 9)], 0);
      // The same model, issue and hour again replaces it; a later issue of the same hour is another forecast.
      await store.addLeadForecasts("51201", [forecast("gfs_wave025", issued, T0, 1.4), forecast("gfs_wave025", issued + 24 * HOUR, T0, 1.5)], 0);
      expect(sorted(await store.leadForecasts("51201", T0 - HOUR, T0 + HOUR))).toEqual([
        forecast("gfs_wave025", issued, T0 - HOUR, 1.2),
        forecast("ecmwf_wam025", issued, T0, 1.1),
        forecast("gfs_wave025", issued, T0, 1.4),
        forecast("gfs_wave025", issued + 24 * HOUR, T0, 1.5),
      ]);
      expect(await store.leadForecasts("51201", T0 - HOUR, T0)).toEqual([forecast("gfs_wave025", issued, T0 - HOUR, 1.2)]);

      // Keeping from T0 drops the older hour of this buoy only, and a forecast given for an hour before is not kept.
      await store.addLeadForecasts("51201", [forecast("ecmwf_wam025", issued, T0 - 2 * HOUR, 0.9), forecast("ecmwf_wam025", issued, T0 + HOUR, 1.0)], T0);
      expect(sorted(await store.leadForecasts("51201", 0, T0 + 2 * HOUR)).map((f) => [f.model, f.time])).toEqual([
        ["ecmwf_wam025", T0],
        ["gfs_wave025", T0],
        ["gfs_wave025", T0],
        ["ecmwf_wam025", T0 + HOUR],
      ]);
      expect(await store.leadForecasts("51202", 0, T0 + HOUR)).toEqual([forecast("gfs_wave025", issued, T0, 9)]);
    });

    if (engine.name === "memory") return;

    test("what was written is there after a restart", async () => {
      const opened = await engine.open();
      await opened.store.saveStationTable(table);
      await opened.store.saveBuoy(buoy("51201"));
      await opened.store.saveHindcast("51201", hindcast);
      await opened.store.addLeadForecasts("51201", [forecast("gfs_wave025", T0 - 24 * HOUR, T0, 1.3)], 0);
      const store = await opened.restart!();
      expect(await store.stationTable()).toEqual(table);
      expect(await store.buoy("51201")).toEqual(buoy("51201"));
      expect(await store.hindcast("51201")).toEqual(hindcast);
      expect(await store.leadForecasts("51201", 0, T0 + HOUR)).toEqual([forecast("gfs_wave025", T0 - 24 * HOUR, T0, 1.3)]);
    });

    test("writers on two connections at once all succeed: each source ends as one of them saved it", async () => {
      const opened = await engine.open();
      const stores = [opened.store, await opened.another!()];
      const writes = Array.from({ length: 20 }, (_, i) => {
        const store = stores[i % 2]!;
        const hours = Array.from({ length: 48 }, (_, h) => forecast(i % 3 === 0 ? "ecmwf_wam025" : "gfs_wave025", T0, T0 + h * HOUR, i));
        return Promise.all([store.saveBuoy(buoy("51201", T0 + i)), store.addLeadForecasts("51201", hours, T0 + (i % 4) * HOUR), store.saveStationTable({ ...table, checkedAt: T0 + i })]);
      });
      await Promise.all(writes);
      expect((await opened.store.buoy("51201"))!.checkedAt - T0).toBeWithin(0, 20);
      expect((await opened.store.stationTable())!.checkedAt - T0).toBeWithin(0, 20);
      const kept = await opened.store.leadForecasts("51201", 0, T0 + 48 * HOUR);
      expect(new Set(kept.map((f) => `${f.model} ${f.time}`)).size).toBe(kept.length);
      expect(kept.length).toBeGreaterThanOrEqual(2 * 45);
    });
  });
}

const ndbc = await startFakeNdbc({ stations: [{ id: "51201", name: "Waimea Bay, HI (106)", lat: 21.671, lng: -158.118 }], now: () => T0 });
afterAll(() => ndbc.close());

describe("the fetcher over a database", () => {
  const PIPELINE = { lat: 21.665, lng: -158.053 };
  const clock = new ManualClock(T0);
  const fetcherOn = (store: ObservationStore, turn?: FetchTurn) =>
    new NdbcFetcher({ baseUrl: ndbc.url, publicUrl: "https://surf.example", fetch: (url, init) => globalThis.fetch(url, init), clock, store, logger: { info() {}, warn() {} }, turn });

  test("after a restart it serves the stored readings, and asks NDBC nothing before its half hour has passed", async () => {
    ndbc.reset();
    const opened = openSqlite();
    const before = await fetcherOn(opened.store).nearestBuoy(PIPELINE.lat, PIPELINE.lng, 100);
    const asked = ndbc.requests.length;
    clock.advance(10 * 60_000);
    const after = await fetcherOn(await opened.restart!()).nearestBuoy(PIPELINE.lat, PIPELINE.lng, 100);
    expect("view" in after && after.view.readings.length).toBeGreaterThan(0);
    expect(after).toEqual(before);
    expect(ndbc.requests.length).toBe(asked);
  });

  describeWithPostgres("on two servers sharing PostgreSQL", () => {
    test("asked for the same buoy at once, one of them fetches each file, and both serve its readings", async () => {
      ndbc.reset();
      const database = await createTestDatabase();
      closing.push(() => database.drop());
      const fetchers = await Promise.all(
        ["node-a", "node-b"].map(async (id) => {
          const db = await openPostgres(database.url(), { max: 4 });
          closing.push(() => closePostgres(db));
          // What onceAmongServers reads of an App: the engine, its pool and this server's id.
          const app = { engine: { kind: "postgres", db, node: { id } } } as unknown as App;
          return fetcherOn(drizzleObservationStore(postgresDialect(db)), observationFetchTurn(app, new AbortController().signal));
        }),
      );
      const [a, b] = await Promise.all(fetchers.map((fetcher) => fetcher.nearestBuoy(PIPELINE.lat, PIPELINE.lng, 100)));
      expect(["/activestations.xml", "/data/realtime2/51201.txt", "/data/realtime2/51201.spec"].map((path) => ndbc.requestsFor(path).length)).toEqual([1, 1, 1]);
      expect("view" in a! && a.view.readings.length).toBeGreaterThan(0);
      expect(b).toEqual(a!);
    });
  });
});
