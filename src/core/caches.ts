/**
 * Every bounded cache of the process, so that an idle server can drop them all at once and give their memory back
 * (ops/memory.ts). Weakly held: a cache that belongs to a replaced catalog snapshot is not kept alive by this list.
 */
interface Clearable {
  clear(): void;
}

const caches = new Set<WeakRef<Clearable>>();

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
