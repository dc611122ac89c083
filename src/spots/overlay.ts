/**
 * The corrections overlay of the default catalog (`data/catalog-overlay.json`, embedded by the build): one field of
 * one source record per entry, with its reason — never a copy of a record (the catalog has no open licence; see
 * docs/spots.md, "Corrections overlay"). Applied when the default catalog is loaded; a corrected record gets the
 * identity (hex id) of its corrected fields. Pure.
 */
import overlayFile from "../../data/catalog-overlay.json";
import { hexIdOf } from "./catalog";
import type { ParsedRecord } from "./formats";

/** Fields a correction may set. */
const CORRECTABLE = ["name", "country", "region", "lat", "lng", "facing", "tideless"] as const;
type Correctable = (typeof CORRECTABLE)[number];

export interface Correction {
  /** The source record's 16-hex id (as `spots import` computes it from the uncorrected record). */
  id: string;
  field: Correctable;
  value: string | number | boolean | null;
  reason: string;
}

/** Reads and validates overlay entries `{id, <one field>: value, reason}`; throws on a malformed entry. */
export function parseOverlay(raw: unknown): Correction[] {
  const entries = (raw as { corrections?: unknown })?.corrections;
  if (!Array.isArray(entries)) throw new Error("catalog overlay: `corrections` must be an array");
  return entries.map((entry: Record<string, unknown>, i) => {
    const fields = Object.keys(entry).filter((k) => k !== "id" && k !== "reason");
    const field = fields[0] as Correctable;
    if (typeof entry.id !== "string" || !/^[0-9a-f]{16}$/.test(entry.id) || typeof entry.reason !== "string" || entry.reason.trim() === "")
      throw new Error(`catalog overlay: entry ${i} needs a 16-hex "id" and a "reason"`);
    if (fields.length !== 1 || !CORRECTABLE.includes(field)) throw new Error(`catalog overlay: entry ${i} must correct exactly one of ${CORRECTABLE.join(", ")}`);
    return { id: entry.id, field, value: entry[field] as Correction["value"], reason: entry.reason };
  });
}

export const DEFAULT_OVERLAY: readonly Correction[] = parseOverlay(overlayFile);

/** The records with the corrections applied (in order); corrections whose record is not in the file are returned apart. */
export function applyOverlay(records: readonly ParsedRecord[], corrections: readonly Correction[]): { records: ParsedRecord[]; unmatched: Correction[] } {
  const byId = Map.groupBy(corrections, (c) => c.id);
  const matched = new Set<Correction>();
  const out = records.map((record) => {
    const own = byId.get(record.hexId);
    if (!own) return record;
    const corrected: ParsedRecord = { ...record };
    for (const c of own) {
      (corrected as unknown as Record<string, unknown>)[c.field] = c.value;
      matched.add(c);
    }
    return { ...corrected, hexId: hexIdOf(corrected) };
  });
  return { records: out, unmatched: corrections.filter((c) => !matched.has(c)) };
}
