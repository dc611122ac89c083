/**
 * The spot store (./store.ts) on SQLite: each statement a function of the connection, and `sqliteCatalog` binding
 * them to one. An import plan is applied in one transaction; removing a spot cascades to every per-spot row of other
 * domains.
 */
import { count, eq, max, sql } from "drizzle-orm";
import { readTransaction, writeTransaction, type Db } from "../db";
import { changeCheck } from "../db/changes";
import { readMeta, writeMeta } from "../db/meta";
import { spotAliases, spotFacing, spots, spotTideStation } from "../db/schema";
import { columnsOf, placeholderAsGiven } from "../db/statements";
import type { StoredSpot } from "./catalog";
import { CATALOG_META, catalogVersionOf, DERIVED_STATION_COLUMNS, derivedFactsOf, derivedFactsVersionOf, nextCatalogVersion, STORED_SPOT_COLUMNS, withAliases } from "./catalog-rows";
import type { CatalogMeta, CatalogReads, CatalogSource, CatalogState, CatalogStore, ImportPlan, StoredCatalog } from "./store";
import type { DerivedSpotFacts } from "./types";

export function countSpots(db: Db): number {
  return db.select({ n: count() }).from(spots).get()!.n;
}

export function loadSpots(db: Db): StoredSpot[] {
  const aliasRows = db.select({ spotId: spotAliases.spotId, alias: spotAliases.alias }).from(spotAliases).orderBy(spotAliases.spotId, spotAliases.alias).all();
  const rows = db
    .select(columnsOf(spots, STORED_SPOT_COLUMNS))
    .from(spots)
    .orderBy(spots.id)
    .all();
  return withAliases(rows, aliasRows);
}

/**
 * The facts other domains computed per spot: the facing (spot_facing, forecast/facings.ts) and the tide choice
 * (spot_tide_station, tides/). Read here so the catalog can serve them on the spot objects; overrides are
 * applied by `toSpot`.
 */
export function loadDerivedFacts(db: Db): Map<string, DerivedSpotFacts> {
  const rows = db
    .select({ id: spots.id, facing: spotFacing.facing, ...columnsOf(spotTideStation, DERIVED_STATION_COLUMNS) })
    .from(spots)
    .leftJoin(spotFacing, eq(spotFacing.spotId, spots.id))
    .leftJoin(spotTideStation, eq(spotTideStation.spotId, spots.id))
    .all();
  return derivedFactsOf(rows);
}

/**
 * Moves whenever a facing or a tide choice is written, by any connection: the row counts and latest computation
 * times of both tables (~1 ms; every write sets `computed_at`, and re-choosing after a rule change deletes rows).
 */
export function derivedFactsVersion(db: Db): string {
  const facings = db.select({ n: count(), last: max(spotFacing.computedAt) }).from(spotFacing).get()!;
  const choices = db.select({ n: count(), last: max(spotTideStation.computedAt) }).from(spotTideStation).get()!;
  return derivedFactsVersionOf(facings, choices);
}

export function loadCatalog(db: Db): StoredCatalog {
  return readTransaction(db, () => ({ spots: loadSpots(db), version: readCatalogVersion(db), derived: loadDerivedFacts(db), derivedVersion: derivedFactsVersion(db) }));
}

export function readCatalogMeta(db: Db): CatalogMeta {
  return { source: readMeta(db, CATALOG_META.source) as CatalogSource | null, defaultSha256: readMeta(db, CATALOG_META.defaultSha256) };
}

/** The catalog's version: changes with every applied import (seeding included). */
export function readCatalogVersion(db: Db): string {
  return catalogVersionOf(readMeta(db, CATALOG_META.version));
}

/**
 * Applies a plan in one immediate transaction: all of it or nothing. `check` runs first inside the
 * transaction, so a decision taken on an earlier read (e.g. "the table is empty, seed it") is re-checked
 * under the write lock; it returns false to skip.
 */
export function applyImport(db: Db, plan: ImportPlan, source: { kind: CatalogSource; defaultSha256?: string }, check: () => boolean = () => true): boolean {
  // Bound as given (see placeholderAsGiven), the tideless flag as 1, 0 or null.
  const importedColumns = {
    name: placeholderAsGiven("name"),
    country: placeholderAsGiven("country"),
    region: placeholderAsGiven("region"),
    lat: placeholderAsGiven("lat"),
    lng: placeholderAsGiven("lng"),
    facingOverride: placeholderAsGiven("facing"),
    tidelessOverride: placeholderAsGiven("tideless"),
  };
  const byId = eq(spots.id, sql.placeholder("id"));
  const insert = db.insert(spots).values({ id: sql.placeholder("id"), hexId: sql.placeholder("hexId"), ...importedColumns }).prepare();
  const update = db.update(spots).set(importedColumns).where(byId).prepare();
  const remove = db.delete(spots).where(byId).prepare();
  const clearAliases = db.delete(spotAliases).where(eq(spotAliases.spotId, sql.placeholder("id"))).prepare();
  const addAlias = db.insert(spotAliases).values({ spotId: sql.placeholder("id"), alias: sql.placeholder("alias") }).onConflictDoNothing().prepare();
  const parameters = (s: StoredSpot) => ({ ...s, tideless: s.tideless === null ? null : s.tideless ? 1 : 0 });

  return writeTransaction(db, (): boolean => {
    if (!check()) return false;
    for (const id of plan.remove) remove.run({ id });
    for (const s of plan.update) {
      update.run(parameters(s));
      clearAliases.run({ id: s.id });
    }
    for (const s of plan.add) insert.run(parameters(s));
    for (const s of [...plan.update, ...plan.add]) for (const alias of s.aliases) addAlias.run({ id: s.id, alias });
    writeMeta(db, CATALOG_META.source, source.kind);
    if (source.defaultSha256) writeMeta(db, CATALOG_META.defaultSha256, source.defaultSha256);
    writeMeta(db, CATALOG_META.version, nextCatalogVersion(readCatalogVersion(db)));
    return true;
  });
}

/** The catalog on this process's SQLite connection; other processes' commits are noticed by `PRAGMA data_version`. */
export function sqliteCatalog(db: Db): CatalogStore {
  const readState = (): CatalogState => ({ spotCount: countSpots(db), meta: readCatalogMeta(db) });
  const synchronous: CatalogReads = {
    loadCatalog: () => loadCatalog(db),
    readCatalogVersion: () => readCatalogVersion(db),
    derivedFactsVersion: () => derivedFactsVersion(db),
    loadDerivedFacts: () => loadDerivedFacts(db),
  };
  return {
    changed: changeCheck(db),
    loadCatalog: async () => synchronous.loadCatalog(),
    readCatalogVersion: async () => synchronous.readCatalogVersion(),
    derivedFactsVersion: async () => synchronous.derivedFactsVersion(),
    loadDerivedFacts: async () => synchronous.loadDerivedFacts(),
    loadSpots: async () => loadSpots(db),
    readState: async () => readState(),
    applyImport: async (plan, source, wanted) => applyImport(db, plan, source, wanted && (() => wanted(readState()))),
    synchronous,
  };
}
