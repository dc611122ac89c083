/**
 * The PostgreSQL stores answer as the SQLite ones: the same calls against a fresh database of each give equal
 * results. Beyond that, what several servers on one database rely on: a batch is all or nothing, two pools writing
 * the same rows at once both succeed while readers never see half a batch, imports and `meta` values set at once
 * settle on one, and forecast bodies keep every byte.
 */
import { afterEach, expect, test } from "bun:test";
import { closeDatabase, openDatabase, type Db } from "../../src/db";
import { packDocument } from "../../src/db/document-codec";
import { closePostgres, openPostgres, type PgDb } from "../../src/db/postgres";
import { postgresDialect } from "../../src/db/postgres/store-dialect";
import { metaStore } from "../../src/db/store-dialect";
import { postgresForecastStore } from "../../src/forecast/postgres-store";
import { sqliteForecastStore } from "../../src/forecast/sqlite-store";
import type { ForecastStore } from "../../src/forecast/store";
import type { StoredSpot } from "../../src/spots/catalog";
import { postgresCatalog } from "../../src/spots/postgres-store";
import { sqliteCatalog } from "../../src/spots/sqlite-store";
import type { CatalogStore } from "../../src/spots/store";
import { postgresTideStore } from "../../src/tides/postgres-store";
import type { StationRecord } from "../../src/tides/record";
import { sqliteTideStore } from "../../src/tides/sqlite-store";
import type { StoredChoice, StoredModel, TideStore, TideWrites } from "../../src/tides/store";
import { tempDir } from "../support/env";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../support/postgres";
import { waitFor } from "../support/wait";

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A fresh SQLite data directory and a fresh PostgreSQL database, closed and dropped after the test. */
async function freshDatabases(): Promise<{ sqlite: Db; postgres: PgDb; database: TestDatabase }> {
  const sqlite = openDatabase(tempDir("pg-stores"));
  const database = await createTestDatabase();
  closing.push(() => database.drop());
  const postgres = await anotherPool(database);
  closing.push(async () => closeDatabase(sqlite));
  return { sqlite, postgres, database };
}

/** A pool of its own on `database`, as another server would have (small: the PostgreSQL server is shared). */
async function anotherPool(database: TestDatabase): Promise<PgDb> {
  const pool = await openPostgres(database.url(), { max: 4 });
  closing.push(() => closePostgres(pool));
  return pool;
}

/** The catalog on a pool, as a server holds it (changes noticed or not: these tests load explicitly). */
const catalogOn = (db: PgDb) => postgresCatalog(db, () => true);

// ── parity tables ─────────────────────────────────────────────────────────────────────────────────

/** A row of a parity table: one call made on both sides, or a step written out per side. */
type Row<Call> = Call | { step: string; sqlite(): unknown; postgres(): Promise<unknown> };
/** A call of one of a store's methods. */
type MethodCall<Store> = { [K in keyof Store]: Store[K] extends (...args: infer A) => unknown ? { fn: K; args: A; unordered?: true } : never }[keyof Store];

type Invoke = (fn: PropertyKey, args: readonly unknown[]) => unknown;
const invoke = (target: object, fn: PropertyKey, args: readonly unknown[]) => (target as Record<PropertyKey, (...a: readonly unknown[]) => unknown>)[fn]!(...args);

/** Runs the rows in order on both sides and expects each result of PostgreSQL to equal SQLite's. */
async function expectParity(rows: readonly Row<{ fn: PropertyKey; args: readonly unknown[]; unordered?: true }>[], sqlite: Invoke, postgres: Invoke): Promise<void> {
  for (const [i, row] of rows.entries()) {
    const name = `${i}: ${"step" in row ? row.step : String(row.fn)}`;
    const [fromSqlite, fromPostgres] = "step" in row ? [await row.sqlite(), await row.postgres()] : [await sqlite(row.fn, row.args), await postgres(row.fn, row.args)];
    const unordered = "unordered" in row && row.unordered === true;
    expect({ call: name, result: comparable(fromPostgres, unordered) }).toEqual({ call: name, result: comparable(fromSqlite, unordered) });
  }
}

const order = (a: unknown, b: unknown) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0);

/** Maps and sets as sorted arrays (neither side promises an order); a list the function does not order, sorted too. */
function comparable(value: unknown, unordered: boolean): unknown {
  if (value instanceof Map) return [...value].sort(([a], [b]) => order(a, b));
  if (value instanceof Set) return [...value].sort(order);
  if (unordered && Array.isArray(value)) return [...value].sort((a, b) => order(JSON.stringify(a), JSON.stringify(b)));
  return value;
}

// ── fixtures ──────────────────────────────────────────────────────────────────────────────────────

const spot = (id: string, hex: number, fields: Partial<StoredSpot> = {}): StoredSpot => ({
  id,
  hexId: hex.toString(16).padStart(16, "0"),
  name: id[0]!.toUpperCase() + id.slice(1),
  country: "Portugal",
  region: null,
  lat: 38.676_912_345_678_9 + hex / 1000,
  lng: -9.335_123_456_789 - hex / 1000,
  aliases: [],
  facing: null,
  tideless: null,
  ...fields,
});

const SPOTS = [
  spot("carcavelos", 1, { region: "Lisbon", aliases: ["carca", "Carcavelos Beach"], facing: 200.5 }),
  spot("ericeira", 2, { tideless: false }),
  spot("nazare", 3, { name: "Nazaré", aliases: ["praia do norte"], tideless: true }),
  spot("peniche", 4),
];
const SEED = { add: SPOTS, update: [], remove: [] };

const documentJson = (id: string, run: number) =>
  JSON.stringify({ spot: id, run, hours: Array.from({ length: 48 }, (_, h) => ({ h, wave: 1.25 + h / 100, period: 11.5, note: "ñ 🌊 \u0000-free" })) });

const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 0, 1);
const extremesFrom = (start: number, n: number, base: number) =>
  Array.from({ length: n }, (_, i) => ({ time: start + i * 6.2 * HOUR, type: i % 2 === 0 ? ("high" as const) : ("low" as const), height: base + (i % 2 === 0 ? 1.234_56 : -0.987_65) }));

const stationChoice: StoredChoice = { tideless: false, stationId: "noaa/9410230", stationName: "La Jolla", stationSource: "noaa", distanceKm: 12.3, datum: "MLLW", reason: "nearest" };
const tidelessChoice: StoredChoice = { tideless: true, stationId: null, stationName: null, stationSource: null, distanceKm: null, datum: null, reason: "lake" };
const reading: StoredModel = { hasData: true, rangeM: 3.21, windowRangeM: 2.5, stationRangeM: null, since: T0, fetchedAt: T0 + HOUR };
const record: StationRecord = { id: "noaa/9410230", type: "reference", chart_datum: "MLLW", datums: { MLLW: 0, MSL: 0.83 }, harmonic_constituents: [{ name: "M2", amplitude: 0.51, phase: 142.7 }] };

describeWithPostgres("the PostgreSQL stores", () => {
  test("the spot store: imports, the catalog and the facts other rooms derive, as on SQLite", async () => {
    const { sqlite, postgres } = await freshDatabases();
    const carcavelos = SPOTS[0]!;
    const rows: Row<MethodCall<Omit<CatalogStore, "changed" | "synchronous">>>[] = [
      { fn: "readState", args: [] },
      { fn: "readCatalogVersion", args: [] },
      { fn: "loadCatalog", args: [] },
      { fn: "applyImport", args: [SEED, { kind: "default", defaultSha256: "sha-1" }] },
      { fn: "readState", args: [] },
      { fn: "loadSpots", args: [] },
      { fn: "readCatalogVersion", args: [] },
      { fn: "loadDerivedFacts", args: [] },
      { fn: "derivedFactsVersion", args: [] },
      {
        fn: "applyImport",
        args: [
          {
            add: [spot("supertubos", 5, { aliases: ["supers"] })],
            update: [{ ...carcavelos, name: "Carcavelos Praia", aliases: ["carca"], facing: null, tideless: false }],
            remove: ["peniche"],
          },
          { kind: "import" },
        ],
      },
      { fn: "loadSpots", args: [] },
      {
        step: "facings and tide choices written by the other rooms",
        sqlite: async () => {
          await sqliteForecastStore(sqlite).writeFacings([{ spotId: "carcavelos", facing: 201.25, method: "coast", computedAt: T0 }]);
          await sqliteTideStore(sqlite).putChoice("ericeira", stationChoice, T0 + 5);
          await sqliteTideStore(sqlite).putChoice("nazare", tidelessChoice, T0 + 7);
        },
        postgres: async () => {
          const tides = postgresTideStore(postgres, { generation: () => 0 });
          await postgresForecastStore(postgres).writeFacings([{ spotId: "carcavelos", facing: 201.25, method: "coast", computedAt: T0 }]);
          await tides.putChoice("ericeira", stationChoice, T0 + 5);
          await tides.putChoice("nazare", tidelessChoice, T0 + 7);
        },
      },
      { fn: "loadDerivedFacts", args: [] },
      { fn: "derivedFactsVersion", args: [] },
      { fn: "loadCatalog", args: [] },
      { fn: "readState", args: [] },
    ];
    await expectParity(
      rows,
      (fn, args) => invoke(sqliteCatalog(sqlite), fn, args),
      (fn, args) => invoke(catalogOn(postgres), fn, args),
    );
    expect((await catalogOn(postgres).loadCatalog()).version).toBe("2");
  });

  test("the forecast store: documents, ages, facings, demand and the refresh's facts, as on SQLite", async () => {
    const { sqlite, postgres } = await freshDatabases();
    const rows: Row<MethodCall<ForecastStore>>[] = [
      { step: "seed the spots", sqlite: () => sqliteCatalog(sqlite).applyImport(SEED, { kind: "default" }), postgres: () => catalogOn(postgres).applyImport(SEED, { kind: "default" }) },
      { fn: "documentSpan", args: [] },
      { fn: "dataMode", args: [] },
      { fn: "lastRefresh", args: [] },
      { fn: "readDocument", args: ["carcavelos"] },
      {
        fn: "writeDocuments",
        args: [
          T0,
          [
            { spotId: "carcavelos", body: documentJson("carcavelos", 1) },
            { spotId: "ericeira", body: documentJson("ericeira", 1) },
          ],
        ],
      },
      { fn: "readDocument", args: ["carcavelos"] },
      { fn: "readDocument", args: ["peniche"] },
      { fn: "documentAges", args: [] },
      {
        fn: "writeDocuments",
        args: [
          T0 + HOUR,
          [
            { spotId: "nazare", body: packDocument(documentJson("nazare", 2)) },
            { spotId: "carcavelos", body: documentJson("carcavelos", 2) },
            { spotId: "carcavelos", body: documentJson("carcavelos", 3) },
          ],
        ],
      },
      { fn: "readDocument", args: ["carcavelos"] },
      { fn: "readDocument", args: ["nazare"] },
      { fn: "readDocument", args: ["ericeira"] },
      { fn: "documentAges", args: [] },
      { fn: "documentSpan", args: [] },
      { fn: "dataMode", args: [] },
      { fn: "recordDataMode", args: ["demo"] },
      { fn: "dataMode", args: [] },
      { fn: "spotsWithFacing", args: ["coast"] },
      {
        fn: "writeFacings",
        args: [
          [
            { spotId: "carcavelos", facing: 201.25, method: "coast", computedAt: T0 },
            { spotId: "ericeira", facing: null, method: "coast", computedAt: T0 },
            { spotId: "nazare", facing: 290.125, method: "manual", computedAt: T0 },
            { spotId: "ericeira", facing: 275.5, method: "coast", computedAt: T0 + 1 },
          ],
        ],
      },
      { fn: "spotsWithFacing", args: ["coast"] },
      { fn: "storedFacings", args: [], unordered: true },
      {
        fn: "writeDemand",
        args: [
          [
            { spotId: "carcavelos", requestedAt: T0 },
            { spotId: "peniche", requestedAt: T0 + 2 * HOUR },
          ],
        ],
      },
      { fn: "writeDemand", args: [[{ spotId: "carcavelos", requestedAt: T0 + 3 * HOUR }]] },
      { fn: "demandedSince", args: [T0 + HOUR] },
      { fn: "demandedSince", args: [T0] },
      { fn: "recordRefresh", args: [{ at: new Date(T0).toISOString(), outcome: "partial", spots: 4, ok: 3, failed: 1, durationMs: 1234, reason: "upstream 503" }] },
      { fn: "lastRefresh", args: [] },
      { fn: "retryAt", args: [] },
      { fn: "recordRetryAt", args: [new Date(T0 + HOUR)] },
      { fn: "retryAt", args: [] },
      { fn: "recordRetryAt", args: [null] },
      { fn: "retryAt", args: [] },
    ];
    await expectParity(
      rows,
      (fn, args) => invoke(sqliteForecastStore(sqlite), fn, args),
      (fn, args) => invoke(postgresForecastStore(postgres), fn, args),
    );
  });

  test("the tide store: choices, overrides, extremes, model readings, station records, the window and the rule, as on SQLite", async () => {
    const { sqlite, postgres } = await freshDatabases();
    await sqliteCatalog(sqlite).applyImport(SEED, { kind: "default" });
    await catalogOn(postgres).applyImport(SEED, { kind: "default" });
    const fromSqlite = sqliteTideStore(sqlite);
    const fromPostgres = postgresTideStore(postgres, { generation: () => 0 });
    const batchOfChoicesAndExtremes = async (store: TideWrites) => {
      await store.putChoice("peniche", stationChoice, T0 + 3);
      await store.putExtremes("peniche", T0, T0 + 48 * HOUR, extremesFrom(T0 + 2 * HOUR, 4, 1.5));
      await store.prune(T0 + 6 * HOUR);
    };
    const rows: Row<MethodCall<Omit<TideStore, "stamp" | "batch">>>[] = [
      { fn: "window", args: [] },
      { fn: "rule", args: [] },
      { fn: "choice", args: ["carcavelos"] },
      { fn: "allChoices", args: [] },
      { fn: "override", args: ["nazare"] },
      { fn: "override", args: ["ericeira"] },
      { fn: "override", args: ["peniche"] },
      { fn: "overrides", args: [] },
      { fn: "setRule", args: ["nearest-within-100km"] },
      { fn: "rule", args: [] },
      { fn: "setWindow", args: [{ start: T0 - 24 * HOUR, end: T0 + 9 * 24 * HOUR }] },
      { fn: "window", args: [] },
      { fn: "putChoice", args: ["carcavelos", stationChoice, T0] },
      { fn: "putChoice", args: ["nazare", tidelessChoice, T0] },
      { fn: "choice", args: ["carcavelos"] },
      { fn: "choice", args: ["nazare"] },
      { fn: "allChoices", args: [] },
      // The last of two extremes at one time is kept, as row-by-row upserts keep it.
      { fn: "putExtremes", args: ["carcavelos", T0, T0 + 48 * HOUR, [...extremesFrom(T0, 7, 1), { time: T0, type: "low", height: 0.123_456 }]] },
      { fn: "extremes", args: ["carcavelos", T0, T0 + 48 * HOUR] },
      { fn: "extremes", args: ["carcavelos", T0 + 10 * HOUR, T0 + 20 * HOUR] },
      { fn: "nextExtremeTime", args: ["carcavelos", T0 + HOUR] },
      { fn: "nextExtremeTime", args: ["carcavelos", T0 + 100 * HOUR] },
      { fn: "putExtremes", args: ["carcavelos", T0 + 12 * HOUR, T0 + 30 * HOUR, extremesFrom(T0 + 13 * HOUR, 2, 2)] },
      { fn: "extremes", args: ["carcavelos", T0, T0 + 48 * HOUR] },
      { fn: "putExtremes", args: ["ericeira", T0, T0 + 48 * HOUR, extremesFrom(T0 + HOUR, 3, 0.5)] },
      { fn: "putChoice", args: ["ericeira", tidelessChoice, T0 + 1] },
      { fn: "extremes", args: ["ericeira", T0, T0 + 48 * HOUR] },
      { fn: "model", args: ["peniche"] },
      { fn: "putModel", args: ["peniche", reading, T0, extremesFrom(T0, 5, 0.2)] },
      { fn: "model", args: ["peniche"] },
      { fn: "modelExtremes", args: ["peniche", T0, T0 + 48 * HOUR] },
      { fn: "putModel", args: ["peniche", { ...reading, stationRangeM: 2.75, fetchedAt: T0 + 2 * HOUR }, T0 + 12 * HOUR, extremesFrom(T0 + 14 * HOUR, 2, 0.3)] },
      { fn: "model", args: ["peniche"] },
      { fn: "modelExtremes", args: ["peniche", T0, T0 + 48 * HOUR] },
      { fn: "nextModelExtremeTime", args: ["peniche", T0 + 7 * HOUR] },
      { fn: "stationRecord", args: [record.id] },
      { fn: "putStationRecord", args: [record] },
      { fn: "stationRecord", args: [record.id] },
      {
        step: "a batch of choices and extremes",
        sqlite: () => fromSqlite.batch(batchOfChoicesAndExtremes),
        postgres: () => fromPostgres.batch(batchOfChoicesAndExtremes),
      },
      { fn: "extremes", args: ["peniche", T0, T0 + 48 * HOUR] },
      { fn: "extremes", args: ["carcavelos", T0, T0 + 48 * HOUR] },
      { fn: "modelExtremes", args: ["peniche", T0, T0 + 48 * HOUR] },
      { fn: "forgetChoices", args: [] },
      { fn: "allChoices", args: [] },
      { fn: "stationRecord", args: [record.id] },
      { fn: "window", args: [] },
    ];
    await expectParity(
      rows,
      (fn, args) => invoke(fromSqlite, fn, args),
      (fn, args) => invoke(fromPostgres, fn, args),
    );
  });

  test("the tide stamp moves with each committed write and each commit noticed from another server, not with reads", async () => {
    const { postgres } = await freshDatabases();
    await catalogOn(postgres).applyImport(SEED, { kind: "default" });
    let noticed = 0;
    const store = postgresTideStore(postgres, { generation: () => noticed });
    const initial = store.stamp();
    await store.choice("carcavelos");
    await store.extremes("carcavelos", T0, T0 + HOUR);
    expect(store.stamp()).toBe(initial);
    await store.putChoice("carcavelos", stationChoice, T0);
    const afterWrite = store.stamp();
    expect(afterWrite).toBeGreaterThan(initial);
    noticed++;
    expect(store.stamp()).toBeGreaterThan(afterWrite);
    const beforeBatch = store.stamp();
    await store.batch((batch) => batch.putExtremes("carcavelos", T0, T0 + 48 * HOUR, extremesFrom(T0, 2, 1)));
    expect(store.stamp()).toBeGreaterThan(beforeBatch);
  });

  test("a batch is all or nothing: a failing row leaves the rows before it unwritten, across statements", async () => {
    const { postgres } = await freshDatabases();
    // More documents than one statement may bind (65,535 parameters, 3 per document), so the batch takes two.
    const ids = Array.from({ length: Math.floor(65_535 / 3) + 1 }, (_, i) => `s${String(i).padStart(5, "0")}`);
    await catalogOn(postgres).applyImport({ add: ids.map((id, i) => spot(id, i + 1)), update: [], remove: [] }, { kind: "import" });
    await postgresForecastStore(postgres).writeDocuments(T0, [{ spotId: ids[0]!, body: documentJson(ids[0]!, 1) }]);
    // A spot that does not exist sorts after every real one: it fails in the batch's second statement.
    const batch = [...ids, "zz-no-such-spot"].map((spotId) => ({ spotId, body: `{"spot":"${spotId}"}` }));
    await expect(postgresForecastStore(postgres).writeDocuments(T0 + HOUR, batch)).rejects.toThrow();
    expect(await postgresForecastStore(postgres).documentAges()).toEqual(new Map([[ids[0]!, T0]]));
    expect((await postgresForecastStore(postgres).readDocument(ids[0]!))?.body).toBe(documentJson(ids[0]!, 1));

    // A tide batch of several writes, failing on its last.
    const tides = postgresTideStore(postgres, { generation: () => 0 });
    await tides.putChoice(ids[1]!, stationChoice, T0);
    await tides.putExtremes(ids[1]!, T0, T0 + 48 * HOUR, extremesFrom(T0, 3, 1));
    const failing = tides.batch(async (store) => {
      await store.putChoice(ids[1]!, tidelessChoice, T0 + 1);
      await store.putModel(ids[2]!, reading, T0, extremesFrom(T0, 2, 0));
      await store.putChoice("zz-no-such-spot", stationChoice, T0 + 1);
    });
    await expect(failing).rejects.toThrow();
    expect(await tides.choice(ids[1]!)).toEqual(stationChoice);
    expect(await tides.extremes(ids[1]!, T0, T0 + 48 * HOUR)).toHaveLength(3);
    expect(await tides.model(ids[2]!)).toBeNull();

    // An import whose last add collides with a stored spot: its update and removal are undone too.
    const before = await catalogOn(postgres).loadCatalog();
    const collides = { ...spot("newcomer", 1), hexId: spot(ids[0]!, 1).hexId };
    const importing = catalogOn(postgres).applyImport({ add: [spot("fine", 999_999), collides], update: [{ ...spot(ids[1]!, 2), name: "Renamed", aliases: ["x"] }], remove: [ids[3]!] }, { kind: "import" });
    await expect(importing).rejects.toThrow();
    expect(await catalogOn(postgres).loadCatalog()).toEqual(before);
  });

  test("two servers writing the same documents at once both succeed, one after the other; readers never see half a batch", async () => {
    const { postgres: first, database } = await freshDatabases();
    const second = await anotherPool(database);
    const ids = Array.from({ length: 200 }, (_, i) => `spot-${String(i).padStart(3, "0")}`);
    await catalogOn(first).applyImport({ add: ids.map((id, i) => spot(id, i + 1)), update: [], remove: [] }, { kind: "import" });
    const batch = (updatedAt: number, order: readonly string[]) => order.map((spotId) => ({ spotId, body: `{"at":${updatedAt}}` }));

    // One server's batch holds its rows until it commits: the other's waits for it, then writes over all of them.
    const finished: string[] = [];
    let written = false;
    const lockWaits = async () => ((await database.sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`) as { n: number }[])[0]!.n;
    const holding = first.transaction(async (tx) => {
      await postgresForecastStore(tx).writeDocuments(1, batch(1, ids));
      written = true;
      await waitFor("the other server's batch to wait for this one's rows", async () => (await lockWaits()) > 0);
      finished.push("first");
    });
    await waitFor("the first batch to hold its rows", () => written);
    const waiting = postgresForecastStore(second).writeDocuments(2, batch(2, ids.toReversed())).then(() => finished.push("second"));
    await Promise.all([holding, waiting]);
    expect(finished).toEqual(["first", "second"]);
    expect(new Set((await postgresForecastStore(first).documentAges()).values())).toEqual(new Set([2]));

    // Rounds of batches in opposite orders from both pools, read meanwhile: none fails, every read sees one batch.
    const seen: number[][] = [];
    let writing = true;
    const reading = (async () => {
      while (writing) seen.push([...new Set((await postgresForecastStore(second).documentAges()).values())]);
    })();
    try {
      for (let round = 0; round < 15; round++) {
        const shuffled = ids.toSorted(() => Math.random() - 0.5);
        await Promise.all([postgresForecastStore(first).writeDocuments(10 + 2 * round, batch(10 + 2 * round, shuffled)), postgresForecastStore(second).writeDocuments(11 + 2 * round, batch(11 + 2 * round, shuffled.toReversed()))]);
      }
    } finally {
      writing = false;
      await reading;
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((ages) => ages.length !== 1)).toEqual([]);
  });

  test("two servers seeding the empty catalog at once: one seeds, the other's check then finds it done", async () => {
    const { postgres: first, database } = await freshDatabases();
    const second = await anotherPool(database);
    const seed = (db: PgDb) => catalogOn(db).applyImport(SEED, { kind: "default", defaultSha256: "sha-1" }, (state) => state.spotCount === 0);
    expect((await Promise.all([seed(first), seed(second)])).toSorted()).toEqual([false, true]);
    expect((await catalogOn(first).readState()).spotCount).toBe(SPOTS.length);
    expect(await catalogOn(second).readCatalogVersion()).toBe("1");
  });

  test("meta: the first of two servers storing a value at once wins, both read it; null removes a key", async () => {
    const { postgres: first, database } = await freshDatabases();
    const second = await anotherPool(database);
    const [one, two] = [metaStore(postgresDialect(first)), metaStore(postgresDialect(second))];
    const [a, b] = await Promise.all([one.once("node.secret", () => "from-first"), two.once("node.secret", () => "from-second")]);
    expect(a).toBe(b);
    expect(await two.read("node.secret")).toBe(a);
    await one.write("node.secret", null);
    expect(await two.read("node.secret")).toBeNull();
  });

  test("forecast bodies keep every byte: bytes as given, and the same brotli bytes as SQLite for the same document", async () => {
    const { sqlite, postgres, database } = await freshDatabases();
    await sqliteCatalog(sqlite).applyImport(SEED, { kind: "default" });
    await catalogOn(postgres).applyImport(SEED, { kind: "default" });
    const everyByte = Uint8Array.from({ length: 512 }, (_, i) => (i * 7 + 3) % 256);
    // A view into a larger buffer: only its own bytes are stored.
    const view = new Uint8Array(everyByte.buffer, 100, 50);
    const large = JSON.stringify({ hours: Array.from({ length: 24 * 16 }, (_, h) => ({ h, text: `vague ${h} — 波 ${"x".repeat(h % 50)}` })) });
    const documents = [
      { spotId: "carcavelos", body: everyByte },
      { spotId: "ericeira", body: view },
      { spotId: "nazare", body: large },
    ];
    await sqliteForecastStore(sqlite).writeDocuments(T0, documents);
    await postgresForecastStore(postgres).writeDocuments(T0, documents);

    const stored = async (spotId: string) => {
      const [row] = (await database.sql`SELECT body FROM forecast_documents WHERE spot_id = ${spotId}`) as { body: Uint8Array }[];
      return Array.from(row!.body);
    };
    const storedInSqlite = (spotId: string) => Array.from((sqlite.$client.query("SELECT body FROM forecast_documents WHERE spot_id = ?").get(spotId) as { body: Uint8Array }).body);
    expect(await stored("carcavelos")).toEqual(Array.from(everyByte));
    expect(await stored("ericeira")).toEqual(Array.from(everyByte.subarray(100, 150)));
    expect(await stored("nazare")).toEqual(Array.from(packDocument(large)));
    for (const spotId of ["carcavelos", "ericeira", "nazare"]) expect(await stored(spotId)).toEqual(storedInSqlite(spotId));
    expect((await postgresForecastStore(postgres).readDocument("nazare"))?.body).toBe(large);
  });
});
