/**
 * What the embed room keeps in the database (`embeds`), implemented once for both databases (drizzle-store.ts). The
 * rules stay in service.ts; an account's caps are checked by a `check` the insert runs in its own transaction.
 */
import { log } from "../core/log";
import type { Units } from "../core/units";
import { isCanonicalOrigin } from "./origin";

export type Theme = "light" | "dark";

/** One embed as stored (spots and origins parsed). */
export interface EmbedRecord {
  id: string;
  keyId: string;
  spots: string[];
  origins: string[];
  units: Units;
  theme: Theme;
  /** The language of its words, dates and numbers (./lang/). */
  lang: string;
  createdAt: number;
  revokedAt: number | null;
}

/** An embed's row: its spots and origins as JSON arrays. */
export interface EmbedRow extends Omit<EmbedRecord, "spots" | "origins"> {
  spots: string;
  origins: string;
}

export interface EmbedStore {
  /**
   * Inserts the embed once `check` has seen its account's embeds — those switched on (of active keys) and all it
   * ever made — in one transaction, so that two processes creating at once cannot pass a cap together.
   */
  insertEmbed(record: EmbedRecord, accountId: number, check: (counts: { active: number; made: number }) => void): Promise<void>;
  embedById(id: string): Promise<EmbedRecord | null>;
  /** The embeds of these keys, oldest first. */
  embedsOfKeys(keyIds: readonly string[]): Promise<EmbedRecord[]>;
  /**
   * The embeds a server may show: switched on, of a key that is not revoked. What a reload loads is thus bounded by
   * the accounts' caps (docs/embeds.md), however many embeds and keys were made and switched off.
   */
  activeEmbeds(): Promise<EmbedRecord[]>;
  /** Marks an embed revoked; false when it was unknown or already revoked. */
  markRevoked(id: string, at: number): Promise<boolean>;
}

/** Embeds whose dropped origins were logged, so each is logged once per process, not at every reload. */
const warned = new Set<string>();

/**
 * A stored row as a record, whatever the store. Origins go into a response header (frame-ancestors): one that is not
 * in canonical form (stored before origins were checked strictly, or written by hand) is dropped here, never served.
 */
export function recordOf(row: EmbedRow): EmbedRecord {
  const stored = JSON.parse(row.origins) as unknown[];
  const origins = stored.filter((o): o is string => typeof o === "string" && isCanonicalOrigin(o));
  if (origins.length !== stored.length && !warned.has(row.id) && warned.add(row.id)) log.warn("embed origins dropped: not origins", { embed: row.id, dropped: stored.length - origins.length });
  return { ...row, spots: JSON.parse(row.spots) as string[], origins };
}

export function rowOf(record: EmbedRecord): EmbedRow {
  return { ...record, spots: JSON.stringify(record.spots), origins: JSON.stringify(record.origins) };
}
