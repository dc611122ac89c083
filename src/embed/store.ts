/** The embeds table (db/schema.ts `embeds`): every statement the embed room runs. */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { apiKeys, embeds } from "../db/schema";
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

/** The account's embeds: those switched on (of active keys) and all it ever made. */
function countsOf(db: Db, accountId: number): { active: number; made: number } {
  const row = db
    .select({
      made: sql<number>`count(*)`,
      active: sql<number>`coalesce(sum(case when ${embeds.revokedAt} is null and ${apiKeys.revokedAt} is null then 1 else 0 end), 0)`,
    })
    .from(embeds)
    .innerJoin(apiKeys, eq(embeds.keyId, apiKeys.id))
    .where(eq(apiKeys.accountId, accountId))
    .get();
  return { active: row?.active ?? 0, made: row?.made ?? 0 };
}

/**
 * Inserts an embed unless its account is at a cap, checked in the same write transaction (BEGIN IMMEDIATE), so two
 * processes creating at once cannot pass a cap together. Returns the cap that refused it, or null when inserted.
 */
export function insertEmbed(db: Db, record: EmbedRecord, caps: { accountId: number; active: number; made: number }): "active" | "made" | null {
  return writeTransaction(db, () => {
    const counts = countsOf(db, caps.accountId);
    if (counts.made >= caps.made) return "made";
    if (counts.active >= caps.active) return "active";
    db.insert(embeds)
      .values({ ...record, spots: JSON.stringify(record.spots), origins: JSON.stringify(record.origins) })
      .run();
    return null;
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

/**
 * The embeds a server may show: switched on, of a key that is not revoked. What a reload loads is thus bounded by
 * the accounts' caps (docs/embeds.md), however many embeds and keys were made and switched off.
 */
export function activeEmbeds(db: Db): EmbedRecord[] {
  return db
    .select({ embed: embeds })
    .from(embeds)
    .innerJoin(apiKeys, eq(embeds.keyId, apiKeys.id))
    .where(and(isNull(embeds.revokedAt), isNull(apiKeys.revokedAt)))
    .all()
    .map((r) => recordOf(r.embed));
}

/** Marks an embed revoked; false when it was unknown or already revoked. */
export function markRevoked(db: Db, id: string, at: number): boolean {
  const revoked = db.update(embeds).set({ revokedAt: at }).where(and(eq(embeds.id, id), isNull(embeds.revokedAt))).returning({ id: embeds.id });
  return writeTransaction(db, () => revoked.all().length > 0);
}
