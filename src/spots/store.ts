/**
 * The spot tables (`spots`, `spot_aliases`) and the catalog's facts in `meta`: loading, and applying an
 * import plan in one transaction. Removing a spot cascades to every per-spot row of other domains.
 */
import type { Db } from "../db";
import { readMeta, writeMeta } from "../db/meta";
import type { StoredSpot } from "./catalog";
import type { DerivedSpotFacts } from "./types";

/** Where the catalog came from: the embedded default (auto-updated with the binary) or an operator import. */
export type CatalogSource = "default" | "import";

const META_SOURCE = "spots.source";
const META_DEFAULT_SHA = "spots.default_sha256";
/** Bumped by every applied import, so a running server can tell that the catalog changed under it. */
const META_VERSION = "spots.version";

interface SpotRow {
  id: string;
  hexId: string;
  name: string;
  country: string;
  region: string | null;
  lat: number;
  lng: number;
  facing: number | null;
  tideless: number | null;
}

export function countSpots(db: Db): number {
  return (db.$client.query("SELECT count(*) AS n FROM spots").get() as { n: number }).n;
}

export function loadSpots(db: Db): StoredSpot[] {
  const aliasRows = db.$client.query("SELECT spot_id AS spotId, alias FROM spot_aliases ORDER BY spot_id, alias").all() as { spotId: string; alias: string }[];
  const aliases = Map.groupBy(aliasRows, (r) => r.spotId);
  const rows = db.$client
    .query(
      "SELECT id, hex_id AS hexId, name, country, region, lat, lng, facing_override AS facing, tideless_override AS tideless FROM spots ORDER BY id",
    )
    .all() as SpotRow[];
  return rows.map((r) => ({ ...r, tideless: r.tideless === null ? null : r.tideless !== 0, aliases: aliases.get(r.id)?.map((a) => a.alias) ?? [] }));
}

/**
 * The facts other domains computed per spot: the facing (spot_facing, forecast/facings.ts) and the tide choice
 * (spot_tide_station, tides/). Read here so the catalog can serve them on the spot objects; overrides are
 * applied by `toSpot`.
 */
export function loadDerivedFacts(db: Db): Map<string, DerivedSpotFacts> {
  const rows = db.$client
    .query(
      "SELECT s.id AS id, f.facing AS facing, t.tideless AS tideless, t.station_id AS stationId, t.station_name AS stationName, t.distance_km AS distanceKm " +
        "FROM spots s LEFT JOIN spot_facing f ON f.spot_id = s.id LEFT JOIN spot_tide_station t ON t.spot_id = s.id",
    )
    .all() as { id: string; facing: number | null; tideless: number | null; stationId: string | null; stationName: string | null; distanceKm: number | null }[];
  return new Map(
    rows.map((r) => [
      r.id,
      {
        facing: r.facing,
        tideless: r.tideless === null ? null : r.tideless !== 0,
        station: r.tideless === 0 && r.stationId ? { id: r.stationId, name: r.stationName ?? r.stationId, distanceKm: r.distanceKm ?? 0 } : null,
      },
    ]),
  );
}

/**
 * Moves whenever a facing or a tide choice is written, by any connection: the row counts and latest computation
 * times of both tables (~1 ms; every write sets `computed_at`, and re-choosing after a rule change deletes rows).
 */
export function derivedFactsVersion(db: Db): string {
  const row = db.$client
    .query(
      "SELECT (SELECT count(*) || ':' || ifnull(max(computed_at), 0) FROM spot_facing) || '/' || (SELECT count(*) || ':' || ifnull(max(computed_at), 0) FROM spot_tide_station) AS v",
    )
    .get() as { v: string };
  return row.v;
}

export interface CatalogMeta {
  source: CatalogSource | null;
  defaultSha256: string | null;
}

export function readCatalogMeta(db: Db): CatalogMeta {
  return { source: readMeta(db, META_SOURCE) as CatalogSource | null, defaultSha256: readMeta(db, META_DEFAULT_SHA) };
}

/** The catalog's version: changes with every applied import (seeding included). */
export function readCatalogVersion(db: Db): string {
  return readMeta(db, META_VERSION) ?? "0";
}

/** What an import does to the tables; built by `planImport` (import.ts). */
export interface ImportPlan {
  add: StoredSpot[];
  update: StoredSpot[];
  /** Ids of spots that go away (with --replace). */
  remove: string[];
}

/**
 * Applies a plan in one immediate transaction: all of it or nothing. `check` runs first inside the
 * transaction, so a decision taken on an earlier read (e.g. "the table is empty, seed it") is re-checked
 * under the write lock; it returns false to skip.
 */
export function applyImport(db: Db, plan: ImportPlan, source: { kind: CatalogSource; defaultSha256?: string }, check: () => boolean = () => true): boolean {
  const sql = db.$client;
  const insert = sql.prepare(
    "INSERT INTO spots (id, hex_id, name, country, region, lat, lng, facing_override, tideless_override) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const update = sql.prepare(
    "UPDATE spots SET name = ?, country = ?, region = ?, lat = ?, lng = ?, facing_override = ?, tideless_override = ? WHERE id = ?",
  );
  const remove = sql.prepare("DELETE FROM spots WHERE id = ?");
  const clearAliases = sql.prepare("DELETE FROM spot_aliases WHERE spot_id = ?");
  const addAlias = sql.prepare("INSERT OR IGNORE INTO spot_aliases (spot_id, alias) VALUES (?, ?)");
  const flag = (b: boolean | null) => (b === null ? null : b ? 1 : 0);

  const run = sql.transaction((): boolean => {
    if (!check()) return false;
    for (const id of plan.remove) remove.run(id);
    for (const s of plan.update) {
      update.run(s.name, s.country, s.region, s.lat, s.lng, s.facing, flag(s.tideless), s.id);
      clearAliases.run(s.id);
    }
    for (const s of plan.add) insert.run(s.id, s.hexId, s.name, s.country, s.region, s.lat, s.lng, s.facing, flag(s.tideless));
    for (const s of [...plan.update, ...plan.add]) for (const alias of s.aliases) addAlias.run(s.id, alias);
    writeMeta(db, META_SOURCE, source.kind);
    if (source.defaultSha256) writeMeta(db, META_DEFAULT_SHA, source.defaultSha256);
    writeMeta(db, META_VERSION, String(Number(readCatalogVersion(db)) + 1));
    return true;
  });
  return run.immediate();
}
