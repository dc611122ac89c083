/**
 * The pieces the stores build their statements from (src/db/statements.ts), on a real database: what each one binds,
 * reads and replaces, including the drizzle behaviour they exist to step around.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { closeDatabase, openDatabase } from "./index";
import { spots, spotTideModel } from "./schema";
import { columnsOf, excludedAll, placeholderAsGiven, placeholders, preparedPerConnection, preparedRows } from "./statements";
import * as pg from "./postgres/schema";
import { tempDir } from "../../test/support/env";

const db = openDatabase(tempDir("db-statements"));
afterAll(() => closeDatabase(db));

const spot = { hexId: "0000000000000000", name: "Spot", country: "FR", lat: 1, lng: 2 };
const tidelessOf = (id: string) => db.$client.query("SELECT tideless_override AS v FROM spots WHERE id = ?").get(id) as { v: number | null };

describe("placeholders", () => {
  test("a nullable boolean bound through placeholderAsGiven stays null; through sql.placeholder it would be 0", () => {
    const insert = (tidelessOverride: ReturnType<typeof sql.placeholder> | ReturnType<typeof placeholderAsGiven>) =>
      db.insert(spots).values({ ...spot, id: sql.placeholder("id"), hexId: sql.placeholder("id"), tidelessOverride }).prepare();
    insert(placeholderAsGiven("tideless")).run({ id: "as-given", tideless: null });
    insert(sql.placeholder("tideless")).run({ id: "encoded", tideless: null });
    expect(tidelessOf("as-given").v).toBeNull();
    expect(tidelessOf("encoded").v).toBe(0);
  });

  test("placeholders() names one per key; excludedAll() makes an upsert take every listed column from the new row", () => {
    const { hasData, rangeM, windowRangeM, stationRangeM, since, fetchedAt } = spotTideModel;
    const columns = { hasData, rangeM, windowRangeM, stationRangeM, since, fetchedAt };
    const upsert = db
      .insert(spotTideModel)
      .values({ spotId: sql.placeholder("spotId"), ...placeholders(columns) })
      .onConflictDoUpdate({ target: spotTideModel.spotId, set: excludedAll(columns) })
      .prepare();
    const first = { hasData: true, rangeM: 1, windowRangeM: 1, stationRangeM: null, since: 1, fetchedAt: 1 };
    const second = { hasData: false, rangeM: 2, windowRangeM: 3, stationRangeM: 4, since: 5, fetchedAt: 6 };
    upsert.run({ spotId: "as-given", ...first });
    upsert.run({ spotId: "as-given", ...second });
    const { spotId, ...stored } = db.select().from(spotTideModel).where(eq(spotTideModel.spotId, "as-given")).get()!;
    expect(spotId).toBe("as-given");
    expect(stored).toEqual(second);
  });
});

describe("preparedRows", () => {
  const read = preparedRows({ id: spots.id, tideless: spots.tidelessOverride, lat: spots.lat }, (fields) =>
    db.select(fields).from(spots).where(eq(spots.id, sql.placeholder("id"))).prepare(),
  );

  test("gives the rows drizzle's own mapping gives: booleans decoded, nulls kept, keys in the fields' order", () => {
    db.insert(spots).values({ ...spot, id: "flagged", hexId: "flagged", tidelessOverride: true }).run();
    for (const id of ["flagged", "as-given"]) {
      const drizzle = db.select({ id: spots.id, tideless: spots.tidelessOverride, lat: spots.lat }).from(spots).where(eq(spots.id, id)).get();
      expect(read.get({ id })).toStrictEqual(drizzle!);
      expect(read.all({ id })).toStrictEqual([drizzle!]);
    }
    expect(read.get({ id: "flagged" })!.tideless).toBe(true);
    expect(Object.keys(read.get({ id: "flagged" })!)).toEqual(["id", "tideless", "lat"]);
  });

  test("no row: get is undefined, all is empty", () => {
    expect(read.get({ id: "missing" })).toBeUndefined();
    expect(read.all({ id: "missing" })).toEqual([]);
  });
});

test("preparedPerConnection builds a connection's statements once and keeps them apart from another connection's", () => {
  let builds = 0;
  const statements = preparedPerConnection((connection) => (builds++, { connection }));
  const other = openDatabase(tempDir("db-statements-other"));
  expect(statements(db)).toBe(statements(db));
  expect(statements(other).connection).toBe(other);
  expect(builds).toBe(2);
  closeDatabase(other);
});

test("columnsOf: one list of fields names the same columns in the SQLite and the PostgreSQL table, renamed as the rows want", () => {
  const names = { id: "id", facing: "facingOverride" } as const;
  expect(columnsOf(spots, names)).toEqual({ id: spots.id, facing: spots.facingOverride });
  expect(columnsOf(pg.spots, names)).toEqual({ id: pg.spots.id, facing: pg.spots.facingOverride });
  db.insert(spots).values({ id: "columns-of", ...spot, facingOverride: 270 }).run();
  expect(db.select(columnsOf(spots, names)).from(spots).where(eq(spots.id, "columns-of")).get()).toEqual({ id: "columns-of", facing: 270 });
});
