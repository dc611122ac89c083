/**
 * The console store (store.ts) through drizzle, on either database (db/store-dialect.ts). A call that checks before
 * it writes is one transaction that locks what its check reads (the account's row, the link's row, on PostgreSQL),
 * so two servers acting on one account or one link take turns. An invitation makes or changes its account with the
 * access store's own statements, inside its transaction. Sessions are read from the database at each request, never
 * kept in memory, so a session made or ended on one server holds on every other without an announcement; a change to
 * an account (made, its password set) is announced on the "access" topic, as the access store's are.
 */
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { accountStatements } from "../access/drizzle-store";
import type { StoredAccount } from "../access/store";
import type { PgQueryable } from "../db/postgres/transaction";
import { metaStore, run, type StoreDialect, type Work } from "../db/store-dialect";
import type { AccountChange, ConsoleStore } from "./store";

export function drizzleConsoleStore(dialect: StoreDialect): ConsoleStore {
  const { db, tables, direct, write, lock, notify } = dialect;
  const { accounts, consoleSessions, invitations } = tables;
  function* useUpLinks(tx: PgQueryable, accountId: number, at: number) {
    yield* run(tx.update(invitations).set({ usedAt: at }).where(and(eq(invitations.accountId, accountId), isNull(invitations.usedAt))));
  }
  function* setPassword(tx: PgQueryable, accountId: number, passwordHash: string, at: number) {
    yield* run(tx.update(accounts).set({ passwordHash }).where(eq(accounts.id, accountId)));
    yield* run(tx.delete(consoleSessions).where(eq(consoleSessions.accountId, accountId)));
    yield* useUpLinks(tx, accountId, at);
    yield* notify(tx, "access");
  }
  /** A link with its account; `locked` holds both rows until the transaction ends, for a call whose check reads them. */
  function* linkOf(tx: PgQueryable, tokenHash: string, locked = false) {
    const query = tx.select({ link: invitations, account: accounts }).from(invitations).innerJoin(accounts, eq(invitations.accountId, accounts.id)).where(eq(invitations.tokenHash, tokenHash));
    const [row] = yield* run(locked ? lock(query) : query);
    return row ?? null;
  }
  /**
   * The account with this e-mail, locked, made or changed as `change` says. When another server makes it between the
   * read and the insert, the insert waits for that server's commit, then the account it made is changed instead.
   */
  function* accountChanged(tx: PgQueryable, email: string, change: AccountChange): Work<{ account: StoredAccount; created: boolean }> {
    const statements = accountStatements(dialect, tx);
    const found = yield* statements.byEmail(email, true);
    const made = found === null ? yield* statements.insert(change.create()) : null;
    if (made !== null) return { account: made, created: true };
    const existing = found ?? (yield* statements.byEmail(email, true))!;
    return { account: yield* statements.update(existing, change.update(existing)), created: false };
  }

  return {
    startSession: (session, expired) =>
      write(function* (tx) {
        yield* run(tx.delete(consoleSessions).where(or(lt(consoleSessions.lastSeenAt, expired.lastSeenBefore), lt(consoleSessions.createdAt, expired.createdBefore))));
        yield* run(tx.insert(consoleSessions).values(session));
      }),

    async session(tokenHash) {
      const [row] = await db
        .select({ session: consoleSessions, email: accounts.email, admin: accounts.admin, disabled: accounts.disabled })
        .from(consoleSessions)
        .innerJoin(accounts, eq(consoleSessions.accountId, accounts.id))
        .where(eq(consoleSessions.tokenHash, tokenHash));
      return row ?? null;
    },

    async touchSession(tokenHash, at) {
      await db.update(consoleSessions).set({ lastSeenAt: at }).where(eq(consoleSessions.tokenHash, tokenHash));
    },

    async endSession(tokenHash) {
      await db.delete(consoleSessions).where(eq(consoleSessions.tokenHash, tokenHash));
    },

    issueLink: (email, change, link) =>
      write(function* (tx) {
        const result = yield* accountChanged(tx, email, change);
        yield* useUpLinks(tx, result.account.id, link.createdAt);
        yield* run(tx.insert(invitations).values({ ...link, accountId: result.account.id }));
        yield* notify(tx, "access");
        return result;
      }),

    link: (tokenHash) => direct((tx) => linkOf(tx, tokenHash)),

    redeemLink: (tokenHash, passwordHash, at, check) =>
      write(function* (tx) {
        // Locked: a second server redeeming the same link waits, then its check sees it used.
        const found = yield* linkOf(tx, tokenHash, true);
        if (found === null) return null;
        const problem = check(found);
        if (problem !== null) return { problem };
        yield* run(tx.update(invitations).set({ usedAt: at }).where(eq(invitations.tokenHash, tokenHash)));
        yield* setPassword(tx, found.account.id, passwordHash, at);
        return { accountId: found.account.id };
      }),

    setPassword: (accountId, passwordHash, at) => write((tx) => setPassword(tx, accountId, passwordHash, at)),

    valueOnce: metaStore(dialect).once,
  };
}
