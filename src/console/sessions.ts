/**
 * Console sessions: a random token in the cookie, its SHA-256 in the database. A session ends after 7 days
 * without use or 30 days after sign-in, whichever comes first, and with sign-out, a password change or the
 * account being disabled. Every lookup re-reads the account, so a disable made by another process (the CLI)
 * takes effect on the next request.
 */
import { eq, lt, or } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { accounts, consoleSessions } from "../db/schema";
import type { Clock } from "../core/clock";
import { hashToken, randomToken } from "./secrets";

export const IDLE_MS = 7 * 86_400_000;
export const ABSOLUTE_MS = 30 * 86_400_000;
/** lastSeenAt is written at most this often: a page view should not always cost a write. */
const TOUCH_MS = 60_000;

export interface Session {
  tokenHash: string;
  accountId: number;
  email: string;
  admin: boolean;
}

export function startSession(db: Db, clock: Clock, accountId: number): string {
  const token = randomToken();
  const now = clock.now();
  writeTransaction(db, () => {
    db.delete(consoleSessions)
      .where(or(lt(consoleSessions.lastSeenAt, now - IDLE_MS), lt(consoleSessions.createdAt, now - ABSOLUTE_MS)))
      .run();
    db.insert(consoleSessions).values({ tokenHash: hashToken(token), accountId, createdAt: now, lastSeenAt: now }).run();
  });
  return token;
}

/** The live session of a cookie token, or null (unknown, expired, account disabled). */
export function findSession(db: Db, clock: Clock, token: string): Session | null {
  const tokenHash = hashToken(token);
  const row = db
    .select({ session: consoleSessions, email: accounts.email, admin: accounts.admin, disabled: accounts.disabled })
    .from(consoleSessions)
    .innerJoin(accounts, eq(consoleSessions.accountId, accounts.id))
    .where(eq(consoleSessions.tokenHash, tokenHash))
    .get();
  if (!row) return null;
  const now = clock.now();
  const { session } = row;
  if (row.disabled || now - session.lastSeenAt >= IDLE_MS || now - session.createdAt >= ABSOLUTE_MS) {
    endSession(db, tokenHash);
    return null;
  }
  if (now - session.lastSeenAt >= TOUCH_MS) {
    db.update(consoleSessions).set({ lastSeenAt: now }).where(eq(consoleSessions.tokenHash, tokenHash)).run();
  }
  return { tokenHash, accountId: session.accountId, email: row.email, admin: row.admin };
}

export function endSession(db: Db, tokenHash: string): void {
  db.delete(consoleSessions).where(eq(consoleSessions.tokenHash, tokenHash)).run();
}
