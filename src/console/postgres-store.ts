/**
 * The console store (store.ts) on the shared PostgreSQL database, for several servers at once. A call that checks
 * before it writes is one transaction that locks what its check reads (the account's row, the link's row), so two
 * servers acting on one account or one link take turns. An invitation makes or changes its account with the access
 * store's own statements, inside its transaction. Sessions are read from the database at each request, never kept in
 * memory, so a session made or ended on one server holds on every other without an announcement; a change to an
 * account (made, its password set) is announced on the "access" topic, as the access store's are.
 */
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { postgresAccountStatements } from "../access/postgres-store";
import type { StoredAccount } from "../access/store";
import type { PgDb } from "../db/postgres";
import { notifyChange } from "../db/postgres/changes";
import { metaOnce } from "../db/postgres/meta";
import { accounts, consoleSessions, invitations } from "../db/postgres/schema";
import type { PgQueryable, PgTx } from "../db/postgres/transaction";
import type { AccountChange, ConsoleStore } from "./store";

async function useUpLinks(tx: PgTx, accountId: number, at: number): Promise<void> {
  await tx
    .update(invitations)
    .set({ usedAt: at })
    .where(and(eq(invitations.accountId, accountId), isNull(invitations.usedAt)));
}

async function setPassword(tx: PgTx, accountId: number, passwordHash: string, at: number): Promise<void> {
  await tx.update(accounts).set({ passwordHash }).where(eq(accounts.id, accountId));
  await tx.delete(consoleSessions).where(eq(consoleSessions.accountId, accountId));
  await useUpLinks(tx, accountId, at);
}

/** A link with its account; `lock` holds both rows until the transaction ends, for a call whose check reads them. */
async function linkOf(db: PgQueryable, tokenHash: string, lock: "lock" | "read" = "read") {
  const query = db.select({ link: invitations, account: accounts }).from(invitations).innerJoin(accounts, eq(invitations.accountId, accounts.id)).where(eq(invitations.tokenHash, tokenHash));
  const [row] = await (lock === "lock" ? query.for("update") : query);
  return row ?? null;
}

/**
 * The account with this e-mail, locked, made or changed as `change` says. When another server makes it between the
 * read and the insert, the insert waits for that server's commit, then the account it made is changed instead.
 */
async function accountChanged(tx: PgTx, email: string, change: AccountChange): Promise<{ account: StoredAccount; created: boolean }> {
  const statements = postgresAccountStatements(tx);
  const found = await statements.byEmail(email, "lock");
  const made = found === null ? await statements.insert(change.create()) : null;
  if (made !== null) return { account: made, created: true };
  const existing = found ?? (await statements.byEmail(email, "lock"))!;
  return { account: await statements.update(existing, change.update(existing)), created: false };
}

export function postgresConsoleStore(db: PgDb): ConsoleStore {
  return {
    async startSession(session, expired) {
      await db.transaction(async (tx) => {
        await tx.delete(consoleSessions).where(or(lt(consoleSessions.lastSeenAt, expired.lastSeenBefore), lt(consoleSessions.createdAt, expired.createdBefore)));
        await tx.insert(consoleSessions).values(session);
      });
    },

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
      db.transaction(async (tx) => {
        const result = await accountChanged(tx, email, change);
        await useUpLinks(tx, result.account.id, link.createdAt);
        await tx.insert(invitations).values({ ...link, accountId: result.account.id });
        await notifyChange(tx, "access");
        return result;
      }),

    link: (tokenHash) => linkOf(db, tokenHash),

    redeemLink: (tokenHash, passwordHash, at, check) =>
      db.transaction(async (tx) => {
        // Locked: a second server redeeming the same link waits, then its check sees it used.
        const found = await linkOf(tx, tokenHash, "lock");
        if (found === null) return null;
        const problem = check(found);
        if (problem !== null) return { problem };
        await tx.update(invitations).set({ usedAt: at }).where(eq(invitations.tokenHash, tokenHash));
        await setPassword(tx, found.account.id, passwordHash, at);
        await notifyChange(tx, "access");
        return { accountId: found.account.id };
      }),

    async setPassword(accountId, passwordHash, at) {
      await db.transaction(async (tx) => {
        await setPassword(tx, accountId, passwordHash, at);
        await notifyChange(tx, "access");
      });
    },

    valueOnce: (name, make) => metaOnce(db, name, make),
  };
}
