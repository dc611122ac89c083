/**
 * Every cache of the process — the bounded caches, the loaded catalog, SQLite's page caches — so that an idle server
 * can empty them all at once and give their memory back (ops/memory.ts). Weakly held: a cache that belongs to a
 * replaced catalog snapshot, or a closed connection, is not kept alive by this list.
 */
interface Clearable {
  clear(): void;
}

const caches = new Set<{ owner: WeakRef<object>; clear: (owner: object) => void }>();

/** Bytes in a MB, as the MB settings and figures of this process count them. */
export const MB = 1_048_576;
/** SURFCAST_CACHE_MB's default: what a 512 MB box can give its caches (bench/README.md, "Memory"). */
export const DEFAULT_CACHE_MB = 16;
let budgetBytes = DEFAULT_CACHE_MB * MB;

/** Sets the byte budget the byte-bounded caches share (SURFCAST_CACHE_MB; openApp applies the configuration). */
export function setCacheBudget(mb: number): void {
  budgetBytes = mb * MB;
}

/**
 * A fixed part of the shared budget, read at every insertion, so that caches made at import time follow the
 * configuration applied after it.
 */
export function budgetShare(fraction: number): () => number {
  return () => budgetBytes * fraction;
}

/**
 * Lists a cache, emptied by its own `clear()` (core/lru.ts and core/bounded-map.ts list themselves) or by `clear(owner)`
 * for one that has none (a database connection's page cache). Returns the owner.
 */
export function registerCache<C extends Clearable>(cache: C): C;
export function registerCache<T extends object>(owner: T, clear: (owner: T) => void): T;
export function registerCache(owner: object, clear: (owner: object) => void = (cache) => (cache as Clearable).clear()): object {
  caches.add({ owner: new WeakRef(owner), clear });
  return owner;
}

/** Empties every listed cache still alive; returns how many were emptied. */
export function clearCaches(): number {
  let cleared = 0;
  for (const entry of caches) {
    const owner = entry.owner.deref();
    if (owner === undefined) caches.delete(entry);
    else {
      entry.clear(owner);
      cleared++;
    }
  }
  return cleared;
}
