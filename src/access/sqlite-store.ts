/**
 * The access store (store.ts) on SQLite: every statement about accounts, keys, usage and plans, through drizzle on
 * bun:sqlite. bun:sqlite is synchronous, so each call has done its work when it returns its promise; a call that
 * reads, checks and writes runs in one writeTransaction (BEGIN IMMEDIATE), with no await inside.
 */
import { and, asc, eq, gte, inArray, isNull, sql } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { excluded } from "../db/statements";
import { accounts, apiKeys, consoleSessions, embeds, plans, rateLimitState, usageCounters } from "../db/schema";
import { PLAN_DEFAULTS, PLAN_NAMES } from "./plans";
import { emailContaining, type AccessStore, type AccountUpdate, type NewAccount, type StoredAccount } from "./store";

type AccountRow = typeof accounts.$inferSelect;

function activeKeyCount(db: Db, accountId: number): number {
  return db
    .select({ n: sql<number>`count(*)` })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
    .get()!.n;
}

const stored = (db: Db, row: AccountRow, activeKeys = activeKeyCount(db, row.id)): StoredAccount => ({ ...row, activeKeys });

/**
 * The account statements the console's SQLite store also runs inside its own transactions (an invitation makes or
 * changes its account with its link), so they exist once.
 */
export function sqliteAccountStatements(db: Db) {
  return {
    byEmail(email: string): StoredAccount | null {
      const row = db.select().from(accounts).where(eq(accounts.email, email)).get();
      return row ? stored(db, row) : null;
    },
    insert(account: NewAccount): StoredAccount {
      // A new account has no keys.
      return stored(db, db.insert(accounts).values({ ...account, disabled: false }).returning().get(), 0);
    },
    update(account: StoredAccount, update: AccountUpdate): StoredAccount {
      if (Object.keys(update).length > 0) db.update(accounts).set(update).where(eq(accounts.id, account.id)).run();
      return { ...account, ...update };
    },
  };
}

/** The upserts of a usage flush, prepared once: a flush writes up to two rows per key used since the last one. */
function usageWrites(db: Db) {
  return {
    addCount: db
      .insert(usageCounters)
      .values({ keyId: sql.placeholder("keyId"), day: sql.placeholder("day"), endpoint: sql.placeholder("endpoint"), count: sql.placeholder("count") })
      .onConflictDoUpdate({
        target: [usageCounters.keyId, usageCounters.day, usageCounters.endpoint],
        set: { count: sql`${usageCounters.count} + ${excluded(usageCounters.count)}` },
      })
      .prepare(),
    saveWindow: db
      .insert(rateLimitState)
      .values({ keyId: sql.placeholder("keyId"), recent: sql.placeholder("recent"), updatedAt: sql.placeholder("updatedAt") })
      .onConflictDoUpdate({ target: rateLimitState.keyId, set: { recent: excluded(rateLimitState.recent), updatedAt: excluded(rateLimitState.updatedAt) } })
      .prepare(),
  };
}

export function sqliteAccessStore(db: Db): AccessStore {
  const statements = sqliteAccountStatements(db);
  const writes = usageWrites(db);
  const byId = (id: number) => db.select().from(accounts).where(eq(accounts.id, id)).get();
  const keyWithAccount = (keyId: string) =>
    db.select({ key: apiKeys, account: accounts }).from(apiKeys).innerJoin(accounts, eq(apiKeys.accountId, accounts.id)).where(eq(apiKeys.id, keyId)).get() ?? null;

  return {
    async accountByEmail(email) {
      return statements.byEmail(email);
    },

    async accountById(id) {
      const row = byId(id);
      return row ? stored(db, row) : null;
    },

    async listAccounts() {
      return db
        .select()
        .from(accounts)
        .orderBy(asc(accounts.email))
        .all()
        .map((row) => stored(db, row));
    },

    async accountsPage({ query, offset, limit }) {
      const pattern = query ? emailContaining(query) : undefined;
      const matching = pattern ? sql`${accounts.email} like ${pattern} escape '\\'` : undefined;
      const total = db.select({ n: sql<number>`count(*)` }).from(accounts).where(matching).get()!.n;
      const rows = db.select().from(accounts).where(matching).orderBy(asc(accounts.email)).limit(limit).offset(offset).all();
      const counts = new Map(
        db
          .select({ accountId: apiKeys.accountId, n: sql<number>`count(*)` })
          .from(apiKeys)
          .where(and(inArray(apiKeys.accountId, rows.map((r) => r.id)), isNull(apiKeys.revokedAt)))
          .groupBy(apiKeys.accountId)
          .all()
          .map((c) => [c.accountId, c.n]),
      );
      return { accounts: rows.map((row) => stored(db, row, counts.get(row.id) ?? 0)), total };
    },

    async insertAccount(account) {
      return writeTransaction(db, () => (statements.byEmail(account.email) ? null : statements.insert(account)));
    },

    async updateAccount(email, update) {
      return writeTransaction(db, () => {
        const account = statements.byEmail(email);
        return account ? statements.update(account, update) : null;
      });
    },

    async setDisabled(email, disabled) {
      return writeTransaction(db, () => {
        const account = statements.byEmail(email);
        if (!account) return null;
        db.update(accounts).set({ disabled }).where(eq(accounts.id, account.id)).run();
        if (disabled) db.delete(consoleSessions).where(eq(consoleSessions.accountId, account.id)).run();
        return { ...account, disabled };
      });
    },

    async createKey(email, key, check) {
      return writeTransaction(db, () => {
        const account = db.select().from(accounts).where(eq(accounts.email, email)).get();
        if (!account) return null;
        const active = db.select({ name: apiKeys.name }).from(apiKeys).where(and(eq(apiKeys.accountId, account.id), isNull(apiKeys.revokedAt))).all();
        check(account, active.map((k) => k.name));
        return { key: db.insert(apiKeys).values({ ...key, accountId: account.id }).returning().get(), account };
      });
    },

    async revokeKey(keyId, at, check) {
      return writeTransaction(db, () => {
        const found = keyWithAccount(keyId);
        if (!found) return null;
        check(found.key);
        db.update(apiKeys).set({ revokedAt: at }).where(eq(apiKeys.id, keyId)).run();
        db.update(embeds).set({ revokedAt: at }).where(and(eq(embeds.keyId, keyId), isNull(embeds.revokedAt))).run();
        return { key: { ...found.key, revokedAt: at }, account: found.account };
      });
    },

    async keyById(keyId) {
      return keyWithAccount(keyId);
    },

    async keyIdByHash(hash) {
      return db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.hash, hash)).get()?.id ?? null;
    },

    async keysOf(email) {
      const account = db.select().from(accounts).where(eq(accounts.email, email)).get();
      if (!account) return null;
      return { account, keys: db.select().from(apiKeys).where(eq(apiKeys.accountId, account.id)).orderBy(asc(apiKeys.createdAt)).all() };
    },

    async activeKeys() {
      return db.select({ key: apiKeys, account: accounts }).from(apiKeys).innerJoin(accounts, eq(apiKeys.accountId, accounts.id)).where(isNull(apiKeys.revokedAt)).all();
    },

    async saveUsage(counts, windows) {
      writeTransaction(db, () => {
        for (const { keyId, day, endpoint, count } of counts) writes.addCount.run({ keyId, day, endpoint, count });
        for (const { keyId, recent, updatedAt } of windows) writes.saveWindow.run({ keyId, recent, updatedAt });
      });
    },

    async burstWindow(keyId) {
      return db.select({ recent: rateLimitState.recent }).from(rateLimitState).where(eq(rateLimitState.keyId, keyId)).get()?.recent ?? null;
    },

    async countsByDay(keyIds, firstDay) {
      if (keyIds.length === 0) return [];
      return db
        .select({ day: usageCounters.day, endpoint: usageCounters.endpoint, count: sql<number>`sum(${usageCounters.count})` })
        .from(usageCounters)
        .where(and(inArray(usageCounters.keyId, [...keyIds]), gte(usageCounters.day, firstDay)))
        .groupBy(usageCounters.day, usageCounters.endpoint)
        .all();
    },

    async lastUsedDays(keyIds) {
      if (keyIds.length === 0) return new Map();
      const rows = db
        .select({ keyId: usageCounters.keyId, day: sql<string>`max(${usageCounters.day})` })
        .from(usageCounters)
        .where(inArray(usageCounters.keyId, [...keyIds]))
        .groupBy(usageCounters.keyId)
        .all();
      return new Map(rows.map((r) => [r.keyId, r.day]));
    },

    async dayTotalsByKey(keyIds, day) {
      if (keyIds.length === 0) return new Map();
      const rows = db
        .select({ keyId: usageCounters.keyId, n: sql<number>`sum(${usageCounters.count})` })
        .from(usageCounters)
        .where(and(inArray(usageCounters.keyId, [...keyIds]), eq(usageCounters.day, day)))
        .groupBy(usageCounters.keyId)
        .all();
      return new Map(rows.map((r) => [r.keyId, r.n]));
    },

    async dayTotalsByAccount(accountIds, day) {
      if (accountIds.length === 0) return new Map();
      const rows = db
        .select({ accountId: apiKeys.accountId, n: sql<number>`sum(${usageCounters.count})` })
        .from(apiKeys)
        .innerJoin(usageCounters, and(eq(usageCounters.keyId, apiKeys.id), eq(usageCounters.day, day)))
        .where(inArray(apiKeys.accountId, [...accountIds]))
        .groupBy(apiKeys.accountId)
        .all();
      return new Map(rows.map((r) => [r.accountId, r.n]));
    },
  };
}

/** Whether the stored plan table already says what PLAN_DEFAULTS says. */
function plansCurrent(db: Db): boolean {
  const stored = new Map(db.select().from(plans).all().map((row) => [row.name, row]));
  return PLAN_NAMES.every((name) => {
    const row = stored.get(name);
    const p = PLAN_DEFAULTS[name];
    return row !== undefined && row.dailyLimit === p.dailyLimit && row.minuteLimit === p.minuteLimit && row.maxKeys === p.maxKeys && row.attributionRequired === p.attributionRequired && row.maxAlerts === p.maxAlerts;
  });
}

/**
 * Writes the plan table from PLAN_DEFAULTS (idempotent; run at every open). Only when it differs: every console
 * command opens the database, and a write here would make each of them queue for the write lock.
 */
export function seedPlans(db: Db): void {
  if (plansCurrent(db)) return;
  writeTransaction(db, () => {
    for (const name of PLAN_NAMES) {
      const p = PLAN_DEFAULTS[name];
      db.insert(plans)
        .values({ name, ...p })
        .onConflictDoUpdate({
          target: plans.name,
          set: {
            dailyLimit: excluded(plans.dailyLimit),
            minuteLimit: excluded(plans.minuteLimit),
            maxKeys: excluded(plans.maxKeys),
            attributionRequired: excluded(plans.attributionRequired),
            maxAlerts: excluded(plans.maxAlerts),
          },
        })
        .run();
    }
  });
}
