/**
 * What the catalog service (service.ts) reads the spot tables from and imports into: the spot store bound to one
 * connection, with the check for other processes' changes to the catalog. On SQLite the reads also answer at once
 * (`synchronous`), so a noticed change is loaded before the call that noticed it answers; on PostgreSQL only promises
 * are at hand, and the service reloads beside its requests, serving the catalog it holds meanwhile.
 */
import type { Db } from "../db";
import { changeCheck } from "../db/changes";
import type { PgDb } from "../db/postgres";
import type { PgQueryable } from "../db/postgres/transaction";
import type { StoredSpot } from "./catalog";
import { postgresSpotStore } from "./postgres-store";
import * as sqliteSpotStore from "./store";
import type { CatalogMeta, CatalogSource, ImportPlan, StoredCatalog } from "./store";
import type { DerivedSpotFacts } from "./types";

/** What deciding to seed the default catalog reads: how many spots there are and where the catalog came from. */
export interface CatalogState {
  spotCount: number;
  meta: CatalogMeta;
}

export interface ImportSource {
  kind: CatalogSource;
  defaultSha256?: string;
}

/** The reads a loaded catalog is kept current with. */
export interface CatalogReads {
  loadCatalog(): StoredCatalog;
  readCatalogVersion(): string;
  derivedFactsVersion(): string;
  loadDerivedFacts(): Map<string, DerivedSpotFacts>;
}

export interface CatalogStore {
  /** True when another process may have changed the catalog since its last call; true on its first. */
  changed(): boolean;
  loadCatalog(): Promise<StoredCatalog>;
  readCatalogVersion(): Promise<string>;
  derivedFactsVersion(): Promise<string>;
  loadDerivedFacts(): Promise<Map<string, DerivedSpotFacts>>;
  loadSpots(): Promise<StoredSpot[]>;
  readState(): Promise<CatalogState>;
  /**
   * Applies a plan in one transaction, all of it or nothing; answers whether it did. `wanted` decides first, inside
   * the transaction, on the state read there: another process may have seeded or imported since an earlier read.
   */
  applyImport(plan: ImportPlan, source: ImportSource, wanted?: (state: CatalogState) => boolean): Promise<boolean>;
  /** The same reads answering at once, on a synchronous database (SQLite). */
  readonly synchronous?: CatalogReads;
}

/** The catalog on this process's SQLite connection; other processes' commits are noticed by `PRAGMA data_version`. */
export function sqliteCatalog(db: Db): CatalogStore {
  const readState = (): CatalogState => ({ spotCount: sqliteSpotStore.countSpots(db), meta: sqliteSpotStore.readCatalogMeta(db) });
  const synchronous: CatalogReads = {
    loadCatalog: () => sqliteSpotStore.loadCatalog(db),
    readCatalogVersion: () => sqliteSpotStore.readCatalogVersion(db),
    derivedFactsVersion: () => sqliteSpotStore.derivedFactsVersion(db),
    loadDerivedFacts: () => sqliteSpotStore.loadDerivedFacts(db),
  };
  return {
    changed: changeCheck(db),
    loadCatalog: async () => synchronous.loadCatalog(),
    readCatalogVersion: async () => synchronous.readCatalogVersion(),
    derivedFactsVersion: async () => synchronous.derivedFactsVersion(),
    loadDerivedFacts: async () => synchronous.loadDerivedFacts(),
    loadSpots: async () => sqliteSpotStore.loadSpots(db),
    readState: async () => readState(),
    applyImport: async (plan, source, wanted) => sqliteSpotStore.applyImport(db, plan, source, wanted && (() => wanted(readState()))),
    synchronous,
  };
}

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
