/**
 * What the access room keeps in the database — accounts, keys, usage counts and burst windows — implemented once
 * for both databases (drizzle-store.ts). The rules are in accounts.ts, the key registry and the meter. A rule that
 * reads before it writes (a key's name and the plan's cap) is one call that takes the rule as a synchronous `check`
 * and runs read, check and write in one transaction; the check throws to refuse.
 */

export interface AccountRecord {
  id: number;
  /** Lower case. */
  email: string;
  plan: string;
  /** Custom limits; null = the plan's default. */
  dailyLimit: number | null;
  minuteLimit: number | null;
  maxKeys: number | null;
  disabled: boolean;
  createdAt: number;
  /** Console password (argon2id); null until the owner follows an invitation. */
  passwordHash: string | null;
  admin: boolean;
}

/** An account with the number of its active (not revoked) keys. */
export interface StoredAccount extends AccountRecord {
  activeKeys: number;
}

export type NewAccount = Omit<AccountRecord, "id" | "disabled" | "passwordHash">;

export type AccountUpdate = Partial<Pick<AccountRecord, "plan" | "dailyLimit" | "minuteLimit" | "maxKeys" | "admin">>;

export interface KeyRecord {
  id: string;
  accountId: number;
  name: string;
  /** SHA-256 of the key, hex: the key itself is never stored. */
  hash: string;
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
}

export type NewKey = Omit<KeyRecord, "accountId" | "revokedAt">;

export interface OwnedKey {
  key: KeyRecord;
  account: AccountRecord;
}

/** Counted uses of one key on one UTC day (`YYYY-MM-DD`) at one endpoint. */
export interface UsageCount {
  keyId: string;
  day: string;
  endpoint: string;
  count: number;
}

/** A key's burst window as limiter.ts serializes it. */
export interface SavedWindow {
  keyId: string;
  recent: string;
  updatedAt: number;
}

export interface AccountStore {
  /** `email` in lower case. */
  accountByEmail(email: string): Promise<StoredAccount | null>;
  accountById(id: number): Promise<StoredAccount | null>;
  /** Every account, by e-mail. */
  listAccounts(): Promise<StoredAccount[]>;
  /** One page by e-mail of the accounts whose e-mail contains `query` (any case; all without one), and how many match. */
  accountsPage(page: { query?: string; offset: number; limit: number }): Promise<{ accounts: StoredAccount[]; total: number }>;
  /** Null when an account has this e-mail already. */
  insertAccount(account: NewAccount): Promise<StoredAccount | null>;
  /** Null when no account has this e-mail. */
  updateAccount(email: string, update: AccountUpdate): Promise<StoredAccount | null>;
  /** Disabling ends the account's console sessions too, in the same transaction. Null when no account has this e-mail. */
  setDisabled(email: string, disabled: boolean): Promise<StoredAccount | null>;

  /**
   * Inserts `key` for the account with this e-mail once `check` has seen the account and the names of its active
   * keys, in one transaction. Null when no account has this e-mail.
   */
  createKey(email: string, key: NewKey, check: (account: AccountRecord, activeNames: readonly string[]) => void): Promise<OwnedKey | null>;
  /**
   * Marks the key revoked at `at`, and the embeds that count their views on it, once `check` has seen it as stored,
   * in one transaction; the answer shows it revoked. Null when no key has this id.
   */
  revokeKey(keyId: string, at: number, check: (key: KeyRecord) => void): Promise<OwnedKey | null>;
  keyById(keyId: string): Promise<OwnedKey | null>;
  /** The id of the key with this hash, revoked or not. */
  keyIdByHash(hash: string): Promise<string | null>;
  /** The account's keys, oldest first; null when no account has this e-mail. */
  keysOf(email: string): Promise<{ account: AccountRecord; keys: KeyRecord[] } | null>;
  /** Every key not revoked, with its account: what the key registry holds. */
  activeKeys(): Promise<OwnedKey[]>;
}

export interface UsageStore {
  /** Adds the counts to the stored ones and replaces the windows, in one transaction. */
  saveUsage(counts: readonly UsageCount[], windows: readonly SavedWindow[]): Promise<void>;
  /** The key's stored burst window, or null. */
  burstWindow(keyId: string): Promise<string | null>;
  /** Counts per UTC day and endpoint from `firstDay` on, summed over the given keys (`count` is the sum). */
  countsByDay(keyIds: readonly string[], firstDay: string): Promise<Omit<UsageCount, "keyId">[]>;
  /** The last UTC day each key was counted on (keys never counted are absent). */
  lastUsedDays(keyIds: readonly string[]): Promise<Map<string, string>>;
  /** What each key counted on `day` (keys without a count are absent). */
  dayTotalsByKey(keyIds: readonly string[], day: string): Promise<Map<string, number>>;
  /** What each account's keys counted on `day` together (accounts without a count are absent). */
  dayTotalsByAccount(accountIds: readonly number[], day: string): Promise<Map<number, number>>;
}

/** The LIKE pattern (escaped with a backslash) of the e-mails that contain `query`, which is matched in lower case. */
export function emailContaining(query: string): string {
  return `%${query.toLowerCase().replace(/[\\%_]/g, (c) => "\\" + c)}%`;
}

/** The access room's store: accounts and keys, and their usage. */
export type AccessStore = AccountStore & UsageStore;
