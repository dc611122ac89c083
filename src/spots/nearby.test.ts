/**
 * Nearby: the spatial index against a brute-force haversine scan (1,000 seeded random queries over the real
 * catalog), plus antimeridian and pole cases on synthetic points.
 */
import { describe, expect, test } from "bun:test";
import { openDatabase } from "../db";
import { SpotService } from "./service";
import { sqliteCatalog } from "./sqlite-store";
import { NearbyIndex } from "./nearby";
import { haversineKm } from "../core/geo";
import { tempDir } from "../../test/support/env";
import { seededRng } from "../../bench/prng";
import { waitFor } from "../../test/support/wait";


/** The reference: every point, exact haversine, sorted by distance. */
function bruteForce(points: readonly { id: string; lat: number; lng: number }[], lat: number, lng: number, radius: number, limit: number) {
  return points
    .map((p) => ({ id: p.id, d: haversineKm(lat, lng, p.lat, p.lng) }))
    .filter((p) => p.d <= radius)
    .sort((a, b) => a.d - b.d || (a.id < b.id ? -1 : 1))
    .slice(0, limit);
}

describe("nearby over the default catalog", async () => {
  const spots = await SpotService.open(sqliteCatalog(openDatabase(tempDir("spots-nearby"))));
  const all = spots.all();

  test("matches a brute-force haversine scan on 1,000 seeded random queries", () => {
    const random = seededRng(20240611).next;
    let nonEmpty = 0;
    for (let n = 0; n < 1000; n++) {
      // Half the queries near a real spot (so results are not mostly empty), half anywhere on Earth.
      const anchor = all[Math.floor(random() * all.length)]!;
      const [lat, lng] =
        n % 2 === 0
          ? [Math.max(-90, Math.min(90, anchor.lat + (random() - 0.5))), Math.max(-180, Math.min(180, anchor.lng + (random() - 0.5)))]
          : [random() * 180 - 90, random() * 360 - 180];
      const radius = Math.round(random() * 100 * 1000) / 1000;
      const limit = 1 + Math.floor(random() * 50);
      const got = spots.nearby({ lat, lng, radius, limit });
      const want = bruteForce(all, lat, lng, radius, limit);
      expect(got.map((s) => s.distanceKm)).toEqual(want.map((w) => Math.round(w.d * 1000) / 1000));
      expect(got.map((s) => s.id)).toEqual(want.map((w) => w.id));
      if (got.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(300);
  });

  test("closest first, distance rounded to at most 3 decimals, the spot's own fields", () => {
    const pipeline = spots.get("pipeline");
    const got = spots.nearby({ lat: pipeline.lat, lng: pipeline.lng, radius: 5, limit: 10 });
    expect(got[0]).toEqual({ ...pipeline, distanceKm: 0 });
    for (const s of got) expect(Math.round(s.distanceKm * 1000) / 1000).toBe(s.distanceKm);
    expect(Object.keys(got[1]!)).toEqual(["id", "name", "country", "region", "lat", "lng", "hexId", "facing", "tideless", "timezone", "distanceKm"]);
    expect(spots.nearby({ lat: pipeline.lat, lng: pipeline.lng, radius: 0, limit: 10 }).map((s) => s.id)).toEqual(["pipeline"]);
    expect(spots.nearby({ lat: 0, lng: -140, radius: 100, limit: 10 })).toEqual([]); // mid-Pacific
  });
});

describe("kept nearby answers", () => {
  test("the same question gets the kept answer until a spot's derived facts change", async () => {
    const db = openDatabase(tempDir("spots-nearby-kept"));
    const spots = await SpotService.open(sqliteCatalog(db));
    const pipeline = spots.get("pipeline");
    const question = { lat: pipeline.lat, lng: pipeline.lng, radius: 5, limit: 10 };
    const first = spots.nearby(question);
    expect(spots.nearby(question)).toBe(first);
    expect(spots.nearby({ ...question, limit: 9 })).not.toBe(first);
    const facing = pipeline.facing === 123 ? 124 : 123;
    db.$client.query("INSERT OR REPLACE INTO spot_facing (spot_id, facing, method, computed_at) VALUES (?, ?, 'test', ?)").run("pipeline", facing, Date.now());
    // The catalog looks for new derived facts at most once a second.
    const after = await waitFor("the new facing to be noticed", () => {
      const answer = spots.nearby(question);
      return answer !== first && answer;
    }, 5_000);
    expect(after[0]).toEqual({ ...spots.get("pipeline"), distanceKm: 0 });
    expect(after[0]!.facing).toBe(facing);
  });
});

describe("nearby on synthetic points", () => {
  const points = [
    { id: "east-of-line", lat: -16.5, lng: 179.95 },
    { id: "west-of-line", lat: -16.5, lng: -179.95 },
    { id: "far-east", lat: -16.5, lng: 179.3 },
    { id: "north-pole-a", lat: 89.95, lng: 0 },
    { id: "north-pole-b", lat: 89.95, lng: 180 },
    { id: "north-pole-c", lat: 89.9, lng: -90 },
    { id: "south-pole", lat: -89.99, lng: 45 },
    { id: "equator", lat: 0, lng: 0 },
  ];
  const index = new NearbyIndex(points);
  const around = (lat: number, lng: number, radius: number, limit = 50) => index.around(lat, lng, radius, limit).map((h) => points[h.index]!.id);

  test("across the antimeridian: points on both sides, from either side", () => {
    expect(around(-16.5, 179.999, 6)).toEqual(["east-of-line", "west-of-line"]);
    expect(around(-16.5, -179.999, 6)).toEqual(["west-of-line", "east-of-line"]);
    expect(around(-16.5, 180, 6).sort()).toEqual(["east-of-line", "west-of-line"]);
    expect(around(-16.5, -180, 6).sort()).toEqual(["east-of-line", "west-of-line"]);
    expect(around(-16.5, -179.9, 100)).toEqual(["west-of-line", "east-of-line", "far-east"]);
    expect(index.around(-16.5, 179.999, 6, 50)[1]!.distanceKm).toBeCloseTo(5.437, 3);
  });

  test("near the poles: points on opposite meridians are close", () => {
    // 89.95°N on meridians 0 and 180 are 11.1 km apart across the pole, each 5.56 km from it.
    expect(around(90, 0, 10).sort()).toEqual(["north-pole-a", "north-pole-b"]);
    expect(around(89.95, 0, 12)).toEqual(["north-pole-a", "north-pole-b"]);
    expect(around(89.99, 10, 12)).toEqual(["north-pole-a", "north-pole-b", "north-pole-c"]);
    expect(around(89.99, 10, 11)).toEqual(["north-pole-a", "north-pole-b"]);
    expect(around(-90, 0, 5)).toEqual(["south-pole"]);
    expect(index.around(90, 0, 10, 50)[0]!.distanceKm).toBeCloseTo(haversineKm(90, 0, 89.95, 0), 9);
  });

  test("every synthetic query agrees with the brute-force scan", () => {
    const random = seededRng(7).next;
    for (let n = 0; n < 300; n++) {
      const lat = n % 3 === 0 ? 90 - random() * 0.3 : n % 3 === 1 ? -16.5 + random() - 0.5 : random() * 180 - 90;
      const lng = random() * 360 - 180;
      const radius = random() * 100;
      expect(around(lat, lng, radius)).toEqual(bruteForce(points, lat, lng, radius, 50).map((p) => p.id));
    }
  });
});
