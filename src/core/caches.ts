/**
 * Every bounded cache of the process, so that an idle server can drop them all at once and give their memory back
 * (ops/memory.ts). Weakly held: a cache that belongs to a replaced catalog snapshot is not kept alive by this list.
 */
interface Clearable {
  clear(): void;
}

const caches = new Set<WeakRef<Clearable>>();

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

/** Lists a cache (core/lru.ts and core/bounded-map.ts list themselves). Returns it. */
export function registerCache<C extends Clearable>(cache: C): C {
  caches.add(new WeakRef(cache));
  return cache;
}

/** Empties every listed cache still alive; returns how many were emptied. */
export function clearCaches(): number {
  let cleared = 0;
  for (const ref of caches) {
    const cache = ref.deref();
    if (cache === undefined) caches.delete(ref);
    else {
      cache.clear();
      cleared++;
    }
  }
  return cleared;
}
