/**
 * The spot catalog service: search, nearby and get over in-memory indexes of the `spots` table, loaded at
 * open, again after an import — this process's, or another's (`surfcast spots import` next to a running
 * server), noticed within about a second — and at the first call after an idle server dropped it. Opening
 * seeds an empty database from the embedded default catalog, and re-applies the default when a new binary
 * carries a changed one — unless an operator imported a catalog. The tables are on SQLite or on the PostgreSQL
 * database several servers share (store.ts); either way every read answers at once from memory.
 */
import { BOUNDS } from "../core/bounds";
import { notFound, UserError } from "../core/errors";
import type { NearbyParams, SearchParams } from "../core/params";
import { derivedAliases, HEX_ID, toSpot, type StoredSpot } from "./catalog";
import { defaultCatalogDigest, defaultRecords } from "./default-catalog";
import { readBuiltSeed } from "./built-seed";
import { parseImport, type ParsedFile } from "./formats";
import { planImport, type ImportCounts } from "./import";
import { NearbyIndex, roundKm } from "./nearby";
import { SearchIndex, type Searchable } from "./search";
import { matchTowns, readTowns, type TownMatch } from "./towns";
import { Lru } from "../core/lru";
import { registerCache } from "../core/caches";
import { outageLog } from "../db/postgres/outage";
import { Reloader } from "../core/reloader";
import type { CatalogReads, CatalogState, CatalogStore } from "./store";
import type { StoredCatalog } from "./store";
import { timezoneAt } from "./timezone";
import { spotGuide, type SpotGuide } from "./guide";
import type { DerivedSpotFacts, Spot, SpotDetail, SpotWithDistance } from "./types";

const sameFacts = (a: DerivedSpotFacts | undefined, b: DerivedSpotFacts | undefined): boolean =>
  a?.facing === b?.facing &&
  a?.tideless === b?.tideless &&
  a?.station?.id === b?.station?.id &&
  a?.station?.name === b?.station?.name &&
  a?.station?.distanceKm === b?.station?.distanceKm;

/** Freezes the guide's nested objects too: a detail is shared by every request it is served to. */
function deepFreeze(guide: SpotGuide): SpotGuide {
  for (const part of Object.values(guide)) if (part) Object.freeze(part);
  return Object.freeze(guide);
}

/**
 * Derived facts are checked at most this often (one ~1 ms query): a refresh or the tide pass writes many rows in a
 * row, and rebuilding the spot objects (~20 ms for the whole catalog) once per write would be waste.
 */
const DERIVED_POLL_MS = 1000;

export interface SpotOverrides {
  /** Bearing toward open water, degrees; null when the import gave none. */
  facing: number | null;
  tideless: boolean | null;
}

export interface ImportResult extends ImportCounts {
  file: ParsedFile;
}

/** Spots held by the kept nearby answers (~1 kB each with their JSON): at most ~4 MB. */
const NEARBY_ANSWER_SPOTS = 4096;

/**
 * One loaded catalog: the lookups are built at load, the search and spatial indexes at first use, so console
 * commands that never search do not pay for them (see `warm()`).
 */
class Snapshot {
  spots: Spot[] = [];
  byId = new Map<string, Spot>();
  byHex = new Map<string, Spot>();
  readonly overrides = new Map<string, SpotOverrides>();
  private readonly timezones: readonly string[];
  private derived: ReadonlyMap<string, DerivedSpotFacts> = new Map();
  derivedVersion = "";
  private readonly details = new WeakMap<Spot, SpotDetail>();
  private searchIndex: SearchIndex | null = null;
  private nearbyIndex: NearbyIndex | null = null;
  /**
   * The latest nearby answers by their parameters, frozen (so http/respond.ts keeps their JSON too): a dashboard,
   * a widget or a shop screen asks for the same place again and again. Bounded by the spots they hold.
   */
  readonly nearbyAnswers = new Lru<readonly SpotWithDistance[]>(NEARBY_ANSWER_SPOTS);
  /**
   * Search answers as spots, by the search index's kept answer (the same array while the index keeps it), frozen so
   * http/respond.ts keeps their JSON too: a repeated search is a lookup and its kept text.
   */
  readonly searchAnswers = new WeakMap<readonly number[], readonly Spot[]>();

  constructor(
    private readonly stored: readonly StoredSpot[],
    /** The catalog version it was loaded at (store.ts). */
    readonly version: string,
    derived: ReadonlyMap<string, DerivedSpotFacts>,
    derivedVersion: string,
  ) {
    this.timezones = stored.map((s) => timezoneAt(s.lat, s.lng));
    this.applyDerived(derived, derivedVersion);
    for (const s of stored) if (s.facing !== null || s.tideless !== null) this.overrides.set(s.id, { facing: s.facing, tideless: s.tideless });
  }

  /**
   * Rebuilds the spot objects whose derived facts changed (all of them the first time), in place: same order, so
   * the indexes (built on positions) stay valid.
   */
  applyDerived(derived: ReadonlyMap<string, DerivedSpotFacts>, version: string): void {
    const first = this.spots.length === 0;
    const spots = first ? new Array<Spot>(this.stored.length) : this.spots;
    this.stored.forEach((s, i) => {
      const facts = derived.get(s.id);
      if (!first && sameFacts(this.derived.get(s.id), facts)) return;
      const spot = toSpot(s, this.timezones[i]!, facts);
      spots[i] = spot;
      this.byId.set(spot.id, spot);
      this.byHex.set(spot.hexId, spot);
    });
    this.spots = spots;
    this.nearbyAnswers.clear();
    this.derived = derived;
    this.derivedVersion = version;
  }

  get search(): SearchIndex {
    return (this.searchIndex ??= new SearchIndex(...searchInputs(this.stored)));
  }

  /** The spot with its guide, built once per spot object (frozen: its JSON is kept by http/respond.ts). */
  detail(spot: Spot): SpotDetail {
    let detail = this.details.get(spot);
    if (!detail) {
      detail = Object.freeze({ ...spot, guide: deepFreeze(spotGuide(spot.facing, spot.tideless ? null : (this.derived.get(spot.id)?.station ?? null))) });
      this.details.set(spot, detail);
    }
    return detail;
  }

  get nearby(): NearbyIndex {
    return (this.nearbyIndex ??= new NearbyIndex(this.spots));
  }

  /** Drops the search and spatial indexes and the kept nearby answers, rebuilt at their next use. */
  dropIndexes(): void {
    this.searchIndex = null;
    this.nearbyIndex = null;
    this.nearbyAnswers.clear();
  }
}

/** What the search index is built from: the spots with their imported and name-derived aliases, and the towns near them. */
export function searchInputs(stored: readonly StoredSpot[]): [Searchable[], TownMatch[]] {
  return [stored.map((s) => ({ ...s, aliases: [...new Set([...s.aliases, ...derivedAliases(s.name)])] })), matchTowns(readTowns(), stored)];
}

/** Whether the default catalog should be applied, given its hash: none is there yet, or an older default is. */
const defaultWanted = (state: CatalogState, sha: string): boolean =>
  state.spotCount === 0 || (state.meta.source === "default" && state.meta.defaultSha256 !== sha);

/** Seeds or refreshes the default catalog when needed; see docs/spots.md ("The default catalog"). */
async function syncDefaultCatalog(catalog: CatalogStore): Promise<void> {
  const state = await catalog.readState();
  // An operator's import is never replaced: the embedded file is not even read.
  if (state.spotCount > 0 && state.meta.source !== "default") return;
  const sha = defaultCatalogDigest();
  if (!defaultWanted(state, sha)) return;
  // An empty database takes the build's plan of this import (./built-seed.ts), any other the import's own.
  const seed = state.spotCount === 0 ? readBuiltSeed(sha) : null;
  const plan = seed ? { add: seed, update: [], remove: [] } : planImport(await catalog.loadSpots(), defaultRecords(), true);
  // Another process may have seeded or imported since the reads above: decided again inside the transaction.
  await catalog.applyImport(plan, { kind: "default", defaultSha256: sha }, (now) => defaultWanted(now, sha) && (seed === null || now.spotCount === 0));
}

const snapshotOf = (stored: StoredCatalog): Snapshot => new Snapshot(stored.spots, stored.version, stored.derived, stored.derivedVersion);

/** The loaded catalog as the service keeps it current: at once (SQLite) or behind the requests (PostgreSQL). */
interface LoadedCatalog {
  /** The catalog to answer from. */
  readonly current: Snapshot;
  /** Hands back what memory can be rebuilt (`SpotService.clear`). */
  clear(): void;
  /** Loads the catalog again, after this process's import. */
  reload(): Promise<void>;
  /** Resolves once no load runs (before the database closes). */
  settled(): Promise<void>;
}

/**
 * On SQLite: reloaded before answering when another process imported since (one meta read per noticed commit), and
 * its spot objects rebuilt when the derived facts (facing, tideless) changed — by this process or another, checked at
 * most once a second. Dropped whole by `clear()`, loaded again by the next call.
 */
class LoadedAtOnce implements LoadedCatalog {
  private derivedCheckedAt = Date.now();
  /** Null until the first call that needs it, and after `clear()`. */
  private loaded: Snapshot | null = null;

  constructor(
    private readonly reads: CatalogReads,
    private readonly changed: () => boolean,
  ) {}

  get current(): Snapshot {
    if (this.loaded === null || (this.changed() && this.reads.readCatalogVersion() !== this.loaded.version)) this.loaded = snapshotOf(this.reads.loadCatalog());
    const now = Date.now();
    if (now - this.derivedCheckedAt >= DERIVED_POLL_MS) {
      this.derivedCheckedAt = now;
      const version = this.reads.derivedFactsVersion();
      if (version !== this.loaded.derivedVersion) this.loaded.applyDerived(this.reads.loadDerivedFacts(), version);
    }
    return this.loaded;
  }

  /** Spot objects and lookups (~6 MB of heap) and the indexes: the next call reloads them (~50 ms). */
  clear(): void {
    this.loaded = null;
  }

  async reload(): Promise<void> {
    this.loaded = snapshotOf(this.reads.loadCatalog());
  }

  async settled(): Promise<void> {}
}

/**
 * On PostgreSQL, where a read is a round trip: the same checks run beside the requests, one at a time
 * (core/reloader.ts), and swap in what they load when it is loaded; the requests meanwhile answer from the catalog
 * held. `clear()` keeps the spots, so there is always one to answer from.
 */
class RefreshedBehind implements LoadedCatalog {
  private derivedCheckedAt = Date.now();
  /** A change noticed that no refresh has looked at yet. */
  private catalogChanged = false;
  private readonly refreshes = new Reloader(() => this.refresh());
  /** Checks fail every second while PostgreSQL is away: one warning for the outage, one line when it ends. */
  private readonly outage = outageLog("spot catalog refresh");

  constructor(
    private readonly catalog: CatalogStore,
    private loaded: Snapshot,
  ) {}

  get current(): Snapshot {
    const changed = this.catalog.changed();
    if (changed) this.catalogChanged = true;
    const now = Date.now();
    const derivedDue = now - this.derivedCheckedAt >= DERIVED_POLL_MS;
    if (derivedDue) this.derivedCheckedAt = now;
    if (changed || derivedDue) {
      this.refreshes.reload().then(
        () => this.outage.worked(),
        (err: unknown) => this.outage.failed(err),
      );
    }
    return this.loaded;
  }

  /** The search and spatial indexes (~12 MB once built), built again from the kept spots at their next use. */
  clear(): void {
    this.loaded.dropIndexes();
  }

  reload(): Promise<void> {
    this.catalogChanged = true;
    return this.refreshes.reload();
  }

  async settled(): Promise<void> {
    await this.refreshes.inFlight?.catch(() => {});
  }

  private async refresh(): Promise<void> {
    const snapshot = this.loaded;
    if (this.catalogChanged) {
      this.catalogChanged = false;
      try {
        if ((await this.catalog.readCatalogVersion()) !== snapshot.version) {
          this.loaded = snapshotOf(await this.catalog.loadCatalog());
          return;
        }
      } catch (err) {
        // Tried again at the next check of the derived facts, within a second.
        this.catalogChanged = true;
        throw err;
      }
    }
    const version = await this.catalog.derivedFactsVersion();
    if (version !== snapshot.derivedVersion) snapshot.applyDerived(await this.catalog.loadDerivedFacts(), version);
  }
}

export class SpotService {
  private constructor(
    private readonly catalog: CatalogStore,
    private readonly loaded: LoadedCatalog,
  ) {
    registerCache(this);
  }

  /**
   * Drops what an idle server can hand back with its caches (ops/memory.ts): on SQLite the whole loaded catalog, on
   * PostgreSQL its indexes (see LoadedAtOnce and RefreshedBehind).
   */
  clear(): void {
    this.loaded.clear();
  }

  /** Resolves once no catalog load runs: the app waits for it before closing the database. */
  settled(): Promise<void> {
    return this.loaded.settled();
  }

  private get snapshot(): Snapshot {
    return this.loaded.current;
  }

  /**
   * Opens the catalog, loaded when this resolves; seeds the database from the embedded default catalog when it has no
   * spots yet.
   */
  static async open(catalog: CatalogStore): Promise<SpotService> {
    await syncDefaultCatalog(catalog);
    const reads = catalog.synchronous;
    const loaded = reads ? new LoadedAtOnce(reads, catalog.changed) : new RefreshedBehind(catalog, snapshotOf(await catalog.loadCatalog()));
    return new SpotService(catalog, loaded);
  }

  search(p: SearchParams): readonly Spot[] {
    const { spots, search, searchAnswers } = this.snapshot;
    const found = search.search(p.q, p.limit);
    let answer = searchAnswers.get(found);
    if (answer === undefined) searchAnswers.set(found, (answer = Object.freeze(found.map((i) => spots[i]!))));
    return answer;
  }

  /** Spots by distance; answers within the API's limit are kept (see Snapshot.nearbyAnswers). */
  nearby(p: NearbyParams): readonly SpotWithDistance[] {
    const snapshot = this.snapshot;
    const kept = p.limit <= BOUNDS.limit.maximum;
    const key = `${p.lat} ${p.lng} ${p.radius} ${p.limit}`;
    const cached = kept ? snapshot.nearbyAnswers.get(key) : undefined;
    if (cached !== undefined) return cached;
    const { spots, nearby } = snapshot;
    const answer = Object.freeze(nearby.around(p.lat, p.lng, p.radius, p.limit).map(({ index, distanceKm }) => Object.freeze({ ...spots[index]!, distanceKm: roundKm(distanceKm) })));
    if (kept) snapshot.nearbyAnswers.set(key, answer, Math.max(answer.length, 1));
    return answer;
  }

  /** By slug (exact) or 16-hex id (either case); undefined when the catalog has no such spot. */
  find(id: string): Spot | undefined {
    const { byId, byHex } = this.snapshot;
    return id.length > BOUNDS.idMaxLength ? undefined : (byId.get(id) ?? (id.length === 16 && HEX_ID.test(id.toLowerCase()) ? byHex.get(id.toLowerCase()) : undefined));
  }

  /** By slug (exact) or 16-hex id (either case); throws `not_found`. */
  get(id: string): Spot {
    const spot = this.find(id);
    if (!spot) throw notFound(`No spot with id '${id.length > 64 ? id.slice(0, 64) + "…" : id}'.`);
    return spot;
  }

  /** One spot with its guide (`GET /v1/spots/{id}`); throws `not_found`. */
  detail(id: string): SpotDetail {
    const spot = this.get(id);
    return this.snapshot.detail(spot);
  }

  /** The whole catalog, ordered by id (for the tide and forecast jobs). */
  all(): readonly Spot[] {
    return this.snapshot.spots;
  }

  /** Builds the search and spatial indexes now instead of at the first query (e.g. once a server listens). */
  warm(): void {
    void this.snapshot.search;
    void this.snapshot.nearby;
  }

  /** Per-spot overrides given by imports (only spots that have one): spot id → facing and tideless. */
  overrides(): ReadonlyMap<string, SpotOverrides> {
    return this.snapshot.overrides;
  }

  /**
   * Imports a JSON, GeoJSON or CSV catalog (see formats.ts) in one transaction and reloads the indexes.
   * Bad records are skipped and listed in `file.problems`.
   */
  async import(source: string, replace: boolean): Promise<ImportResult> {
    const file = parseImport(source);
    if (replace && file.records.length === 0) throw new UserError("--replace with no valid spot in the file would empty the catalog; nothing imported");
    const plan = planImport(await this.catalog.loadSpots(), file.records, replace);
    await this.catalog.applyImport(plan, { kind: "import" });
    await this.loaded.reload();
    return { ...plan.counts, file };
  }
}
