/**
 * Orientation: facings derived from Natural Earth 10 m land, their storage (ensureFacings / loadFacings) and the
 * wind classification built on them.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { computeFacing, loadLand, FACING_METHOD } from "./orientation";
import { ensureFacings, loadFacings } from "../forecast/facings";
import { positionKey, readBuiltFacings } from "../forecast/built-facings";
import { builtFacingsFile } from "../forecast/built-facings-file";
import { windDirectionType } from "../forecast/rating";
import { openDatabase, closeDatabase } from "../db";
import { sqliteForecastStore } from "../forecast/sqlite-store";
import { CATALOG_PATH, tempDir } from "../../test/support/env";

/** Smallest angle between two bearings, degrees. */
const angleBetween = (a: number, b: number) => Math.abs((((a - b) % 360) + 540) % 360 - 180);

// Public, well-known coordinates of famous breaks, and their facing as measured in
// /work/shared/research/ratings-and-orientation.md (each within 20° of the break's known facing).
const FAMOUS: [name: string, lat: number, lng: number, facing: number][] = [
  ["Pipeline, Oahu", 21.665, -158.053, 323],
  ["La Gravière, Hossegor", 43.672, -1.443, 290],
  ["Praia do Norte, Nazaré", 39.606, -9.085, 288],
  ["Bells Beach", -38.3686, 144.2811, 150],
  ["Supertubes, Jeffreys Bay", -34.031, 24.931, 130],
  ["Uluwatu", -8.815, 115.086, 258],
  ["Mavericks", 37.495, -122.497, 250],
  ["Bondi Beach", -33.8915, 151.2767, 98],
];

describe("computeFacing", () => {
  const land = loadLand();

  test.each(FAMOUS)("%s faces within 20° of its known facing", (_name, lat, lng, known) => {
    const facing = computeFacing(lat, lng, land);
    expect(facing).not.toBeNull();
    expect(angleBetween(facing!, known)).toBeLessThanOrEqual(20);
  });

  test("null far from any coast, on a large lake, and for non-finite input", () => {
    expect(computeFacing(48.85, 2.35, land)).toBeNull(); // Paris
    expect(computeFacing(30, -40, land)).toBeNull(); // mid-Atlantic
    expect(computeFacing(46.45, 6.55, land)).toBeNull(); // Lake Geneva shore (not in the land data: inland)
    expect(computeFacing(Number.NaN, 0, land)).toBeNull();
  });

  test("a barrier-island beach faces the ocean, not its lagoon (Ocean City, Maryland)", () => {
    const facing = computeFacing(38.3732, -75.067, land);
    expect(facing).not.toBeNull();
    expect(angleBetween(facing!, 100)).toBeLessThanOrEqual(25);
  });

  test("works across the antimeridian (Taveuni, Fiji, east coast)", () => {
    const facing = computeFacing(-16.85, -179.87, land);
    expect(facing).not.toBeNull();
    expect(angleBetween(facing!, 110)).toBeLessThanOrEqual(30);
  });

  test("the whole catalog computes, with few nulls", () => {
    const catalog = JSON.parse(readFileSync(CATALOG_PATH, "utf8")) as { lat: string; lng: string }[];
    const facings = catalog.map((s) => computeFacing(Number(s.lat), Number(s.lng), land));
    const nullShare = facings.filter((f) => f === null).length / facings.length;
    expect(nullShare).toBeLessThan(0.05);
    for (const f of facings) if (f !== null) expect(f >= 0 && f < 360).toBe(true);
  });
});

describe("stored facings", () => {
  test("ensureFacings computes only missing rows; loadFacings lets the import override win", async () => {
    const db = openDatabase(tempDir("facings"));
    const store = sqliteForecastStore(db);
    const spots = [
      { id: "bondi", lat: -33.8915, lng: 151.2767 },
      { id: "paris", lat: 48.85, lng: 2.35 },
      { id: "pipeline", lat: 21.665, lng: -158.053 },
    ];
    for (const s of spots) {
      db.$client.run("INSERT INTO spots (id, hex_id, name, country, lat, lng) VALUES (?, ?, ?, 'X', ?, ?)", [s.id, s.id.padEnd(16, "0"), s.id, s.lat, s.lng]);
    }
    db.$client.run("UPDATE spots SET facing_override = 10 WHERE id = 'pipeline'");
    const progress: [number, number][] = [];
    expect(await ensureFacings(store, spots, (done, total) => progress.push([done, total]))).toBe(3);
    expect(progress.at(-1)).toEqual([3, 3]);
    expect(await ensureFacings(store, spots)).toBe(0);

    const facings = await loadFacings(store);
    expect(angleBetween(facings.get("bondi")!, 98)).toBeLessThanOrEqual(20);
    expect(facings.get("paris")).toBeNull();
    expect(facings.get("pipeline")).toBe(10);
    const stored = db.$client.query("SELECT method, facing FROM spot_facing WHERE spot_id = 'pipeline'").get() as { method: string; facing: number };
    expect(stored.method).toBe(FACING_METHOD);
    expect(angleBetween(stored.facing, 323)).toBeLessThanOrEqual(20);

    // A row from an older method is recomputed.
    db.$client.run("UPDATE spot_facing SET method = 'old', facing = 0 WHERE spot_id = 'bondi'");
    expect(await ensureFacings(store, spots)).toBe(1);
    expect(angleBetween((await loadFacings(store)).get("bondi")!, 98)).toBeLessThanOrEqual(20);
    closeDatabase(db);
  });

  test("ensureFacings takes the facing the build decided for a position, and computes any other", async () => {
    const db = openDatabase(tempDir("facings"));
    const store = sqliteForecastStore(db);
    const spots = [
      { id: "decided", lat: -33.8915, lng: 151.2767 },
      { id: "other", lat: 21.665, lng: -158.053 },
    ];
    for (const s of spots) db.$client.run("INSERT INTO spots (id, hex_id, name, country, lat, lng) VALUES (?, ?, ?, 'X', ?, ?)", [s.id, s.id.padEnd(16, "0"), s.id, s.lat, s.lng]);
    // A value no computation gives there, so the test sees where it came from.
    expect(await ensureFacings(store, spots, undefined, () => new Map([[positionKey(-33.8915, 151.2767), 7]]))).toBe(2);
    const facings = await loadFacings(store);
    expect(facings.get("decided")).toBe(7);
    expect(angleBetween(facings.get("other")!, 323)).toBeLessThanOrEqual(20);
    closeDatabase(db);
  });

  test.skipIf(builtFacingsFile === null)("the build's facings are what computeFacing gives (every 300th position)", () => {
    const built = [...readBuiltFacings()].filter((_, i) => i % 300 === 0);
    expect(built.length).toBeGreaterThan(10);
    const land = loadLand();
    for (const [key, facing] of built) {
      const [lat, lng] = key.split(",").map(Number);
      expect(computeFacing(lat!, lng!, land)).toBe(facing);
    }
  });
});

describe("windDirectionType", () => {
  test.each([
    [270, 270, "onshore"],
    [315, 270, "onshore"], // δ = 45
    [316, 270, "cross"],
    [0, 270, "cross"],
    [135, 270, "offshore"], // δ = 135
    [90, 270, "offshore"],
    [350, 10, "onshore"], // across north
    [190, 10, "offshore"],
  ] as const)("wind from %d° on a beach facing %d° is %s", (windFrom, facing, expected) => {
    expect(windDirectionType(windFrom, facing)).toBe(expected);
  });

  test("null when the facing is unknown or the wind direction is not a number", () => {
    expect(windDirectionType(90, null)).toBeNull();
    expect(windDirectionType(Number.NaN, 90)).toBeNull();
  });
});
