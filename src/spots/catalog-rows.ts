/**
 * What the spot stores (SQLite and PostgreSQL) keep in `meta`, and how their rows become what the catalog is built
 * from: one rule for both databases.
 */
import type { StoredSpot } from "./catalog";
import type { DerivedSpotFacts } from "./types";

export const CATALOG_META = {
  source: "spots.source",
  defaultSha256: "spots.default_sha256",
  /** Bumped by every applied import, so a running server can tell that the catalog changed under it. */
  version: "spots.version",
} as const;

/** The catalog's version as stored, "0" before the first import. */
export function catalogVersionOf(stored: string | null): string {
  return stored ?? "0";
}

/** The version an applied import stores. */
export function nextCatalogVersion(version: string): string {
  return String(Number(version) + 1);
}

/** The derived facts read from a spot's tide station row, and its columns (columnsOf, db/statements.ts). */
export const DERIVED_STATION_COLUMNS = {
  tideless: "tideless",
  stationId: "stationId",
  stationName: "stationName",
  distanceKm: "distanceKm",
} as const;

/** A stored spot's fields and the spots table's columns they are read from (columnsOf, db/statements.ts). */
export const STORED_SPOT_COLUMNS = {
  id: "id",
  hexId: "hexId",
  name: "name",
  country: "country",
  region: "region",
  lat: "lat",
  lng: "lng",
  facing: "facingOverride",
  tideless: "tidelessOverride",
} as const;

/** The spots with their aliases (`aliasRows` in alias order). */
export function withAliases(rows: readonly Omit<StoredSpot, "aliases">[], aliasRows: readonly { spotId: string; alias: string }[]): StoredSpot[] {
  const aliases = Map.groupBy(aliasRows, (r) => r.spotId);
  return rows.map((r) => ({ ...r, aliases: aliases.get(r.id)?.map((a) => a.alias) ?? [] }));
}

/** A spot's row joined with its facing and its tide choice (nulls where not computed). */
export interface DerivedFactsRow {
  id: string;
  facing: number | null;
  tideless: boolean | null;
  stationId: string | null;
  stationName: string | null;
  distanceKm: number | null;
}

export function derivedFactsOf(rows: readonly DerivedFactsRow[]): Map<string, DerivedSpotFacts> {
  return new Map(
    rows.map((r) => [
      r.id,
      {
        facing: r.facing,
        tideless: r.tideless,
        station: r.tideless === false && r.stationId ? { id: r.stationId, name: r.stationName ?? r.stationId, distanceKm: r.distanceKm ?? 0 } : null,
      },
    ]),
  );
}

/** The derived facts' version from the row counts and latest computation times of spot_facing and spot_tide_station. */
export function derivedFactsVersionOf(facings: { n: number; last: number | null }, choices: { n: number; last: number | null }): string {
  return `${facings.n}:${facings.last ?? 0}/${choices.n}:${choices.last ?? 0}`;
}
