/**
 * The spot catalog service: search, nearby and get over in-memory indexes of the `spots` table, loaded at
 * open, again after an import — this process's, or another's (`surfcast spots import` next to a running
 * server), noticed within about a second — and at the first call after an idle server dropped it. Opening
 * seeds an empty database from the embedded default catalog, and re-applies the default when a new binary
 * carries a changed one — unless an operator imported a catalog.
 */
import type { Db } from "../db";
import { BOUNDS } from "../core/bounds";
import { notFound, UserError } from "../core/errors";
import type { NearbyParams, SearchParams } from "../core/params";
import { derivedAliases, HEX_ID, toSpot, type StoredSpot } from "./catalog";
import { readDefaultCatalog, sha256Hex } from "./default-catalog";
import { parseImport, type ParsedFile } from "./formats";
import { applyOverlay, DEFAULT_OVERLAY } from "./overlay";
import { planImport, type ImportCounts } from "./import";
import { NearbyIndex, roundKm } from "./nearby";
import { SearchIndex, type Searchable } from "./search";
import { matchTowns, readTowns, type TownMatch } from "./towns";
import { changeCheck } from "../db/changes";
import { Lru } from "../core/lru";
import { registerCache } from "../core/caches";
import { applyImport, countSpots, derivedFactsVersion, loadCatalog, loadDerivedFacts, loadSpots, readCatalogMeta, readCatalogVersion } from "./store";
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
}

/** What the search index is built from: the spots with their imported and name-derived aliases, and the towns near them. */
export function searchInputs(stored: readonly StoredSpot[]): [Searchable[], TownMatch[]] {
  return [stored.map((s) => ({ ...s, aliases: [...new Set([...s.aliases, ...derivedAliases(s.name)])] })), matchTowns(readTowns(), stored)];
}

/** Seeds or refreshes the default catalog when needed; see docs/spots.md ("The default catalog"). */
function syncDefaultCatalog(db: Db): void {
  const empty = countSpots(db) === 0;
  const meta = readCatalogMeta(db);
  if (!empty && meta.source !== "default") return;
  const text = readDefaultCatalog();
  // The corrections overlay is part of the default: a changed overlay re-applies it like a changed file.
  const sha = sha256Hex(text + JSON.stringify(DEFAULT_OVERLAY));
  if (!empty && meta.defaultSha256 === sha) return;
  const { records } = applyOverlay(parseImport(text).records, DEFAULT_OVERLAY);
  applyImport(db, planImport(loadSpots(db), records, true), { kind: "default", defaultSha256: sha }, () => {
    // Another process may have seeded or imported since the reads above.
    const now = readCatalogMeta(db);
    return countSpots(db) === 0 || (now.source === "default" && now.defaultSha256 !== sha);
  });
}

export class SpotService {
  /** Null after `clear()` until the next call needs the catalog. */
  private loaded: Snapshot | null;
  private readonly changed: () => boolean;
  private derivedCheckedAt = Date.now();

  private constructor(private readonly db: Db) {
    this.changed = changeCheck(db);
    this.loaded = SpotService.load(db);
    registerCache(this);
  }

  /**
   * Drops the loaded catalog — spot objects and lookups (~6 MB of heap), the search and spatial indexes (~12 MB once
   * built): an idle server hands their memory back with its caches (ops/memory.ts). The next call reloads it (~50 ms;
   * the indexes at their first use).
   */
  clear(): void {
    this.loaded = null;
  }

  private static load(db: Db): Snapshot {
    const stored = loadCatalog(db);
    return new Snapshot(stored.spots, stored.version, stored.derived, stored.derivedVersion);
  }

  /**
   * The loaded catalog; reloaded first when another process imported since (one meta read per noticed commit),
   * and its spot objects rebuilt when the derived facts (facing, tideless) changed — by this process or another,
   * checked at most once a second.
   */
  private get snapshot(): Snapshot {
    if (this.loaded === null || (this.changed() && readCatalogVersion(this.db) !== this.loaded.version)) this.loaded = SpotService.load(this.db);
    const now = Date.now();
    if (now - this.derivedCheckedAt >= DERIVED_POLL_MS) {
      this.derivedCheckedAt = now;
      const version = derivedFactsVersion(this.db);
      if (version !== this.loaded.derivedVersion) this.loaded.applyDerived(loadDerivedFacts(this.db), version);
    }
    return this.loaded;
  }


  /** Opens the catalog; seeds the database from the embedded default catalog when it has no spots yet. */
  static open(db: Db): SpotService {
    syncDefaultCatalog(db);
    return new SpotService(db);
  }

  search(p: SearchParams): Spot[] {
    const { spots, search } = this.snapshot;
    return search.search(p.q, p.limit).map((i) => spots[i]!);
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
  import(source: string, replace: boolean): ImportResult {
    const file = parseImport(source);
    if (replace && file.records.length === 0) throw new UserError("--replace with no valid spot in the file would empty the catalog; nothing imported");
    const plan = planImport(loadSpots(this.db), file.records, replace);
    applyImport(this.db, plan, { kind: "import" });
    this.loaded = SpotService.load(this.db);
    return { ...plan.counts, file };
  }
}
