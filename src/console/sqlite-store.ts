/**
 * The console store (store.ts) on SQLite: every statement about sessions, one-time links and the device secret,
 * through drizzle on bun:sqlite. Each call has done its work when it returns its promise; a call that checks before
 * it writes runs in one writeTransaction (BEGIN IMMEDIATE), with no await inside. An invitation makes or changes its
 * account with the access store's own statements, inside its transaction.
 */
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { metaOnce } from "../db/meta";
import { accounts, consoleSessions, invitations } from "../db/schema";
import { sqliteAccountStatements } from "../access/sqlite-store";
import type { ConsoleStore } from "./store";

export function sqliteConsoleStore(db: Db): ConsoleStore {
  const accountStatements = sqliteAccountStatements(db);
  const useUpLinks = (accountId: number, at: number) =>
    db
      .update(invitations)
      .set({ usedAt: at })
      .where(and(eq(invitations.accountId, accountId), isNull(invitations.usedAt)))
      .run();
  const setPassword = (accountId: number, passwordHash: string, at: number) => {
    db.update(accounts).set({ passwordHash }).where(eq(accounts.id, accountId)).run();
    db.delete(consoleSessions).where(eq(consoleSessions.accountId, accountId)).run();
    useUpLinks(accountId, at);
  };
  const linkOf = (tokenHash: string) =>
    db.select({ link: invitations, account: accounts }).from(invitations).innerJoin(accounts, eq(invitations.accountId, accounts.id)).where(eq(invitations.tokenHash, tokenHash)).get() ?? null;

  return {
    async startSession(session, expired) {
      writeTransaction(db, () => {
        db.delete(consoleSessions)
          .where(or(lt(consoleSessions.lastSeenAt, expired.lastSeenBefore), lt(consoleSessions.createdAt, expired.createdBefore)))
          .run();
        db.insert(consoleSessions).values(session).run();
      });
    },

    async session(tokenHash) {
      return (
        db
          .select({ session: consoleSessions, email: accounts.email, admin: accounts.admin, disabled: accounts.disabled })
          .from(consoleSessions)
          .innerJoin(accounts, eq(consoleSessions.accountId, accounts.id))
          .where(eq(consoleSessions.tokenHash, tokenHash))
          .get() ?? null
      );
    },

    async touchSession(tokenHash, at) {
      db.update(consoleSessions).set({ lastSeenAt: at }).where(eq(consoleSessions.tokenHash, tokenHash)).run();
    },

    async endSession(tokenHash) {
      db.delete(consoleSessions).where(eq(consoleSessions.tokenHash, tokenHash)).run();
    },

    async issueLink(email, change, link) {
      return writeTransaction(db, () => {
        const found = accountStatements.byEmail(email);
        const account = found === null ? accountStatements.insert(change.create()) : accountStatements.update(found, change.update(found));
        useUpLinks(account.id, link.createdAt);
        db.insert(invitations).values({ ...link, accountId: account.id }).run();
        return { account, created: found === null };
      });
    },

    async link(tokenHash) {
      return linkOf(tokenHash);
    },

    async redeemLink(tokenHash, passwordHash, at, check) {
      return writeTransaction(db, () => {
        const found = linkOf(tokenHash);
        if (found === null) return null;
        const problem = check(found);
        if (problem !== null) return { problem };
        db.update(invitations).set({ usedAt: at }).where(eq(invitations.tokenHash, tokenHash)).run();
        setPassword(found.account.id, passwordHash, at);
        return { accountId: found.account.id };
      });
    },

    async setPassword(accountId, passwordHash, at) {
      writeTransaction(db, () => setPassword(accountId, passwordHash, at));
    },

    async valueOnce(name, make) {
      return metaOnce(db, name, make);
    },
  };
}
