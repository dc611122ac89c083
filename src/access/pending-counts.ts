/**
 * Uses counted in memory and not yet written to the database, per key, UTC day and endpoint: a flush takes them all
 * and gives them back if the write fails, so a count is written once or kept, never lost nor doubled.
 */
import type { UsageCount } from "./store";

const SEPARATOR = "\u0000";

export class PendingCounts {
  /** `keyId \u0000 day \u0000 endpoint` → count. */
  private counts = new Map<string, number>();

  /** The map key of one key's day and endpoint: built once per day by a caller on the request path. */
  static keyOf(keyId: string, day: string, endpoint: string): string {
    return `${keyId}${SEPARATOR}${day}${SEPARATOR}${endpoint}`;
  }

  get size(): number {
    return this.counts.size;
  }

  add(countKey: string, n: number): void {
    this.counts.set(countKey, (this.counts.get(countKey) ?? 0) + n);
  }

  /** One key's pending counts, those of `day` only when given. */
  ofKey(keyId: string, day?: string): UsageCount[] {
    const prefix = day === undefined ? `${keyId}${SEPARATOR}` : `${keyId}${SEPARATOR}${day}${SEPARATOR}`;
    return [...this.counts].filter(([k]) => k.startsWith(prefix)).map(([k, count]) => countOf(k, count));
  }

  /** Every pending count, leaving none: give them back with `restore` if writing them fails. */
  take(): UsageCount[] {
    const taken = [...this.counts].map(([k, count]) => countOf(k, count));
    this.counts = new Map();
    return taken;
  }

  restore(counts: readonly UsageCount[]): void {
    for (const c of counts) this.add(PendingCounts.keyOf(c.keyId, c.day, c.endpoint), c.count);
  }
}

function countOf(countKey: string, count: number): UsageCount {
  const [keyId, day, endpoint] = countKey.split(SEPARATOR) as [string, string, string];
  return { keyId, day, endpoint, count };
}
