/**
 * The embed store (store.ts) through drizzle, on either database (db/store-dialect.ts). An insert locks its
 * account's row (PostgreSQL) while it counts the account's embeds, so two servers creating embeds for one account
 * take turns and its caps hold; an embed made or switched off is announced on the "embeds" topic in its own
 * transaction, for every server's copy of the active embeds.
 */
import { and, count, eq, inArray, isNull, sql } from "drizzle-orm";
import { run, type StoreDialect } from "../db/store-dialect";
import { recordOf, rowOf, type EmbedStore } from "./store";

export function drizzleEmbedStore({ db, tables: { accounts, apiKeys, embeds }, write, lock, notify, binary }: StoreDialect): EmbedStore {
  return {
    insertEmbed: (record, accountId, check) =>
      write(function* (tx) {
        yield* run(lock(tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId))));
        // The account's embeds: those switched on (of active keys) and all it ever made.
        const active = count(sql`case when ${embeds.revokedAt} is null and ${apiKeys.revokedAt} is null then 1 end`);
        const [counts] = yield* run(tx.select({ active, made: count() }).from(embeds).innerJoin(apiKeys, eq(embeds.keyId, apiKeys.id)).where(eq(apiKeys.accountId, accountId)));
        check(counts ?? { active: 0, made: 0 });
        yield* run(tx.insert(embeds).values(rowOf(record)));
        yield* notify(tx, "embeds");
      }),

    async embedById(id) {
      const [row] = await db.select().from(embeds).where(eq(embeds.id, id));
      return row ? recordOf(row) : null;
    },

    async embedsOfKeys(keyIds) {
      if (keyIds.length === 0) return [];
      return (await db.select().from(embeds).where(inArray(embeds.keyId, [...keyIds])).orderBy(embeds.createdAt, binary(embeds.id))).map(recordOf);
    },

    async activeEmbeds() {
      const rows = await db.select({ embed: embeds }).from(embeds).innerJoin(apiKeys, eq(embeds.keyId, apiKeys.id)).where(and(isNull(embeds.revokedAt), isNull(apiKeys.revokedAt)));
      return rows.map((r) => recordOf(r.embed));
    },

    markRevoked: (id, at) =>
      write(function* (tx) {
        const revoked = yield* run(tx.update(embeds).set({ revokedAt: at }).where(and(eq(embeds.id, id), isNull(embeds.revokedAt))).returning({ id: embeds.id }));
        if (revoked.length > 0) yield* notify(tx, "embeds");
        return revoked.length > 0;
      }),
  };
}
