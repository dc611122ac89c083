/**
 * The spot room's store: the spot tables (`spots`, `spot_aliases`), the facts other rooms derived per spot, and the
 * catalog's facts in `meta`, as the catalog service (service.ts) loads them and imports into them, with the check for
 * other processes' changes. SQLite's (./sqlite-store.ts) and PostgreSQL's (./postgres-store.ts) implement it. On
 * SQLite the loads also answer at once (`synchronous`), so a noticed change is loaded before the call that noticed it
 * answers; on PostgreSQL the service reloads beside its requests, serving the catalog it holds meanwhile.
 */
import type { StoredSpot } from "./catalog";
import type { DerivedSpotFacts } from "./types";

/** Where the catalog came from: the embedded default (auto-updated with the binary) or an operator import. */
export type CatalogSource = "default" | "import";

/** What the catalog is built from, read in one transaction: the spots, the derived facts and their versions. */
export interface StoredCatalog {
  spots: StoredSpot[];
  version: string;
  derived: Map<string, DerivedSpotFacts>;
  derivedVersion: string;
}

export interface CatalogMeta {
  source: CatalogSource | null;
  defaultSha256: string | null;
}

/** What an import does to the tables; built by `planImport` (import.ts). */
export interface ImportPlan {
  add: StoredSpot[];
  update: StoredSpot[];
  /** Ids of spots that go away (with --replace). */
  remove: string[];
}

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
