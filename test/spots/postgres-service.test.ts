/**
 * The catalog service over the shared PostgreSQL database, as several servers run it: opening seeds the default
 * catalog once however many open at once, the answers are those of the service over SQLite, and an import through one
 * server reaches the others through the change feed, each serving the catalog it holds until the new one is loaded.
 */
import { afterEach, expect, test } from "bun:test";
import { closeDatabase, openDatabase } from "../../src/db";
import { closePostgres, openPostgres, type PgDb } from "../../src/db/postgres";
import { ChangeFeed } from "../../src/db/postgres/changes";
import { changeCounters } from "../../src/db/postgres/schema";
import { postgresCatalog } from "../../src/spots/postgres-store";
import { sqliteCatalog } from "../../src/spots/sqlite-store";
import { SpotService } from "../../src/spots/service";
import { tempDir } from "../support/env";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../support/postgres";

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  closing.push(() => database.drop());
  return database;
}

/** A pool of its own on `database`, as each server has (small: the PostgreSQL server is shared). */
async function serverPool(database: TestDatabase): Promise<PgDb> {
  const pool = await openPostgres(database.url(), { max: 4 });
  closing.push(() => closePostgres(pool));
  return pool;
}

const never = () => false;

/** Calls `read` until it answers something other than undefined: the service loads behind its requests. */
async function eventually<T>(read: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("not seen in time");
    await Bun.sleep(20);
  }
}

describeWithPostgres("the spot service over PostgreSQL", () => {
  test("two servers opening a fresh database at once seed the default catalog once, and answer as over SQLite", async () => {
    const database = await freshDatabase();
    const pools = [await serverPool(database), await serverPool(database)];
    const [first, second] = await Promise.all(pools.map((pool) => SpotService.open(postgresCatalog(pool, never))));
    // Each applied import announces itself once: one seeding.
    expect(await pools[0]!.select({ version: changeCounters.version }).from(changeCounters)).toEqual([{ version: 1 }]);

    const sqlite = openDatabase(tempDir("pg-service-sqlite"));
    closing.push(async () => closeDatabase(sqlite));
    const overSqlite = await SpotService.open(sqliteCatalog(sqlite));
    expect(first!.all()).toHaveLength(5877);
    expect(first!.all()).toEqual(overSqlite.all());
    expect(second!.all()).toEqual(overSqlite.all());
    for (const q of ["pipeline", "pipline", "hossegor", "back door", "portugal", "teahupo'o", "malibu"]) {
      expect({ q, ids: first!.search({ q, limit: 20 }).map((s) => s.id) }).toEqual({ q, ids: overSqlite.search({ q, limit: 20 }).map((s) => s.id) });
    }
    const pipeline = overSqlite.get("pipeline");
    for (const id of ["pipeline", pipeline.hexId, pipeline.hexId.toUpperCase(), "no-such-spot"]) expect(first!.find(id)).toEqual(overSqlite.find(id));
    expect(first!.detail("pipeline")).toEqual(overSqlite.detail("pipeline"));
    const around = { lat: pipeline.lat, lng: pipeline.lng, radius: 20, limit: 10 };
    expect(first!.nearby(around)).toEqual(overSqlite.nearby(around));

    // Reopening finds the default in place and applies nothing.
    await SpotService.open(postgresCatalog(pools[1]!, never));
    expect(await pools[0]!.select({ version: changeCounters.version }).from(changeCounters)).toEqual([{ version: 1 }]);
  });

  test("an import through one server reaches another once its change feed hears of it; clearing keeps the spots", async () => {
    const database = await freshDatabase();
    const importing = await SpotService.open(postgresCatalog(await serverPool(database), never));
    const otherPool = await serverPool(database);
    const feed = await ChangeFeed.start(otherPool, database.url());
    closing.push(() => feed.stop());
    const other = await SpotService.open(postgresCatalog(otherPool, feed.changeCheck("spots")));
    const before = other.all();

    const file = JSON.stringify([{ name: "Zzyzx Point", lat: "35.14", lng: "-116.1", country: "USA" }]);
    const result = await importing.import(file, false);
    expect(result.added).toBe(1);
    const [imported] = importing.search({ q: "zzyzx point", limit: 1 });
    expect(imported?.name).toBe("Zzyzx Point");

    const seen = await eventually(() => other.find(imported!.id));
    expect(seen).toEqual(imported!);
    expect(other.all()).toHaveLength(before.length + 1);
    expect(other.search({ q: "zzyzx", limit: 1 }).map((s) => s.id)).toEqual([imported!.id]);

    // An idle server hands back the indexes, never the catalog: the next call answers at once from the kept spots.
    const spots = other.all();
    other.clear();
    expect(other.all()).toBe(spots);
    expect(other.search({ q: "zzyzx", limit: 1 }).map((s) => s.id)).toEqual([imported!.id]);
  });
});
