/**
 * The spot store (./store.ts) on the shared PostgreSQL database, for several servers at once. An import is one transaction; imports and seedings on different servers take turns.
 */
import { count, eq, inArray, max, sql } from "drizzle-orm";
import type { OverConnection } from "../db/async-store";
import { chunks, insertChunks } from "../db/postgres/batch-rows";
import { notifyChange } from "../db/postgres/changes";
import { readMeta, writeMeta } from "../db/postgres/meta";
import { spotAliases, spotFacing, spots, spotTideStation } from "../db/postgres/schema";
import type { PgDb } from "../db/postgres";
import { inTransaction, readSnapshot, type PgQueryable, type PgTx } from "../db/postgres/transaction";
import { columnsOf } from "../db/statements";
import type { StoredSpot } from "./catalog";
import { CATALOG_META, catalogVersionOf, DERIVED_STATION_COLUMNS, derivedFactsOf, derivedFactsVersionOf, nextCatalogVersion, STORED_SPOT_COLUMNS, withAliases } from "./catalog-rows";
import type * as sqliteSpotStore from "./sqlite-store";
import type { CatalogMeta, CatalogSource, CatalogState, CatalogStore, ImportPlan, StoredCatalog } from "./store";
import type { DerivedSpotFacts } from "./types";

async function countSpots(db: PgQueryable): Promise<number> {
  const [row] = await db.select({ n: count() }).from(spots);
  return row!.n;
}

async function loadSpots(db: PgQueryable): Promise<StoredSpot[]> {
  const aliasRows = await db.select({ spotId: spotAliases.spotId, alias: spotAliases.alias }).from(spotAliases).orderBy(spotAliases.spotId, spotAliases.alias);
  const rows = await db
    .select(columnsOf(spots, STORED_SPOT_COLUMNS))
    .from(spots)
    .orderBy(spots.id);
  return withAliases(rows, aliasRows);
}

async function loadDerivedFacts(db: PgQueryable): Promise<Map<string, DerivedSpotFacts>> {
  const rows = await db
    .select({ id: spots.id, facing: spotFacing.facing, ...columnsOf(spotTideStation, DERIVED_STATION_COLUMNS) })
    .from(spots)
    .leftJoin(spotFacing, eq(spotFacing.spotId, spots.id))
    .leftJoin(spotTideStation, eq(spotTideStation.spotId, spots.id));
  return derivedFactsOf(rows);
}

async function derivedFactsVersion(db: PgQueryable): Promise<string> {
  const [facings] = await db.select({ n: count(), last: max(spotFacing.computedAt) }).from(spotFacing);
  const [choices] = await db.select({ n: count(), last: max(spotTideStation.computedAt) }).from(spotTideStation);
  return derivedFactsVersionOf(facings!, choices!);
}

async function loadCatalog(db: PgQueryable): Promise<StoredCatalog> {
  return readSnapshot(db, async (tx) => ({
    spots: await loadSpots(tx),
    version: await readCatalogVersion(tx),
    derived: await loadDerivedFacts(tx),
    derivedVersion: await derivedFactsVersion(tx),
  }));
}

async function readCatalogMeta(db: PgQueryable): Promise<CatalogMeta> {
  return { source: (await readMeta(db, CATALOG_META.source)) as CatalogSource | null, defaultSha256: await readMeta(db, CATALOG_META.defaultSha256) };
}

async function readCatalogVersion(db: PgQueryable): Promise<string> {
  return catalogVersionOf(await readMeta(db, CATALOG_META.version));
}

/**
 * Applies a plan in one transaction: all of it or nothing. Imports take turns (see the dialect-specific section):
 * `check` runs first inside the transaction, on `tx`, so a decision taken on an earlier read (e.g. "the table is
 * empty, seed it") is re-checked after any other server's import; it answers false to skip. Other servers hear of an
 * applied import when it commits (db/postgres/changes.ts).
 */
async function applyImport(
  db: PgQueryable,
  plan: ImportPlan,
  source: { kind: CatalogSource; defaultSha256?: string },
  check: (tx: PgQueryable) => Promise<boolean> = async () => true,
): Promise<boolean> {
  return inTransaction(db, async (tx) => {
    await takeImportTurn(tx);
    if (!(await check(tx))) return false;
    for (const ids of chunks(plan.remove, 1)) await tx.delete(spots).where(inArray(spots.id, ids));
    for (const s of plan.update) await tx.update(spots).set(importedColumns(s)).where(eq(spots.id, s.id));
    for (const ids of chunks(plan.update.map((s) => s.id), 1)) await tx.delete(spotAliases).where(inArray(spotAliases.spotId, ids));
    for (const rows of insertChunks(spots, plan.add)) await tx.insert(spots).values(rows.map((s) => ({ id: s.id, hexId: s.hexId, ...importedColumns(s) })));
    const aliases = [...plan.update, ...plan.add].flatMap((s) => s.aliases.map((alias) => ({ spotId: s.id, alias })));
    for (const rows of insertChunks(spotAliases, aliases)) await tx.insert(spotAliases).values(rows).onConflictDoNothing();
    await writeMeta(tx, CATALOG_META.source, source.kind);
    if (source.defaultSha256) await writeMeta(tx, CATALOG_META.defaultSha256, source.defaultSha256);
    await writeMeta(tx, CATALOG_META.version, nextCatalogVersion(await readCatalogVersion(tx)));
    await notifyChange(tx, "spots");
    return true;
  });
}

/** The columns of `spots` an import sets. */
const importedColumns = (s: StoredSpot) => ({
  name: s.name,
  country: s.country,
  region: s.region,
  lat: s.lat,
  lng: s.lng,
  facingOverride: s.facing,
  tidelessOverride: s.tideless,
});

// ── dialect-specific SQL ─────────────────────────────────────────────────────────────────────────
/**
 * Waits for any other import's transaction, then holds off the next until this one ends: SQLite's immediate
 * transactions give that by taking the one write lock. The mode lets readers go on reading the old catalog.
 */
async function takeImportTurn(tx: PgTx): Promise<void> {
  await tx.execute(sql`LOCK TABLE ${spots} IN SHARE ROW EXCLUSIVE MODE`);
}
// ─────────────────────────────────────────────────────────────────────────────────────────────────

export const postgresSpotStore = {
  countSpots,
  loadSpots,
  loadDerivedFacts,
  derivedFactsVersion,
  loadCatalog,
  readCatalogMeta,
  readCatalogVersion,
  applyImport,
} satisfies AsyncSpotStore<PgQueryable>;

/**
 * The spot store answering promises over connections of type `C`. Its import's check reads through the
 * transaction it is given, the one thing of an asynchronous store the synchronous signature cannot say.
 */
export type AsyncSpotStore<C> = Omit<OverConnection<C, typeof sqliteSpotStore>, "applyImport" | "sqliteCatalog"> & {
  applyImport(db: C, plan: ImportPlan, source: { kind: CatalogSource; defaultSha256?: string }, check?: (tx: C) => Promise<boolean>): Promise<boolean>;
};

/**
 * The catalog on the shared PostgreSQL database; `changed` is the change feed's check of the `spots` topic
 * (`ChangeFeed.changeCheck("spots")`, db/postgres/changes.ts), which every import announces.
 */
export function postgresCatalog(db: PgDb, changed: () => boolean): CatalogStore {
  const readState = async (tx: PgQueryable): Promise<CatalogState> => ({
    spotCount: await postgresSpotStore.countSpots(tx),
    meta: await postgresSpotStore.readCatalogMeta(tx),
  });
  return {
    changed,
    loadCatalog: () => postgresSpotStore.loadCatalog(db),
    readCatalogVersion: () => postgresSpotStore.readCatalogVersion(db),
    derivedFactsVersion: () => postgresSpotStore.derivedFactsVersion(db),
    loadDerivedFacts: () => postgresSpotStore.loadDerivedFacts(db),
    loadSpots: () => postgresSpotStore.loadSpots(db),
    readState: () => readState(db),
    applyImport: (plan, source, wanted) => postgresSpotStore.applyImport(db, plan, source, wanted && (async (tx) => wanted(await readState(tx)))),
  };
}
