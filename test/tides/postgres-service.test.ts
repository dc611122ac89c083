/**
 * The tide room on the shared PostgreSQL database: the same TideService over the PostgreSQL tide store fills the tide window
 * and answers `get`, `now` and `hourly` exactly as over SQLite, and serves its kept responses at once. Spots are a few
 * of CATALOG_PATH (a station coast, a coast no station serves, an import override), on both databases.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { DAY_MS, ManualClock } from "../../src/core/clock";
import { closeDatabase, openDatabase, type Db } from "../../src/db";
import { closePostgres, openPostgres, type PgDb } from "../../src/db/postgres";
import type { StoredSpot } from "../../src/spots/catalog";
import { postgresCatalog } from "../../src/spots/postgres-store";
import { sqliteCatalog } from "../../src/spots/sqlite-store";
import type { Spot } from "../../src/spots/types";
import { postgresTideStore } from "../../src/tides/postgres-store";
import { TideService, type WindowReport } from "../../src/tides/service";
import { sqliteTideStore } from "../../src/tides/sqlite-store";
import type { TideStore } from "../../src/tides/store";
import { windowAt } from "../../src/tides/window";
import type { SeaLevelSeries } from "../../src/tides/types";
import { atOnce } from "../support/at-once";
import { CATALOG_PATH, tempDir } from "../support/env";
import { catalogRecords, catalogSpot, fakeSpotService, type CatalogRecord } from "../support/fake-spots";
import { seaLevelSeries } from "../support/fake-sea-level";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../support/postgres";

const HOUR = 3_600_000;
/** A few days before the full moon of 2025-01-13 (spring tides in the span served). */
const START = Date.parse("2025-01-11T10:20:00Z");


/** Open coasts with stations, and Morocco's Atlantic coast (where the model serves the spots no station reaches). */
async function someSpots(): Promise<Spot[]> {
  const records = await catalogRecords();
  const named = (name: string, country: RegExp) => records.find((r) => r.name === name && country.test(r.country));
  const picked = [named("Pipeline", /Hawaii/), named("La Graviere", /France/), named("Praia da Nazaré", /Portugal/)];
  if (picked.some((r) => !r)) throw new Error("a named catalog spot is missing");
  const morocco = records.filter((r) => r.country.startsWith("Morocco") && Number(r.lng) < -6).slice(0, 8);
  return [...(picked as CatalogRecord[]), ...morocco].map(catalogSpot);
}

/** A week of the fake model's hourly sea level at a spot, from 00:00 UTC of `now`'s day (what a refresh fetches). */
function modelWeek(spot: Pick<Spot, "lat" | "lng">, now: number): SeaLevelSeries {
  const time = Array.from({ length: 168 }, (_, i) => Math.floor(now / DAY_MS) * DAY_MS + i * HOUR);
  return { time, values: seaLevelSeries(spot.lat, spot.lng, time) };
}

const stored = (spot: Spot, tideless: boolean | null = null): StoredSpot => ({ ...spot, aliases: [], facing: null, tideless });

describeWithPostgres("TideService over PostgreSQL", () => {
  const clock = new ManualClock(START);
  let spots: Spot[];
  let sqlite: Db;
  let database: TestDatabase;
  let postgres: PgDb;
  let sqliteStore: TideStore;
  let postgresStore: TideStore;
  let overSqlite: TideService;
  let overPostgres: TideService;
  const reports: { sqlite?: WindowReport | null; postgres?: WindowReport | null } = {};

  /** Adds spots to the catalog on both databases (the last one with an import override: tideless). */
  async function importSpots(added: Spot[], tidelessLast = false): Promise<void> {
    const plan = { add: added.map((s, i) => stored(s, tidelessLast && i === added.length - 1 ? true : null)), update: [], remove: [] };
    await sqliteCatalog(sqlite).applyImport(plan, { kind: "import" });
    await postgresCatalog(postgres, () => true).applyImport(plan, { kind: "import" });
    spots.push(...added);
  }

  beforeAll(async () => {
    const catalog = await someSpots();
    spots = [];
    sqlite = openDatabase(tempDir("tides-postgres"));
    database = await createTestDatabase();
    postgres = await openPostgres(database.url(), { max: 4 });
    // The last spot is the one added later (on demand); the one before it carries the import override.
    await importSpots(catalog.slice(0, -1), true);
    sqliteStore = sqliteTideStore(sqlite);
    // One server here: no other server's commits to notice.
    postgresStore = postgresTideStore(postgres, { generation: () => 0 });
    overSqlite = new TideService(sqliteStore, clock, fakeSpotService(spots));
    overPostgres = new TideService(postgresStore, clock, fakeSpotService(spots));
    reports.sqlite = await overSqlite.maintainWindow();
    reports.postgres = await overPostgres.maintainWindow();
  }, 60_000);

  afterAll(async () => {
    overSqlite?.close();
    overPostgres?.close();
    if (postgres) await closePostgres(postgres);
    await database?.drop();
    if (sqlite) closeDatabase(sqlite);
  });

  test("the window pass fills the window: the same choices and extremes as on SQLite", async () => {
    const { ms: _sqliteMs, ...fromSqlite } = reports.sqlite!;
    const { ms: _postgresMs, ...fromPostgres } = reports.postgres!;
    expect(fromPostgres).toEqual(fromSqlite);
    expect(fromPostgres).toMatchObject({ spots: spots.length, chosen: spots.length });
    expect(fromPostgres.extended).toBeGreaterThan(2);
    const window = windowAt(START);
    expect(await postgresStore.window()).toEqual(window);
    expect(await overPostgres.windowEnd()).toBe(window.end);
    expect(await postgresStore.allChoices()).toEqual(await sqliteStore.allChoices());
    for (const spot of spots) {
      const extremes = await postgresStore.extremes(spot.id, window.start, window.end);
      expect({ spot: spot.name, extremes }).toEqual({ spot: spot.name, extremes: await sqliteStore.extremes(spot.id, window.start, window.end) });
    }
    expect((await postgresStore.extremes(spots[0]!.id, window.start, window.end)).length).toBeGreaterThan(15);
  });

  /** Every spot's `get` (1 and 7 days), `now` at a few minutes and `hourly` over two days, on both, compared. */
  async function expectSameAnswers(seaLevelOf?: (spot: Spot) => SeaLevelSeries): Promise<void> {
    const hours = Array.from({ length: 48 }, (_, i) => Date.parse("2025-01-11T00:00:00Z") + i * HOUR);
    for (const spot of spots) {
      for (const days of [1, 7]) {
        const fromPostgres = await overPostgres.get(spot.id, days);
        expect({ spot: spot.name, days, tides: fromPostgres }).toEqual({ spot: spot.name, days, tides: (await overSqlite.get(spot.id, days)) });
        // Kept and served again at once, as over SQLite, once computed without writing (a computation that chose a
        // station or predicted extremes moved the stamp past the one it read at).
        const kept = await overPostgres.get(spot.id, days);
        expect(atOnce(overPostgres.get(spot.id, days))).toBe(kept);
      }
      for (const at of [START, START + 5 * HOUR + 37 * 60_000, START + 2 * DAY_MS]) {
        expect({ spot: spot.name, at, now: await overPostgres.now(spot.id, at) }).toEqual({ spot: spot.name, at, now: (await overSqlite.now(spot.id, at)) });
      }
      const seaLevel = seaLevelOf?.(spot);
      expect({ spot: spot.name, hourly: await overPostgres.hourly(spot.id, hours, seaLevel) }).toEqual({ spot: spot.name, hourly: (await overSqlite.hourly(spot.id, hours, seaLevel)) });
    }
  }

  test("get, now and hourly answer as over SQLite; kept responses answer at once", async () => {
    await expectSameAnswers();
    const served = await Promise.all(spots.map((s) => overPostgres.get(s.id, 7)));
    expect(served.filter((t) => t.source?.type === "station").length).toBeGreaterThanOrEqual(3);
    expect(served.filter((t) => t.tideless).map((t) => t.tidelessReason)).toContain("override: tideless (set by import)");
  });

  test("the sea-level model's readings are stored as on SQLite, and model-served spots answer alike", async () => {
    const waiting = (await Promise.all(spots.map(async (s) => ((await overPostgres.get(s.id, 7)).unavailable === "awaiting_model" ? s : null)))).filter((s) => s !== null);
    expect(waiting.length).toBeGreaterThan(0);
    const series = new Map(spots.map((s) => [s.id, modelWeek(s, clock.now())]));
    const entries = spots.map((s) => ({ spotId: s.id, series: series.get(s.id)! }));
    (await overSqlite.acceptSeaLevel(entries));
    await overPostgres.acceptSeaLevel(entries);
    for (const spot of spots) expect({ spot: spot.name, model: await postgresStore.model(spot.id) }).toEqual({ spot: spot.name, model: await sqliteStore.model(spot.id) });
    for (const spot of waiting) expect((await overPostgres.get(spot.id, 7)).source?.type).toBe("model");
    await expectSameAnswers((spot) => series.get(spot.id)!);
  });

  test("a spot imported later is chosen and predicted on demand, as on SQLite", async () => {
    const later = (await someSpots()).at(-1)!;
    await importSpots([later]);
    expect(await postgresStore.choice(later.id)).toBeNull();
    clock.advance(HOUR);
    await expectSameAnswers();
    expect(await postgresStore.choice(later.id)).toEqual(await sqliteStore.choice(later.id));
  });
});
