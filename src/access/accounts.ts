/**
 * Accounts and keys as the operator console manages them. The server picks changes up through the key
 * registry's change detection (see registry.ts), so no restart is needed.
 */
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { accounts, apiKeys, consoleSessions, embeds } from "../db/schema";
import { RuleError, UserError, type RuleField } from "../core/errors";
import type { Clock } from "../core/clock";
import { PLAN_DEFAULTS, PLAN_NAMES, isPlanName, type PlanName } from "./plans";
import { displayPrefix, generateKey, generateKeyId, hashKey } from "./keys";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The longest address SMTP can deliver to (RFC 5321's 256-octet path less its angle brackets). */
export const MAX_EMAIL_LENGTH = 254;

export interface AccountView {
  id: number;
  email: string;
  plan: PlanName;
  dailyLimit: number;
  minuteLimit: number;
  maxKeys: number;
  disabled: boolean;
  activeKeys: number;
  createdAt: string;
  /** Operators of this server (console operator pages). */
  admin: boolean;
}

export interface KeyView {
  id: string;
  name: string;
  prefix: string;
  account: string;
  plan: PlanName;
  createdAt: string;
  revokedAt: string | null;
}

export interface CustomLimits {
  dailyLimit?: number;
  minuteLimit?: number;
  maxKeys?: number;
}

function checkLimit(field: RuleField, value: number | undefined, max: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 1 || value > max) throw new RuleError("out_of_range", `must be an integer from 1 to ${max}`, field);
}

function requireAccount(db: Db, email: string) {
  const row = db.select().from(accounts).where(eq(accounts.email, email.toLowerCase())).get();
  if (!row) throw new UserError(`no account with e-mail ${email}`);
  return row;
}

function effectiveLimits(row: typeof accounts.$inferSelect) {
  const plan = PLAN_DEFAULTS[row.plan as PlanName];
  return {
    dailyLimit: row.dailyLimit ?? plan.dailyLimit,
    minuteLimit: row.minuteLimit ?? plan.minuteLimit,
    maxKeys: row.maxKeys ?? plan.maxKeys,
  };
}

function activeKeyCount(db: Db, accountId: number): number {
  return db
    .select({ n: sql<number>`count(*)` })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
    .get()!.n;
}

function toAccountView(db: Db, row: typeof accounts.$inferSelect, activeKeys = activeKeyCount(db, row.id)): AccountView {
  return {
    id: row.id,
    email: row.email,
    plan: row.plan as PlanName,
    ...effectiveLimits(row),
    disabled: row.disabled,
    activeKeys,
    createdAt: new Date(row.createdAt).toISOString(),
    admin: row.admin,
  };
}

function checkPlanAndLimits(plan: string, limits: CustomLimits): asserts plan is PlanName {
  if (!isPlanName(plan)) throw new UserError(`unknown plan "${plan}" (one of: ${PLAN_NAMES.join(", ")})`);
  checkLimit("dailyLimit", limits.dailyLimit, 100_000_000);
  checkLimit("minuteLimit", limits.minuteLimit, 100_000);
  checkLimit("maxKeys", limits.maxKeys, 10_000);
}

export function createAccount(db: Db, clock: Clock, email: string, plan: string, limits: CustomLimits = {}): AccountView {
  if (email.length > MAX_EMAIL_LENGTH) throw new UserError(`an e-mail address has at most ${MAX_EMAIL_LENGTH} characters`);
  if (!EMAIL.test(email)) throw new UserError(`"${email}" is not a valid e-mail address`);
  checkPlanAndLimits(plan, limits);
  const normalized = email.toLowerCase();
  return writeTransaction(db, () => {
    if (db.select().from(accounts).where(eq(accounts.email, normalized)).get()) {
      throw new UserError(`an account with e-mail ${email} already exists`);
    }
    const row = db
      .insert(accounts)
      .values({ email: normalized, plan, ...limits, disabled: false, createdAt: clock.now() })
      .returning()
      .get();
    return toAccountView(db, row);
  });
}

/** Disabling also ends every console session of the account. */
export function setAccountDisabled(db: Db, email: string, disabled: boolean): AccountView {
  return writeTransaction(db, () => {
    const row = requireAccount(db, email);
    db.update(accounts).set({ disabled }).where(eq(accounts.id, row.id)).run();
    // A disabled account's console sessions end with it.
    if (disabled) db.delete(consoleSessions).where(eq(consoleSessions.accountId, row.id)).run();
    return toAccountView(db, { ...row, disabled });
  });
}

/** Moves an account to another plan; limits not given go back to the plan's defaults. */
export function setAccountPlan(db: Db, email: string, plan: string, limits: CustomLimits = {}): AccountView {
  checkPlanAndLimits(plan, limits);
  const row = requireAccount(db, email);
  const changes = { plan, dailyLimit: limits.dailyLimit ?? null, minuteLimit: limits.minuteLimit ?? null, maxKeys: limits.maxKeys ?? null };
  db.update(accounts).set(changes).where(eq(accounts.id, row.id)).run();
  return toAccountView(db, { ...row, ...changes });
}

export function setAccountAdmin(db: Db, email: string, admin: boolean): AccountView {
  const row = requireAccount(db, email);
  db.update(accounts).set({ admin }).where(eq(accounts.id, row.id)).run();
  return toAccountView(db, { ...row, admin });
}

export function findAccount(db: Db, email: string): AccountView | null {
  const row = db.select().from(accounts).where(eq(accounts.email, email.toLowerCase())).get();
  return row ? toAccountView(db, row) : null;
}

/** What a console sign-in checks: the account's id, its password hash (null until set) and whether it is disabled. */
export function credentialsOf(db: Db, email: string): { id: number; passwordHash: string | null; disabled: boolean } | null {
  return db.select({ id: accounts.id, passwordHash: accounts.passwordHash, disabled: accounts.disabled }).from(accounts).where(eq(accounts.email, email.trim().toLowerCase())).get() ?? null;
}

/** The limits set on the account itself (null = the plan's default). */
export function customLimitsOf(db: Db, id: number): { dailyLimit: number | null; minuteLimit: number | null; maxKeys: number | null } | null {
  return db.select({ dailyLimit: accounts.dailyLimit, minuteLimit: accounts.minuteLimit, maxKeys: accounts.maxKeys }).from(accounts).where(eq(accounts.id, id)).get() ?? null;
}

export function accountById(db: Db, id: number): AccountView | null {
  const row = db.select().from(accounts).where(eq(accounts.id, id)).get();
  return row ? toAccountView(db, row) : null;
}

export function listAccounts(db: Db): AccountView[] {
  return db
    .select()
    .from(accounts)
    .orderBy(asc(accounts.email))
    .all()
    .map((row) => toAccountView(db, row));
}

/** One page of accounts by e-mail, optionally only those whose e-mail contains `query`, and how many match. */
export function listAccountsPage(db: Db, options: { query?: string; offset: number; limit: number }): { accounts: AccountView[]; total: number } {
  const pattern = options.query ? `%${options.query.toLowerCase().replace(/[\\%_]/g, (c) => "\\" + c)}%` : undefined;
  const matching = pattern ? sql`${accounts.email} like ${pattern} escape '\\'` : undefined;
  const total = db.select({ n: sql<number>`count(*)` }).from(accounts).where(matching).get()!.n;
  const rows = db.select().from(accounts).where(matching).orderBy(asc(accounts.email)).limit(options.limit).offset(options.offset).all();
  const counts = new Map(
    db
      .select({ accountId: apiKeys.accountId, n: sql<number>`count(*)` })
      .from(apiKeys)
      .where(and(inArray(apiKeys.accountId, rows.map((r) => r.id)), isNull(apiKeys.revokedAt)))
      .groupBy(apiKeys.accountId)
      .all()
      .map((c) => [c.accountId, c.n]),
  );
  return { accounts: rows.map((row) => toAccountView(db, row, counts.get(row.id) ?? 0)), total };
}

/** The longest key name, in characters (the console's field and the CLI's --name alike). */
export const KEY_NAME_MAX = 64;

/**
 * A new key for the account. One set of rules for every caller (CLI, console): a name of 1 to KEY_NAME_MAX
 * characters after trimming, unique among the account's active keys (a revoked key's name may be reused), and no
 * more active keys than the plan allows. Refusals are UserErrors in plain words, for an operator and an owner alike.
 */
export function createKey(db: Db, clock: Clock, email: string, name: string): KeyView & { key: string } {
  const trimmed = name.trim();
  if (trimmed.length < 1 || [...trimmed].length > KEY_NAME_MAX) throw new UserError(`A key name has 1 to ${KEY_NAME_MAX} characters.`);
  const account = requireAccount(db, email);
  const { maxKeys } = effectiveLimits(account);
  return writeTransaction(db, () => {
    const active = db.select({ name: apiKeys.name }).from(apiKeys).where(and(eq(apiKeys.accountId, account.id), isNull(apiKeys.revokedAt))).all();
    if (active.some((k) => k.name === trimmed)) throw new UserError(`An active key named "${trimmed}" exists already. Choose another name.`);
    if (active.length >= maxKeys) {
      throw new UserError(`The plan (${account.plan}) allows ${maxKeys} active keys and ${account.email} has ${active.length}. Revoke one to create another.`);
    }
    const key = generateKey();
    const row = db
      .insert(apiKeys)
      .values({ id: generateKeyId(), accountId: account.id, name: trimmed, hash: hashKey(key), prefix: displayPrefix(key), createdAt: clock.now() })
      .returning()
      .get();
    return { ...toKeyView(row, account), key };
  });
}

function toKeyView(row: typeof apiKeys.$inferSelect, account: typeof accounts.$inferSelect): KeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    account: account.email,
    plan: account.plan as PlanName,
    createdAt: new Date(row.createdAt).toISOString(),
    revokedAt: row.revokedAt === null ? null : new Date(row.revokedAt).toISOString(),
  };
}

/** Why `keyId` names no key: often the operator pasted the secret key itself (never echoed back). */
function notAKeyId(db: Db, keyId: string): string {
  const owner = db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.hash, hashKey(keyId))).get();
  if (owner) return `that is the secret key itself, not its id: revoke it with "surfcast keys revoke ${owner.id}"`;
  if (keyId.startsWith("sk_")) return "that looks like a secret key (sk_…), not a key id (key_…), and it matches no key: \"surfcast keys list EMAIL\" shows the ids";
  return `no key with id ${keyId} ("surfcast keys list EMAIL" shows the ids)`;
}

/**
 * Revokes a key, and with it the forecast pictures (embeds) that count their views on it: they stop being served
 * either way, and switched off they no longer hold a place under the account's embed cap (docs/embeds.md).
 */
export function revokeKey(db: Db, clock: Clock, keyId: string): KeyView {
  return writeTransaction(db, () => {
    const row = db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).get();
    if (!row) throw new UserError(notAKeyId(db, keyId));
    if (row.revokedAt !== null) throw new UserError(`key ${keyId} is already revoked`);
    const revokedAt = clock.now();
    db.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, keyId)).run();
    db.update(embeds).set({ revokedAt }).where(and(eq(embeds.keyId, keyId), isNull(embeds.revokedAt))).run();
    const account = db.select().from(accounts).where(eq(accounts.id, row.accountId)).get()!;
    return toKeyView({ ...row, revokedAt }, account);
  });
}

export function keyById(db: Db, keyId: string): (KeyView & { accountId: number }) | null {
  const row = db.select({ key: apiKeys, account: accounts }).from(apiKeys).innerJoin(accounts, eq(apiKeys.accountId, accounts.id)).where(eq(apiKeys.id, keyId)).get();
  return row ? { ...toKeyView(row.key, row.account), accountId: row.account.id } : null;
}

export function listKeys(db: Db, email: string): KeyView[] {
  const account = requireAccount(db, email);
  return db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.accountId, account.id))
    .orderBy(asc(apiKeys.createdAt))
    .all()
    .map((row) => toKeyView(row, account));
}
