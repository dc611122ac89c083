/**
 * The spot store (./store.ts) through drizzle, on either database (db/store-dialect.ts). An import plan is applied
 * in one transaction, all of it or nothing, imports on different servers taking turns; removing a spot cascades to
 * every per-spot row of other domains. Other servers hear of an applied import when it commits ("spots" topic).
 */
import { count, eq, inArray, max } from "drizzle-orm";
import type { PgQueryable } from "../db/postgres/transaction";
import { columnsOf } from "../db/statements";
import { readMeta, run, writeMeta, type StoreDialect, type SyncReads, type Work } from "../db/store-dialect";
import type { StoredSpot } from "./catalog";
import { CATALOG_META, catalogVersionOf, DERIVED_STATION_COLUMNS, derivedFactsOf, derivedFactsVersionOf, nextCatalogVersion, STORED_SPOT_COLUMNS, withAliases } from "./catalog-rows";
import type { CatalogSource, CatalogState, CatalogStore, ImportPlan, StoredCatalog } from "./store";
import type { DerivedSpotFacts } from "./types";

/** The columns of `spots` an import sets. */
const importedColumns = (s: StoredSpot) => ({ name: s.name, country: s.country, region: s.region, lat: s.lat, lng: s.lng, facingOverride: s.facing, tidelessOverride: s.tideless });

/**
 * The catalog on `dialect`'s database; `changed` tells whether another process may have changed it. On a database
 * that answers at once (SQLite), the loads also answer at once (`synchronous`). `writeSpots`, when given, writes an
 * import's changes to the spot tables in place of drizzle's statements built one by one.
 */
export function drizzleCatalog(
  { tables, direct, read, write, exclusive, notify, chunks, now, readNow }: StoreDialect & Partial<SyncReads>,
  changed: () => boolean,
  writeSpots?: (tx: PgQueryable, plan: ImportPlan) => Work<void>,
): CatalogStore {
  const { spotAliases, spotFacing, spots, spotTideStation } = tables;
  /** An import's changes to the spot tables. */
  function* drizzleSpotWrites(tx: PgQueryable, plan: ImportPlan): Work<void> {
    for (const ids of chunks(plan.remove)) yield* run(tx.delete(spots).where(inArray(spots.id, ids)));
    for (const s of plan.update) yield* run(tx.update(spots).set(importedColumns(s)).where(eq(spots.id, s.id)));
    for (const ids of chunks(plan.update.map((s) => s.id))) yield* run(tx.delete(spotAliases).where(inArray(spotAliases.spotId, ids)));
    for (const rows of chunks(plan.add, spots)) yield* run(tx.insert(spots).values(rows.map((s) => ({ id: s.id, hexId: s.hexId, ...importedColumns(s) }))));
    const aliases = [...plan.update, ...plan.add].flatMap((s) => s.aliases.map((alias) => ({ spotId: s.id, alias })));
    for (const rows of chunks(aliases, spotAliases)) yield* run(tx.insert(spotAliases).values(rows).onConflictDoNothing());
  }
  function* loadSpots(tx: PgQueryable): Work<StoredSpot[]> {
    const aliasRows = yield* run(tx.select({ spotId: spotAliases.spotId, alias: spotAliases.alias }).from(spotAliases).orderBy(spotAliases.spotId, spotAliases.alias));
    return withAliases(yield* run(tx.select(columnsOf(spots, STORED_SPOT_COLUMNS)).from(spots).orderBy(spots.id)), aliasRows);
  }
  /** The facts other rooms computed per spot: the facing (spot_facing) and the tide choice (spot_tide_station); `toSpot` applies overrides. */
  function* loadDerivedFacts(tx: PgQueryable): Work<Map<string, DerivedSpotFacts>> {
    return derivedFactsOf(
      yield* run(
        tx
          .select({ id: spots.id, facing: spotFacing.facing, ...columnsOf(spotTideStation, DERIVED_STATION_COLUMNS) })
          .from(spots)
          .leftJoin(spotFacing, eq(spotFacing.spotId, spots.id))
          .leftJoin(spotTideStation, eq(spotTideStation.spotId, spots.id)),
      ),
    );
  }
  /**
   * Moves whenever a facing or a tide choice is written, by any connection: the row counts and latest computation
   * times of both tables (every write sets `computed_at`, and re-choosing after a rule change deletes rows).
   */
  function* derivedFactsVersion(tx: PgQueryable): Work<string> {
    const [facings] = yield* run(tx.select({ n: count(), last: max(spotFacing.computedAt) }).from(spotFacing));
    const [choices] = yield* run(tx.select({ n: count(), last: max(spotTideStation.computedAt) }).from(spotTideStation));
    return derivedFactsVersionOf(facings!, choices!);
  }
  /** The catalog's version: changes with every applied import (seeding included). */
  function* readCatalogVersion(tx: PgQueryable): Work<string> {
    return catalogVersionOf(yield* readMeta(tables, tx, CATALOG_META.version));
  }
  function* loadCatalog(tx: PgQueryable): Work<StoredCatalog> {
    return { spots: yield* loadSpots(tx), version: yield* readCatalogVersion(tx), derived: yield* loadDerivedFacts(tx), derivedVersion: yield* derivedFactsVersion(tx) };
  }
  function* readState(tx: PgQueryable): Work<CatalogState> {
    const [counted] = yield* run(tx.select({ n: count() }).from(spots));
    const source = (yield* readMeta(tables, tx, CATALOG_META.source)) as CatalogSource | null;
    return { spotCount: counted!.n, meta: { source, defaultSha256: yield* readMeta(tables, tx, CATALOG_META.defaultSha256) } };
  }
  return {
    changed,
    loadCatalog: () => read(loadCatalog),
    readCatalogVersion: () => direct(readCatalogVersion),
    derivedFactsVersion: () => direct(derivedFactsVersion),
    loadDerivedFacts: () => direct(loadDerivedFacts),
    loadSpots: () => direct(loadSpots),
    readState: () => direct(readState),
    // `wanted` decides first, on the state read inside the transaction, after any other server's import: a decision
    // taken on an earlier read ("the table is empty, seed it") is taken again.
    applyImport: (plan, source, wanted) =>
      write(function* (tx) {
        yield* exclusive(tx, "spots import");
        if (wanted && !wanted(yield* readState(tx))) return false;
        yield* (writeSpots ?? drizzleSpotWrites)(tx, plan);
        yield* writeMeta(tables, tx, CATALOG_META.source, source.kind);
        if (source.defaultSha256) yield* writeMeta(tables, tx, CATALOG_META.defaultSha256, source.defaultSha256);
        yield* writeMeta(tables, tx, CATALOG_META.version, nextCatalogVersion(yield* readCatalogVersion(tx)));
        yield* notify(tx, "spots");
        return true;
      }),
    synchronous: now && readNow && { loadCatalog: () => readNow(loadCatalog), readCatalogVersion: () => now(readCatalogVersion), derivedFactsVersion: () => now(derivedFactsVersion), loadDerivedFacts: () => now(loadDerivedFacts) },
  };
}
