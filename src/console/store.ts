/**
 * What the console keeps in the database — sign-in sessions, one-time links, its device secret — implemented once
 * for both databases (drizzle-store.ts). The rules (expiry, what a link is worth, what an invitation does to its
 * account) stay in sessions.ts and invitations.ts; a call that must check before it writes takes the check, which
 * runs synchronously inside the call's one transaction.
 */
import type { AccountRecord, AccountUpdate, NewAccount, StoredAccount } from "../access/store";

export interface SessionRecord {
  /** SHA-256 of the cookie's token. */
  tokenHash: string;
  accountId: number;
  createdAt: number;
  lastSeenAt: number;
}

/** A session with what a request needs of its account. */
export interface SessionWithAccount {
  session: SessionRecord;
  email: string;
  admin: boolean;
  disabled: boolean;
}

export interface LinkRecord {
  /** SHA-256 of the link's token. */
  tokenHash: string;
  accountId: number;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface LinkWithAccount {
  link: LinkRecord;
  account: AccountRecord;
}

/** What an invitation does to its account: the account to make when none has the e-mail, or the change to the one that has it. */
export interface AccountChange {
  create(): NewAccount;
  update(found: StoredAccount): AccountUpdate;
}

export interface ConsoleStore {
  /** Inserts the session and deletes everyone's sessions last seen or created before the cut-offs, in one transaction. */
  startSession(session: SessionRecord, expired: { lastSeenBefore: number; createdBefore: number }): Promise<void>;
  session(tokenHash: string): Promise<SessionWithAccount | null>;
  touchSession(tokenHash: string, at: number): Promise<void>;
  endSession(tokenHash: string): Promise<void>;

  /**
   * Makes or changes the account with this e-mail (lower case) as `change` says, uses up its outstanding links at
   * the new link's `createdAt` and inserts the new one, in one transaction.
   */
  issueLink(email: string, change: AccountChange, link: Omit<LinkRecord, "accountId" | "usedAt">): Promise<{ account: StoredAccount; created: boolean }>;
  link(tokenHash: string): Promise<LinkWithAccount | null>;
  /**
   * Uses the link up at `at` and sets its account's password (as setPassword does) unless `check` finds a problem with
   * the link as stored, in one transaction. Null when no link has this token.
   */
  redeemLink<P>(tokenHash: string, passwordHash: string, at: number, check: (found: LinkWithAccount) => P | null): Promise<{ accountId: number } | { problem: P } | null>;
  /** Stores the password hash, ends every session of the account and uses up its outstanding links, in one transaction. */
  setPassword(accountId: number, passwordHash: string, at: number): Promise<void>;

  /** The value stored under `name`, storing `make()`'s first when there is none (the first writer wins a race). */
  valueOnce(name: string, make: () => string): Promise<string>;
}
