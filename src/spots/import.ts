/**
 * Import planning: which records add, update or leave spots, and which ids new spots get. A spot survives a
 * re-import when a record has its identity (the hex id): it keeps both ids. Pure.
 */
import { assignSlugs, type SpotRecord, type StoredSpot } from "./catalog";
import type { ImportPlan } from "./store";

export interface ImportCounts {
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
}

const sameRecord = (a: SpotRecord, b: SpotRecord): boolean =>
  a.name === b.name &&
  a.country === b.country &&
  a.region === b.region &&
  a.lat === b.lat &&
  a.lng === b.lng &&
  a.facing === b.facing &&
  a.tideless === b.tideless &&
  [...a.aliases].sort().join("\u0001") === [...b.aliases].sort().join("\u0001");

/**
 * Without `replace` the import adds and updates; with it the catalog becomes exactly `records`. New spots
 * never take an id a surviving spot holds; with `replace`, ids of removed spots are free again (so a spot
 * whose position was corrected by more than ~1 m usually gets its old slug back).
 */
export function planImport(existing: readonly StoredSpot[], records: readonly (SpotRecord & { hexId: string })[], replace: boolean): ImportPlan & { counts: ImportCounts } {
  const byHex = new Map(existing.map((s) => [s.hexId, s]));
  const incoming = new Set(records.map((r) => r.hexId));
  const removed = replace ? existing.filter((s) => !incoming.has(s.hexId)) : [];
  const removedIds = new Set(removed.map((s) => s.id));
  const taken = new Set(existing.filter((s) => !removedIds.has(s.id)).map((s) => s.id));

  const update: StoredSpot[] = [];
  const fresh: (SpotRecord & { hexId: string })[] = [];
  let unchanged = 0;
  for (const r of records) {
    const current = byHex.get(r.hexId);
    if (!current) fresh.push(r);
    else if (sameRecord(current, r)) unchanged++;
    else update.push({ ...pick(r), id: current.id, hexId: current.hexId });
  }
  const slugs = assignSlugs(fresh, taken);
  const add = fresh.map((r) => ({ ...pick(r), id: slugs.get(r.hexId)!, hexId: r.hexId }));
  return {
    add,
    update,
    remove: removed.map((s) => s.id),
    counts: { added: add.length, updated: update.length, unchanged, removed: removed.length },
  };
}

/** Only the record's own fields (parsed records also carry where they stood in the file). */
const pick = (r: SpotRecord): SpotRecord => ({
  name: r.name,
  country: r.country,
  region: r.region,
  lat: r.lat,
  lng: r.lng,
  aliases: r.aliases,
  facing: r.facing,
  tideless: r.tideless,
});
