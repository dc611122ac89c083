/**
 * Console sessions: a random token in the cookie, its SHA-256 in the store. A session ends after 7 days
 * without use or 30 days after sign-in, whichever comes first, and with sign-out, a password change or the
 * account being disabled. Every lookup re-reads the account, so a disable made by another process (the CLI)
 * takes effect on the next request.
 */
import type { Clock } from "../core/clock";
import { hashToken, randomToken } from "./secrets";
import type { ConsoleStore } from "./store";

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

/** A new session of the account (expired sessions of anyone are cleared on the way); its cookie token. */
export async function startSession(store: ConsoleStore, clock: Clock, accountId: number): Promise<string> {
  const token = randomToken();
  const now = clock.now();
  await store.startSession({ tokenHash: hashToken(token), accountId, createdAt: now, lastSeenAt: now }, { lastSeenBefore: now - IDLE_MS, createdBefore: now - ABSOLUTE_MS });
  return token;
}

/** The live session of a cookie token, or null (unknown, expired, account disabled). */
export async function findSession(store: ConsoleStore, clock: Clock, token: string): Promise<Session | null> {
  const tokenHash = hashToken(token);
  const found = await store.session(tokenHash);
  if (!found) return null;
  const now = clock.now();
  const { session } = found;
  if (found.disabled || now - session.lastSeenAt >= IDLE_MS || now - session.createdAt >= ABSOLUTE_MS) {
    await store.endSession(tokenHash);
    return null;
  }
  if (now - session.lastSeenAt >= TOUCH_MS) await store.touchSession(tokenHash, now);
  return { tokenHash, accountId: session.accountId, email: found.email, admin: found.admin };
}
