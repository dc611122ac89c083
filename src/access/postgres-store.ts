/**
 * The access store (store.ts) on the shared PostgreSQL database, for several servers at once. A call that reads,
 * checks and writes is one transaction that locks what its check reads (the account's row), so two servers acting
 * on one account take turns; a write the other servers keep in memory (accounts and keys) announces itself on the
 * "access" topic in its own transaction. Usage flushes add to the stored counts, so servers flushing the same
 * counters at once lose nothing.
 */
import { and, asc, count, eq, getTableColumns, gte, inArray, isNull, max, sql } from "drizzle-orm";
import type { PgDb } from "../db/postgres";
import { insertChunks, upsertRows } from "../db/postgres/batch-rows";
import { notifyChange, type ChangeTopic } from "../db/postgres/changes";
import { accounts, apiKeys, consoleSessions, embeds, plans, rateLimitState, usageCounters } from "../db/postgres/schema";
import type { PgQueryable, PgTx } from "../db/postgres/transaction";
import { excluded, excludedAll } from "../db/statements";
import { PLAN_DEFAULTS, PLAN_NAMES } from "./plans";
import { emailContaining, type AccessStore, type AccountUpdate, type NewAccount, type StoredAccount, type UsageCount } from "./store";

/** A sum or count of bigints, which PostgreSQL answers as a numeric or bigint the driver hands over as text. */
const total = (expression: ReturnType<typeof sql>) => sql<number>`${expression}`.mapWith(Number);

/** An account's active keys, counted in the statement that reads the account. */
const activeKeyCount = total(sql`(select count(*) from ${apiKeys} where ${apiKeys.accountId} = ${accounts.id} and ${apiKeys.revokedAt} is null)`);
const storedAccount = { ...getTableColumns(accounts), activeKeys: activeKeyCount };

/** E-mails in code-point order, as SQLite's binary collation sorts them, whatever the database's collation. */
const byEmail = asc(sql`${accounts.email} collate "C"`);

/**
 * The account statements the console's PostgreSQL store also runs inside its own transactions (an invitation makes
 * or changes its account with its link), so they exist once. `lock` holds the account's row until the transaction
 * ends, for a call whose check reads it.
 */
export function postgresAccountStatements(db: PgQueryable) {
  return {
    async byEmail(email: string, lock: "lock" | "read" = "read"): Promise<StoredAccount | null> {
      const query = db.select(storedAccount).from(accounts).where(eq(accounts.email, email));
      const [row] = await (lock === "lock" ? query.for("update") : query);
      return row ?? null;
    },
    /** Null when an account has this e-mail already, even one another transaction is making now. */
    async insert(account: NewAccount): Promise<StoredAccount | null> {
      const [row] = await db
        .insert(accounts)
        .values({ ...account, disabled: false })
        .onConflictDoNothing({ target: accounts.email })
        .returning();
      // A new account has no keys.
      return row ? { ...row, activeKeys: 0 } : null;
    },
    async update(account: StoredAccount, update: AccountUpdate): Promise<StoredAccount> {
      if (Object.keys(update).length > 0) await db.update(accounts).set(update).where(eq(accounts.id, account.id));
      return { ...account, ...update };
    },
  };
}

/** Counts of one key, day and endpoint added together (SQLite adds them row by row), in key order against deadlocks. */
function summedCounts(counts: readonly UsageCount[]): UsageCount[] {
  const sums = new Map<string, UsageCount>();
  for (const usage of counts) {
    const key = JSON.stringify([usage.keyId, usage.day, usage.endpoint]);
    const seen = sums.get(key);
    sums.set(key, seen ? { ...seen, count: seen.count + usage.count } : usage);
  }
  return [...sums.keys()].sort().map((key) => sums.get(key)!);
}

export function postgresAccessStore(db: PgDb): AccessStore {
  const statements = postgresAccountStatements(db);
  const keyWithAccount = async (tx: PgQueryable, keyId: string, lock: "lock" | "read" = "read") => {
    const query = tx.select({ key: apiKeys, account: accounts }).from(apiKeys).innerJoin(accounts, eq(apiKeys.accountId, accounts.id)).where(eq(apiKeys.id, keyId));
    const [row] = await (lock === "lock" ? query.for("update", { of: apiKeys }) : query);
    return row ?? null;
  };
  /** Runs `work` in one transaction and announces the change it made, unless it answers null (nothing changed). */
  const changing = <T>(work: (tx: PgTx) => Promise<T | null>, topics: readonly ChangeTopic[] = ["access"]) =>
    db.transaction(async (tx) => {
      const result = await work(tx);
      if (result !== null) for (const topic of topics) await notifyChange(tx, topic);
      return result;
    });

  return {
    accountByEmail: (email) => statements.byEmail(email),

    async accountById(id) {
      const [row] = await db.select(storedAccount).from(accounts).where(eq(accounts.id, id));
      return row ?? null;
    },

    listAccounts: () => db.select(storedAccount).from(accounts).orderBy(byEmail),

    async accountsPage({ query, offset, limit }) {
      const matching = query ? sql`${accounts.email} like ${emailContaining(query)} escape '\\'` : undefined;
      const [counted] = await db.select({ n: count() }).from(accounts).where(matching);
      const rows = await db.select(storedAccount).from(accounts).where(matching).orderBy(byEmail).limit(limit).offset(offset);
      return { accounts: rows, total: counted!.n };
    },

    // The read first, so that a duplicate spends no id of the sequence (ids then follow SQLite's); the insert's
    // conflict clause catches an account another server makes meanwhile.
    insertAccount: (account) =>
      changing(async (tx) => {
        const inTx = postgresAccountStatements(tx);
        return (await inTx.byEmail(account.email)) === null ? inTx.insert(account) : null;
      }),

    updateAccount: (email, update) =>
      changing(async (tx) => {
        const inTx = postgresAccountStatements(tx);
        const account = await inTx.byEmail(email, "lock");
        return account ? inTx.update(account, update) : null;
      }),

    setDisabled: (email, disabled) =>
      changing(async (tx) => {
        const account = await postgresAccountStatements(tx).byEmail(email, "lock");
        if (!account) return null;
        await tx.update(accounts).set({ disabled }).where(eq(accounts.id, account.id));
        if (disabled) await tx.delete(consoleSessions).where(eq(consoleSessions.accountId, account.id));
        return { ...account, disabled };
      }),

    createKey: (email, key, check) =>
      changing(async (tx) => {
        // The account's row stays locked until the commit: a second server creating a key for it waits, then counts this one.
        const [account] = await tx.select().from(accounts).where(eq(accounts.email, email)).for("update");
        if (!account) return null;
        const active = await tx.select({ name: apiKeys.name }).from(apiKeys).where(and(eq(apiKeys.accountId, account.id), isNull(apiKeys.revokedAt)));
        check(account, active.map((k) => k.name));
        const [inserted] = await tx.insert(apiKeys).values({ ...key, accountId: account.id }).returning();
        return { key: inserted!, account };
      }),

    revokeKey: (keyId, at, check) =>
      changing(
        async (tx) => {
          const found = await keyWithAccount(tx, keyId, "lock");
          if (!found) return null;
          check(found.key);
          await tx.update(apiKeys).set({ revokedAt: at }).where(eq(apiKeys.id, keyId));
          await tx.update(embeds).set({ revokedAt: at }).where(and(eq(embeds.keyId, keyId), isNull(embeds.revokedAt)));
          return { key: { ...found.key, revokedAt: at }, account: found.account };
        },
        ["access", "embeds"],
      ),

    keyById: (keyId) => keyWithAccount(db, keyId),

    async keyIdByHash(hash) {
      const [row] = await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.hash, hash));
      return row?.id ?? null;
    },

    async keysOf(email) {
      const [account] = await db.select().from(accounts).where(eq(accounts.email, email));
      if (!account) return null;
      return { account, keys: await db.select().from(apiKeys).where(eq(apiKeys.accountId, account.id)).orderBy(asc(apiKeys.createdAt)) };
    },

    activeKeys: () => db.select({ key: apiKeys, account: accounts }).from(apiKeys).innerJoin(accounts, eq(apiKeys.accountId, accounts.id)).where(isNull(apiKeys.revokedAt)),

    async saveUsage(counts, windows) {
      if (counts.length === 0 && windows.length === 0) return;
      await db.transaction(async (tx) => {
        for (const chunk of insertChunks(usageCounters, summedCounts(counts))) {
          await tx
            .insert(usageCounters)
            .values(chunk)
            .onConflictDoUpdate({ target: [usageCounters.keyId, usageCounters.day, usageCounters.endpoint], set: { count: sql`${usageCounters.count} + ${excluded(usageCounters.count)}` } });
        }
        for (const chunk of insertChunks(rateLimitState, upsertRows(windows, (w) => w.keyId))) {
          await tx
            .insert(rateLimitState)
            .values(chunk)
            .onConflictDoUpdate({ target: rateLimitState.keyId, set: excludedAll({ recent: rateLimitState.recent, updatedAt: rateLimitState.updatedAt }) });
        }
      });
    },

    async burstWindow(keyId) {
      const [row] = await db.select({ recent: rateLimitState.recent }).from(rateLimitState).where(eq(rateLimitState.keyId, keyId));
      return row?.recent ?? null;
    },

    async countsByDay(keyIds, firstDay) {
      if (keyIds.length === 0) return [];
      return db
        .select({ day: usageCounters.day, endpoint: usageCounters.endpoint, count: total(sql`sum(${usageCounters.count})`) })
        .from(usageCounters)
        .where(and(inArray(usageCounters.keyId, [...keyIds]), gte(usageCounters.day, firstDay)))
        .groupBy(usageCounters.day, usageCounters.endpoint)
        // The order SQLite's grouping gives, which PostgreSQL's does not promise.
        .orderBy(sql`${usageCounters.day} collate "C"`, sql`${usageCounters.endpoint} collate "C"`);
    },

    async lastUsedDays(keyIds) {
      if (keyIds.length === 0) return new Map();
      const rows = await db
        .select({ keyId: usageCounters.keyId, day: max(usageCounters.day) })
        .from(usageCounters)
        .where(inArray(usageCounters.keyId, [...keyIds]))
        .groupBy(usageCounters.keyId);
      return new Map(rows.map((r) => [r.keyId, r.day!]));
    },

    async dayTotalsByKey(keyIds, day) {
      if (keyIds.length === 0) return new Map();
      const rows = await db
        .select({ keyId: usageCounters.keyId, n: total(sql`sum(${usageCounters.count})`) })
        .from(usageCounters)
        .where(and(inArray(usageCounters.keyId, [...keyIds]), eq(usageCounters.day, day)))
        .groupBy(usageCounters.keyId);
      return new Map(rows.map((r) => [r.keyId, r.n]));
    },

    async dayTotalsByAccount(accountIds, day) {
      if (accountIds.length === 0) return new Map();
      const rows = await db
        .select({ accountId: apiKeys.accountId, n: total(sql`sum(${usageCounters.count})`) })
        .from(apiKeys)
        .innerJoin(usageCounters, and(eq(usageCounters.keyId, apiKeys.id), eq(usageCounters.day, day)))
        .where(inArray(apiKeys.accountId, [...accountIds]))
        .groupBy(apiKeys.accountId);
      return new Map(rows.map((r) => [r.accountId, r.n]));
    },
  };
}

/**
 * Writes the plan table from PLAN_DEFAULTS (idempotent; run at every open). Unlike SQLite's, it writes without
 * reading first: an upsert here locks only the plan rows, not the whole database.
 */
export async function seedPostgresPlans(db: PgQueryable): Promise<void> {
  const replaced = excludedAll({ dailyLimit: plans.dailyLimit, minuteLimit: plans.minuteLimit, maxKeys: plans.maxKeys, attributionRequired: plans.attributionRequired, maxAlerts: plans.maxAlerts });
  await db
    .insert(plans)
    .values(PLAN_NAMES.map((name) => ({ name, ...PLAN_DEFAULTS[name] })))
    .onConflictDoUpdate({ target: plans.name, set: replaced });
}
