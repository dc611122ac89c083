import { expect, test } from "bun:test";
import { EARTH_RADIUS_KM, haversineKm } from "./geo";

test("a point is 0 km from itself, and a degree of latitude is a 360th of a great circle", () => {
  expect(haversineKm(43.48, -1.56, 43.48, -1.56)).toBe(0);
  expect(haversineKm(10, 20, 11, 20)).toBeCloseTo((2 * Math.PI * EARTH_RADIUS_KM) / 360, 9);
});

test("across the antimeridian the short way, and antipodes half a great circle apart", () => {
  expect(haversineKm(0, 179.5, 0, -179.5)).toBeCloseTo(haversineKm(0, 0, 0, 1), 9);
  expect(haversineKm(0, 0, 0, 180)).toBeCloseTo(Math.PI * EARTH_RADIUS_KM, 9);
  expect(haversineKm(-33.9, 151.3, 33.9, -28.7)).toBeCloseTo(Math.PI * EARTH_RADIUS_KM, 6);
});
