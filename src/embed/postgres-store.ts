/**
 * The embed store (store.ts) on the shared PostgreSQL database, for several servers at once. An insert locks its
 * account's row while it counts the account's embeds, so two servers creating embeds for one account take turns
 * and its caps hold; an embed made or switched off is announced on the "embeds" topic in its own transaction, for
 * every server's copy of the active embeds.
 */
import { and, asc, count, eq, inArray, isNull, sql } from "drizzle-orm";
import type { PgDb } from "../db/postgres";
import { notifyChange } from "../db/postgres/changes";
import { accounts, apiKeys, embeds } from "../db/postgres/schema";
import type { PgTx } from "../db/postgres/transaction";
import { recordOf, rowOf, type EmbedStore } from "./store";

/** The account's embeds: those switched on (of active keys) and all it ever made. */
async function countsOf(tx: PgTx, accountId: number): Promise<{ active: number; made: number }> {
  const [row] = await tx
    .select({ made: count(), active: count(sql`case when ${embeds.revokedAt} is null and ${apiKeys.revokedAt} is null then 1 end`) })
    .from(embeds)
    .innerJoin(apiKeys, eq(embeds.keyId, apiKeys.id))
    .where(eq(apiKeys.accountId, accountId));
  return row ?? { active: 0, made: 0 };
}

export function postgresEmbedStore(db: PgDb): EmbedStore {
  return {
    async insertEmbed(record, accountId, check) {
      await db.transaction(async (tx) => {
        await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
        check(await countsOf(tx, accountId));
        await tx.insert(embeds).values(rowOf(record));
        await notifyChange(tx, "embeds");
      });
    },

    async embedById(id) {
      const [row] = await db.select().from(embeds).where(eq(embeds.id, id));
      return row ? recordOf(row) : null;
    },

    async embedsOfKeys(keyIds) {
      if (keyIds.length === 0) return [];
      const rows = await db
        .select()
        .from(embeds)
        .where(inArray(embeds.keyId, [...keyIds]))
        // Ids in code-point order on a tie, as SQLite's binary collation sorts them.
        .orderBy(asc(embeds.createdAt), asc(sql`${embeds.id} collate "C"`));
      return rows.map(recordOf);
    },

    async activeEmbeds() {
      const rows = await db
        .select({ embed: embeds })
        .from(embeds)
        .innerJoin(apiKeys, eq(embeds.keyId, apiKeys.id))
        .where(and(isNull(embeds.revokedAt), isNull(apiKeys.revokedAt)));
      return rows.map((r) => recordOf(r.embed));
    },

    markRevoked: (id, at) =>
      db.transaction(async (tx) => {
        const revoked = await tx
          .update(embeds)
          .set({ revokedAt: at })
          .where(and(eq(embeds.id, id), isNull(embeds.revokedAt)))
          .returning({ id: embeds.id });
        if (revoked.length === 0) return false;
        await notifyChange(tx, "embeds");
        return true;
      }),
  };
}
