/**
 * In-memory map from key hash to the principal it authenticates, so a request costs one hash and one Map
 * lookup, synchronously. Console changes made by another process are picked up within about a second (poll).
 * Only keys that are not revoked are loaded: a revoked key answers exactly as an unknown one (401 invalid_key),
 * and what a reload reads stays bounded by the accounts' active-key caps however many keys were made and revoked.
 */
import { registerCache } from "../core/caches";
import { ApiError } from "../core/errors";
import { Reloader } from "../core/reloader";
import { PLAN_DEFAULTS, type PlanName } from "./plans";
import { hashKey, isWellFormedKey } from "./keys";
import type { Limits } from "./limiter";
import type { AccountStore } from "./store";

export interface Principal extends Limits {
  keyId: string;
  accountId: number;
  plan: PlanName;
}

type Entry = { principal: Principal; disabled: boolean };

const MAX_REMEMBERED_KEYS = 10_000;
const MISSING_KEY = new ApiError("invalid_key", "Missing or malformed API key. Send it as X-API-Key: <key> or Authorization: Bearer <key>.");

export class KeyRegistry {
  private byHash = new Map<string, Entry>();
  /**
   * Presented keys already resolved, so a repeat request skips the hash; cleared on every reload, and with the caches
   * at the idle release, so that a server at rest holds no key as sent, only hashes.
   */
  private readonly byKey = registerCache(new Map<string, Entry>());
  /** Key id → entry: embeds (src/embed/) count their views on the key they belong to, which they never hold. */
  private byId = new Map<string, Entry>();
  private readonly reloads = new Reloader(() => this.load());

  /**
   * `changed` tells whether another process may have changed keys or accounts since its last call, and says so on
   * its first call (db/changes.ts): the registry is empty until the first poll() loads it.
   */
  constructor(
    private readonly store: Pick<AccountStore, "activeKeys">,
    private readonly changed: () => boolean,
  ) {}

  /**
   * Reloads when another process has committed since the last look; cheap, call on every request. Answers the
   * reload to wait for before authenticating, or null (nearly always): the maps are current.
   */
  poll(): Promise<void> | null {
    return this.changed() ? this.reloads.reload() : this.reloads.inFlight;
  }

  /** Reloads after a change of this process's own; resolves once the maps hold it. */
  reload(): Promise<void> {
    return this.reloads.reload();
  }

  private async load(): Promise<void> {
    const rows = await this.store.activeKeys();
    const next = new Map<string, Entry>();
    const byId = new Map<string, Entry>();
    for (const { key, account } of rows) {
      const plan = account.plan as PlanName;
      const defaults = PLAN_DEFAULTS[plan];
      const entry: Entry = {
        disabled: account.disabled,
        principal: {
          keyId: key.id,
          accountId: account.id,
          plan,
          dailyLimit: account.dailyLimit ?? defaults.dailyLimit,
          minuteLimit: account.minuteLimit ?? defaults.minuteLimit,
        },
      };
      next.set(key.hash, entry);
      byId.set(key.id, entry);
    }
    this.byHash = next;
    this.byId = byId;
    this.byKey.clear();
  }

  /** How many presented keys are remembered as sent (tests: none after the idle release). */
  get remembered(): number {
    return this.byKey.size;
  }

  /** How many keys the last reload loaded (tests: revoked keys are not among them). */
  get loaded(): number {
    return this.byId.size;
  }

  /** The principal of a key by its id; null when the key is unknown, revoked or its account disabled. */
  principalById(keyId: string): Principal | null {
    const entry = this.byId.get(keyId);
    return entry && !entry.disabled ? entry.principal : null;
  }

  /** The principal for a presented key, or the spec's 401 error. */
  authenticate(key: string | null): Principal | ApiError {
    if (key === null) return MISSING_KEY;
    let entry = this.byKey.get(key);
    if (!entry) {
      if (!isWellFormedKey(key)) return MISSING_KEY;
      entry = this.byHash.get(hashKey(key));
      // Only keys that exist are remembered, so random keys cannot grow the map; the cap bounds the rest.
      if (entry && this.byKey.size < MAX_REMEMBERED_KEYS) this.byKey.set(key, entry);
    }
    if (!entry) return new ApiError("invalid_key", "Unknown or revoked API key.");
    if (entry.disabled) return new ApiError("account_disabled", "The account of this API key is disabled.");
    return entry.principal;
  }
}
