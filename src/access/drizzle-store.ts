/**
 * The access store (store.ts) through drizzle, on either database (db/store-dialect.ts). A call that reads, checks
 * and writes is one transaction that locks what its check reads (the account's row, on PostgreSQL), so two servers
 * acting on one account take turns; a write the servers keep in memory (accounts and keys) announces itself on the
 * "access" topic in its own transaction. Usage flushes add to the stored counts, so servers flushing the same
 * counters at once lose nothing.
 */
import { and, asc, count, eq, getTableColumns, gte, inArray, isNull, max, sql, type SQL } from "drizzle-orm";
import type { ChangeTopic } from "../db/postgres/changes";
import type { PgQueryable } from "../db/postgres/transaction";
import { excluded, excludedAll } from "../db/statements";
import { run, upsertRows, type StoreDialect, type Work } from "../db/store-dialect";
import { PLAN_DEFAULTS, PLAN_NAMES } from "./plans";
import { emailContaining, type AccessStore, type AccountUpdate, type NewAccount, type StoredAccount, type UsageCount } from "./store";

/** A sum or count, which PostgreSQL answers as a numeric or bigint the driver hands over as text. */
const total = (expression: SQL) => sql<number>`${expression}`.mapWith(Number);

/** An account's columns and its active keys, counted in the statement that reads it. */
function storedAccountFields({ accounts, apiKeys }: StoreDialect["tables"]) {
  return { ...getTableColumns(accounts), activeKeys: total(sql`(select count(*) from ${apiKeys} where ${apiKeys.accountId} = ${accounts.id} and ${apiKeys.revokedAt} is null)`) };
}

/** Writes the plan table from PLAN_DEFAULTS: every plan upserted (idempotent). */
export function* writePlans({ plans }: StoreDialect["tables"], tx: PgQueryable): Work<void> {
  const replaced = excludedAll({ dailyLimit: plans.dailyLimit, minuteLimit: plans.minuteLimit, maxKeys: plans.maxKeys, attributionRequired: plans.attributionRequired, maxAlerts: plans.maxAlerts });
  yield* run(tx.insert(plans).values(PLAN_NAMES.map((name) => ({ name, ...PLAN_DEFAULTS[name] }))).onConflictDoUpdate({ target: plans.name, set: replaced }));
}

/**
 * The account statements the console's store also runs inside its own transactions (an invitation makes or changes
 * its account with its link), so they exist once. `locked` holds the account's row until the transaction ends.
 */
export function accountStatements({ tables, lock }: StoreDialect, tx: PgQueryable) {
  const { accounts } = tables;
  return {
    *byEmail(email: string, locked = false): Work<StoredAccount | null> {
      const query = tx.select(storedAccountFields(tables)).from(accounts).where(eq(accounts.email, email));
      const [row] = yield* run(locked ? lock(query) : query);
      return row ?? null;
    },
    /** Null when an account has this e-mail already, even one another transaction is making now. */
    *insert(account: NewAccount): Work<StoredAccount | null> {
      const [row] = yield* run(tx.insert(accounts).values({ ...account, disabled: false }).onConflictDoNothing({ target: accounts.email }).returning());
      // A new account has no keys.
      return row ? { ...row, activeKeys: 0 } : null;
    },
    *update(account: StoredAccount, update: AccountUpdate): Work<StoredAccount> {
      if (Object.keys(update).length > 0) yield* run(tx.update(accounts).set(update).where(eq(accounts.id, account.id)));
      return { ...account, ...update };
    },
  };
}

/** Counts of one key, day and endpoint added together, in key order so that concurrent flushes lock rows alike. */
function summedCounts(counts: readonly UsageCount[]): UsageCount[] {
  const sums = new Map<string, UsageCount>();
  for (const usage of counts) {
    const key = JSON.stringify([usage.keyId, usage.day, usage.endpoint]);
    const seen = sums.get(key);
    sums.set(key, seen ? { ...seen, count: seen.count + usage.count } : usage);
  }
  return [...sums.keys()].sort().map((key) => sums.get(key)!);
}

export function drizzleAccessStore(dialect: StoreDialect): AccessStore {
  const { db, tables, direct, write, lock, notify, binary, chunks } = dialect;
  const { accounts, apiKeys, consoleSessions, embeds, rateLimitState, usageCounters } = tables;
  const storedAccount = storedAccountFields(tables);
  function* keyWithAccount(tx: PgQueryable, keyId: string, locked = false) {
    const query = tx.select({ key: apiKeys, account: accounts }).from(apiKeys).innerJoin(accounts, eq(apiKeys.accountId, accounts.id)).where(eq(apiKeys.id, keyId));
    const [row] = yield* run(locked ? lock(query, "update", apiKeys) : query);
    return row ?? null;
  }
  /** Runs `work` in one transaction and announces the change it made, unless it answers null (nothing changed). */
  const changing = <T>(work: (tx: PgQueryable) => Work<T | null>, topics: readonly ChangeTopic[] = ["access"]) =>
    write(function* (tx) {
      const result = yield* work(tx);
      if (result !== null) for (const topic of topics) yield* notify(tx, topic);
      return result;
    });
  const sumOfCounts = total(sql`sum(${usageCounters.count})`);

  return {
    accountByEmail: (email) => direct((tx) => accountStatements(dialect, tx).byEmail(email)),

    async accountById(id) {
      const [row] = await db.select(storedAccount).from(accounts).where(eq(accounts.id, id));
      return row ?? null;
    },

    listAccounts: () => db.select(storedAccount).from(accounts).orderBy(binary(accounts.email)),

    async accountsPage({ query, offset, limit }) {
      const matching = query ? sql`${accounts.email} like ${emailContaining(query)} escape '\\'` : undefined;
      const [counted] = await db.select({ n: count() }).from(accounts).where(matching);
      const rows = await db.select(storedAccount).from(accounts).where(matching).orderBy(binary(accounts.email)).limit(limit).offset(offset);
      return { accounts: rows, total: counted!.n };
    },

    // The read first, so that a duplicate spends no id of PostgreSQL's sequence (ids then follow SQLite's); the
    // insert's conflict clause catches an account another server makes meanwhile.
    insertAccount: (account) =>
      changing(function* (tx) {
        const inTx = accountStatements(dialect, tx);
        return (yield* inTx.byEmail(account.email)) === null ? yield* inTx.insert(account) : null;
      }),

    updateAccount: (email, update) =>
      changing(function* (tx) {
        const inTx = accountStatements(dialect, tx);
        const account = yield* inTx.byEmail(email, true);
        return account ? yield* inTx.update(account, update) : null;
      }),

    setDisabled: (email, disabled) =>
      changing(function* (tx) {
        const account = yield* accountStatements(dialect, tx).byEmail(email, true);
        if (!account) return null;
        yield* run(tx.update(accounts).set({ disabled }).where(eq(accounts.id, account.id)));
        if (disabled) yield* run(tx.delete(consoleSessions).where(eq(consoleSessions.accountId, account.id)));
        return { ...account, disabled };
      }),

    createKey: (email, key, check) =>
      changing(function* (tx) {
        // The account's row stays locked until the commit: a second server creating a key for it waits, then counts this one.
        const [account] = yield* run(lock(tx.select().from(accounts).where(eq(accounts.email, email))));
        if (!account) return null;
        const active = yield* run(tx.select({ name: apiKeys.name }).from(apiKeys).where(and(eq(apiKeys.accountId, account.id), isNull(apiKeys.revokedAt))));
        check(account, active.map((k) => k.name));
        const [inserted] = yield* run(tx.insert(apiKeys).values({ ...key, accountId: account.id }).returning());
        return { key: inserted!, account };
      }),

    revokeKey: (keyId, at, check) =>
      changing(
        function* (tx) {
          const found = yield* keyWithAccount(tx, keyId, true);
          if (!found) return null;
          check(found.key);
          yield* run(tx.update(apiKeys).set({ revokedAt: at }).where(eq(apiKeys.id, keyId)));
          yield* run(tx.update(embeds).set({ revokedAt: at }).where(and(eq(embeds.keyId, keyId), isNull(embeds.revokedAt))));
          return { key: { ...found.key, revokedAt: at }, account: found.account };
        },
        ["access", "embeds"],
      ),

    keyById: (keyId) => direct((tx) => keyWithAccount(tx, keyId)),

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
      await write(function* (tx) {
        for (const chunk of chunks(summedCounts(counts), usageCounters)) {
          const target = [usageCounters.keyId, usageCounters.day, usageCounters.endpoint];
          yield* run(tx.insert(usageCounters).values(chunk).onConflictDoUpdate({ target, set: { count: sql`${usageCounters.count} + ${excluded(usageCounters.count)}` } }));
        }
        for (const chunk of chunks(upsertRows(windows, (w) => w.keyId), rateLimitState)) {
          yield* run(tx.insert(rateLimitState).values(chunk).onConflictDoUpdate({ target: rateLimitState.keyId, set: excludedAll({ recent: rateLimitState.recent, updatedAt: rateLimitState.updatedAt }) }));
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
        .select({ day: usageCounters.day, endpoint: usageCounters.endpoint, count: sumOfCounts })
        .from(usageCounters)
        .where(and(inArray(usageCounters.keyId, [...keyIds]), gte(usageCounters.day, firstDay)))
        .groupBy(usageCounters.day, usageCounters.endpoint)
        .orderBy(binary(usageCounters.day), binary(usageCounters.endpoint));
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
        .select({ keyId: usageCounters.keyId, n: sumOfCounts })
        .from(usageCounters)
        .where(and(inArray(usageCounters.keyId, [...keyIds]), eq(usageCounters.day, day)))
        .groupBy(usageCounters.keyId);
      return new Map(rows.map((r) => [r.keyId, r.n]));
    },

    async dayTotalsByAccount(accountIds, day) {
      if (accountIds.length === 0) return new Map();
      const rows = await db
        .select({ accountId: apiKeys.accountId, n: sumOfCounts })
        .from(apiKeys)
        .innerJoin(usageCounters, and(eq(usageCounters.keyId, apiKeys.id), eq(usageCounters.day, day)))
        .where(inArray(apiKeys.accountId, [...accountIds]))
        .groupBy(apiKeys.accountId);
      return new Map(rows.map((r) => [r.accountId, r.n]));
    },
  };
}
