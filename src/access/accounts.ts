/**
 * Accounts and keys as the operator console manages them. The server picks changes up through the key
 * registry's change detection (see registry.ts), so no restart is needed.
 */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { accounts, apiKeys } from "../db/schema";
import { UserError } from "../core/errors";
import type { Clock } from "../core/clock";
import { PLAN_DEFAULTS, PLAN_NAMES, isPlanName, type PlanName } from "./plans";
import { displayPrefix, generateKey, generateKeyId, hashKey } from "./keys";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

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

function checkLimit(name: string, value: number | undefined, max: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 1 || value > max) throw new UserError(`${name} must be an integer from 1 to ${max}`);
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

function toAccountView(db: Db, row: typeof accounts.$inferSelect): AccountView {
  return {
    id: row.id,
    email: row.email,
    plan: row.plan as PlanName,
    ...effectiveLimits(row),
    disabled: row.disabled,
    activeKeys: activeKeyCount(db, row.id),
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

export function createAccount(db: Db, clock: Clock, email: string, plan: string, limits: CustomLimits = {}): AccountView {
  if (!EMAIL.test(email)) throw new UserError(`"${email}" is not a valid e-mail address`);
  if (!isPlanName(plan)) throw new UserError(`unknown plan "${plan}" (one of: ${PLAN_NAMES.join(", ")})`);
  checkLimit("--daily-limit", limits.dailyLimit, 100_000_000);
  checkLimit("--minute-limit", limits.minuteLimit, 100_000);
  checkLimit("--max-keys", limits.maxKeys, 10_000);
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

export function setAccountDisabled(db: Db, email: string, disabled: boolean): AccountView {
  return writeTransaction(db, () => {
    const row = requireAccount(db, email);
    db.update(accounts).set({ disabled }).where(eq(accounts.id, row.id)).run();
    return toAccountView(db, { ...row, disabled });
  });
}

export function listAccounts(db: Db): AccountView[] {
  return db
    .select()
    .from(accounts)
    .orderBy(asc(accounts.email))
    .all()
    .map((row) => toAccountView(db, row));
}

export function createKey(db: Db, clock: Clock, email: string, name: string): KeyView & { key: string } {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 100) throw new UserError("--name must be 1 to 100 characters");
  const account = requireAccount(db, email);
  const { maxKeys } = effectiveLimits(account);
  return writeTransaction(db, () => {
    if (activeKeyCount(db, account.id) >= maxKeys) {
      throw new UserError(`account ${account.email} already has ${maxKeys} active keys, the most its plan (${account.plan}) allows; revoke one first`);
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

export function revokeKey(db: Db, clock: Clock, keyId: string): KeyView {
  return writeTransaction(db, () => {
    const row = db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).get();
    if (!row) throw new UserError(notAKeyId(db, keyId));
    if (row.revokedAt !== null) throw new UserError(`key ${keyId} is already revoked`);
    const revokedAt = clock.now();
    db.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, keyId)).run();
    const account = db.select().from(accounts).where(eq(accounts.id, row.accountId)).get()!;
    return toKeyView({ ...row, revokedAt }, account);
  });
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
