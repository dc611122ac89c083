import { registerCache } from "./caches";

/**
 * A Map-based LRU bounded by the summed size of its values (kept forecast bodies and their compressed forms). The
 * capacity is a number or a function read at each insertion (a share of the cache budget, core/caches.ts).
 */
export class Lru<V> {
  private readonly map = new Map<string, { value: V; size: number }>();
  private total = 0;
  constructor(private readonly capacity: number | (() => number)) {
    registerCache(this);
  }
  get(key: string): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    this.map.delete(key);
    this.map.set(key, hit);
    return hit.value;
  }
  set(key: string, value: V, size: number): void {
    const old = this.map.get(key);
    if (old) {
      this.total -= old.size;
      this.map.delete(key);
    }
    this.map.set(key, { value, size });
    this.total += size;
    const capacity = typeof this.capacity === "number" ? this.capacity : this.capacity();
    for (const [k, v] of this.map) {
      if (this.total <= capacity || this.map.size === 1) break;
      this.map.delete(k);
      this.total -= v.size;
    }
  }
  clear(): void {
    this.map.clear();
    this.total = 0;
  }
}
