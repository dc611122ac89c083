/**
 * `surfcast spots check`: suspicious records of the loaded catalog, by kind. Pure given the geography (the
 * coastline and country shapes are passed in, see ./geography.ts). Rules and thresholds: docs/spots.md ("Checking
 * the catalog").
 */
import { fold } from "./normalize";
import { haversineKm } from "../core/geo";
import type { Spot } from "./types";

export type FindingKind = "far_from_coast" | "country_centroid" | "wrong_hemisphere" | "duplicate";
export const FINDING_KINDS: readonly FindingKind[] = ["far_from_coast", "country_centroid", "wrong_hemisphere", "duplicate"];

export interface Finding {
  kind: FindingKind;
  id: string;
  hexId: string;
  name: string;
  country: string;
  lat: number;
  lng: number;
  detail: string;
  /** far_from_coast: km to the nearest coastline; country_centroid: km to the centroid; duplicate: km to the first record. */
  distanceKm?: number;
}

/** A country as Natural Earth draws it: bounding box and area centroid. */
export interface CountryShape {
  name: string;
  west: number;
  south: number;
  east: number;
  north: number;
  centroid: { lat: number; lng: number };
}

export interface Geography {
  /** km to the nearest coastline, or null when none within `maxKm`. */
  coastKm(lat: number, lng: number, maxKm: number): number | null;
  /** The shape of a catalog country name (the spot's `country`), or null when unknown. */
  country(name: string): CountryShape | null;
}

/** Farther than this from any coastline: an inland spot (lake, river, pool) or a misplaced one. */
export const FAR_FROM_COAST_KM = 20;
/** This close to a country's centroid, and this far inland, a position is likely a geocoder's placeholder. */
export const CENTROID_KM = 15;
/** Same folded name this close: the same spot twice. */
export const DUPLICATE_KM = 1;
/** A country's box is widened by this much before a spot counts as outside it. */
const BOX_MARGIN_DEG = 2;

const inBox = (c: CountryShape, lat: number, lng: number) =>
  lat >= c.south - BOX_MARGIN_DEG && lat <= c.north + BOX_MARGIN_DEG && lng >= c.west - BOX_MARGIN_DEG && lng <= c.east + BOX_MARGIN_DEG;

/** 42.8333 = 42°50′: the form of gazetteer country coordinates (e.g. the CIA World Factbook's), not of a surveyed spot. */
const onWholeMinutes = (deg: number) => Math.abs(deg * 60 - Math.round(deg * 60)) < 1e-3;

const round1 = (x: number) => Math.round(x * 10) / 10;

export interface CheckReport {
  spots: number;
  counts: Record<FindingKind, number>;
  /** Catalog countries the geography does not know (no centroid or hemisphere check for their spots). */
  unknownCountries: string[];
  findings: Finding[];
}

export function checkCatalog(spots: readonly Spot[], geo: Geography): CheckReport {
  const findings: Finding[] = [];
  const unknown = new Set<string>();
  const add = (spot: Spot, kind: FindingKind, detail: string, distanceKm?: number) =>
    findings.push({ kind, id: spot.id, hexId: spot.hexId, name: spot.name, country: spot.country, lat: spot.lat, lng: spot.lng, detail, ...(distanceKm === undefined ? {} : { distanceKm: round1(distanceKm) }) });

  for (const spot of spots) {
    const coast = geo.coastKm(spot.lat, spot.lng, 2000);
    if (coast === null || coast > FAR_FROM_COAST_KM) add(spot, "far_from_coast", coast === null ? "no coastline within 2000 km" : `${round1(coast)} km from the nearest coastline`, coast ?? undefined);
    const country = geo.country(spot.country);
    if (!country) {
      unknown.add(spot.country);
      continue;
    }
    const toCentroid = haversineKm(spot.lat, spot.lng, country.centroid.lat, country.centroid.lng);
    const inland = coast === null || coast > FAR_FROM_COAST_KM;
    if (inland && toCentroid <= CENTROID_KM) add(spot, "country_centroid", `${round1(toCentroid)} km from the centroid of ${country.name}`, toCentroid);
    else if (inland && onWholeMinutes(spot.lat) && onWholeMinutes(spot.lng))
      add(spot, "country_centroid", `whole arc-minutes inland, like an atlas's country coordinates (${round1(toCentroid)} km from the centroid of ${country.name})`, toCentroid);
    // Only countries within one hemisphere's width: a box spanning the antimeridian tells nothing.
    if (country.east - country.west < 180 && !inBox(country, spot.lat, spot.lng)) {
      const flips = [
        inBox(country, -spot.lat, spot.lng) ? "latitude" : null,
        inBox(country, spot.lat, -spot.lng) ? "longitude" : null,
        inBox(country, -spot.lat, -spot.lng) ? "latitude and longitude" : null,
      ].filter((f) => f !== null);
      if (flips.length) add(spot, "wrong_hemisphere", `outside ${country.name}; with the ${flips[0]} sign flipped it is inside`);
    }
  }

  const byName = Map.groupBy(spots, (s) => fold(s.name));
  for (const group of byName.values()) {
    if (group.length < 2) continue;
    group.forEach((spot, i) => {
      const first = group.slice(0, i).find((other) => haversineKm(spot.lat, spot.lng, other.lat, other.lng) <= DUPLICATE_KM);
      if (first) add(spot, "duplicate", `same name as ${first.id} (${first.country}${first.region ? ", " + first.region : ""})`, haversineKm(spot.lat, spot.lng, first.lat, first.lng));
    });
  }

  const counts = Object.fromEntries(FINDING_KINDS.map((k) => [k, findings.filter((f) => f.kind === k).length])) as Record<FindingKind, number>;
  return { spots: spots.length, counts, unknownCountries: [...unknown].sort(), findings };
}
