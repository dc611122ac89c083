/** The embeds table (db/schema.ts `embeds`): every statement the embed room runs. */
import { and, eq, inArray, isNull } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { embeds } from "../db/schema";
import { log } from "../core/log";
import type { Units } from "../now/units";
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
  createdAt: number;
  revokedAt: number | null;
}

type Row = typeof embeds.$inferSelect;

/** Embeds whose dropped origins were logged, so each is logged once per process, not at every reload. */
const warned = new Set<string>();

/**
 * A stored row as a record. Origins go into a response header (frame-ancestors): one that is not in canonical form
 * (stored before origins were checked strictly, or written by hand) is dropped here, never served.
 */
function recordOf(row: Row): EmbedRecord {
  const stored = JSON.parse(row.origins) as unknown[];
  const origins = stored.filter((o): o is string => typeof o === "string" && isCanonicalOrigin(o));
  if (origins.length !== stored.length && !warned.has(row.id) && warned.add(row.id)) log.warn("embed origins dropped: not origins", { embed: row.id, dropped: stored.length - origins.length });
  return { ...row, spots: JSON.parse(row.spots) as string[], origins };
}

export function insertEmbed(db: Db, record: EmbedRecord): void {
  writeTransaction(db, () => {
    db.insert(embeds)
      .values({ ...record, spots: JSON.stringify(record.spots), origins: JSON.stringify(record.origins) })
      .run();
  });
}

export function embedById(db: Db, id: string): EmbedRecord | null {
  const row = db.select().from(embeds).where(eq(embeds.id, id)).get();
  return row ? recordOf(row) : null;
}

/** The embeds of these keys, oldest first. */
export function embedsOfKeys(db: Db, keyIds: readonly string[]): EmbedRecord[] {
  if (keyIds.length === 0) return [];
  return db.select().from(embeds).where(inArray(embeds.keyId, [...keyIds])).orderBy(embeds.createdAt, embeds.id).all().map(recordOf);
}

export function activeEmbeds(db: Db): EmbedRecord[] {
  return db.select().from(embeds).where(isNull(embeds.revokedAt)).all().map(recordOf);
}

/** Marks an embed revoked; false when it was unknown or already revoked. */
export function markRevoked(db: Db, id: string, at: number): boolean {
  const revoked = db.update(embeds).set({ revokedAt: at }).where(and(eq(embeds.id, id), isNull(embeds.revokedAt))).returning({ id: embeds.id });
  return writeTransaction(db, () => revoked.all().length > 0);
}
