import { registerCache } from "./caches";

/**
 * A Map that forgets every entry when a new key would take it past `limit`: a cache of values that are cheap to
 * compute again, with no per-entry bookkeeping on reads (core/lru.ts is for values worth keeping by recency).
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
    registerCache(this);
  }

  override set(key: K, value: V): this {
    if (this.size >= this.limit && !this.has(key)) this.clear();
    return super.set(key, value);
  }
}
