/** The embed store (store.ts) on SQLite: every statement about embeds, through drizzle on bun:sqlite. */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { apiKeys, embeds } from "../db/schema";
import { recordOf, rowOf, type EmbedStore } from "./store";

export function sqliteEmbedStore(db: Db): EmbedStore {
  /** The account's embeds: those switched on (of active keys) and all it ever made. */
  const countsOf = (accountId: number): { active: number; made: number } => {
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
  };

  return {
    async insertEmbed(record, accountId, check) {
      writeTransaction(db, () => {
        check(countsOf(accountId));
        db.insert(embeds).values(rowOf(record)).run();
      });
    },

    async embedById(id) {
      const row = db.select().from(embeds).where(eq(embeds.id, id)).get();
      return row ? recordOf(row) : null;
    },

    async embedsOfKeys(keyIds) {
      if (keyIds.length === 0) return [];
      return db.select().from(embeds).where(inArray(embeds.keyId, [...keyIds])).orderBy(embeds.createdAt, embeds.id).all().map(recordOf);
    },

    async activeEmbeds() {
      return db
        .select({ embed: embeds })
        .from(embeds)
        .innerJoin(apiKeys, eq(embeds.keyId, apiKeys.id))
        .where(and(isNull(embeds.revokedAt), isNull(apiKeys.revokedAt)))
        .all()
        .map((r) => recordOf(r.embed));
    },

    async markRevoked(id, at) {
      return writeTransaction(db, () => db.update(embeds).set({ revokedAt: at }).where(and(eq(embeds.id, id), isNull(embeds.revokedAt))).returning({ id: embeds.id }).all().length > 0);
    },
  };
}
