/**
 * Accounts and keys as the CLI and the console manage them: their rules, once, over the access store (store.ts).
 * The server picks changes up through the key registry (registry.ts), so no restart is needed.
 */
import { RuleError, UserError, type RuleField } from "../core/errors";
import type { Clock } from "../core/clock";
import { escapeControls, hasControls } from "../core/log";
import { PLAN_DEFAULTS, PLAN_NAMES, isPlanName, type PlanName } from "./plans";
import { displayPrefix, generateKey, generateKeyId, hashKey } from "./keys";
import type { AccountRecord, AccountStore, AccountUpdate, KeyRecord, NewAccount, StoredAccount } from "./store";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const isEmailAddress = (value: string) => EMAIL.test(value) && !hasControls(value);
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

const noAccount = (email: string) => new UserError(`no account with e-mail ${email}`);

function effectiveLimits(account: AccountRecord) {
  const plan = PLAN_DEFAULTS[account.plan as PlanName];
  return {
    dailyLimit: account.dailyLimit ?? plan.dailyLimit,
    minuteLimit: account.minuteLimit ?? plan.minuteLimit,
    maxKeys: account.maxKeys ?? plan.maxKeys,
  };
}

export function accountView(account: StoredAccount): AccountView {
  return {
    id: account.id,
    email: account.email,
    plan: account.plan as PlanName,
    ...effectiveLimits(account),
    disabled: account.disabled,
    activeKeys: account.activeKeys,
    createdAt: new Date(account.createdAt).toISOString(),
    admin: account.admin,
  };
}

function checkPlanAndLimits(plan: string, limits: CustomLimits): asserts plan is PlanName {
  if (!isPlanName(plan)) throw new UserError(`unknown plan "${plan}" (one of: ${PLAN_NAMES.join(", ")})`);
  checkLimit("dailyLimit", limits.dailyLimit, 100_000_000);
  checkLimit("minuteLimit", limits.minuteLimit, 100_000);
  checkLimit("maxKeys", limits.maxKeys, 10_000);
}

/** A new account as stored, once its e-mail, plan and limits pass the rules. */
export function newAccount(clock: Clock, email: string, plan: string, limits: CustomLimits = {}): NewAccount {
  if (email.length > MAX_EMAIL_LENGTH) throw new UserError(`an e-mail address has at most ${MAX_EMAIL_LENGTH} characters`);
  if (!isEmailAddress(email)) throw new UserError(`"${escapeControls(email)}" is not a valid e-mail address`);
  checkPlanAndLimits(plan, limits);
  return { email: email.toLowerCase(), plan, dailyLimit: limits.dailyLimit ?? null, minuteLimit: limits.minuteLimit ?? null, maxKeys: limits.maxKeys ?? null, createdAt: clock.now(), admin: false };
}

export async function createAccount(store: AccountStore, clock: Clock, email: string, plan: string, limits: CustomLimits = {}): Promise<AccountView> {
  const created = await store.insertAccount(newAccount(clock, email, plan, limits));
  if (!created) throw new UserError(`an account with e-mail ${email} already exists`);
  return accountView(created);
}

/** Disabling also ends every console session of the account. */
export async function setAccountDisabled(store: AccountStore, email: string, disabled: boolean): Promise<AccountView> {
  const account = await store.setDisabled(email.toLowerCase(), disabled);
  if (!account) throw noAccount(email);
  return accountView(account);
}

/** The move to another plan, once the plan and limits pass the rules; limits not given go back to the plan's defaults. */
export function planChange(plan: string, limits: CustomLimits = {}): AccountUpdate {
  checkPlanAndLimits(plan, limits);
  return { plan, dailyLimit: limits.dailyLimit ?? null, minuteLimit: limits.minuteLimit ?? null, maxKeys: limits.maxKeys ?? null };
}

export async function setAccountPlan(store: AccountStore, email: string, plan: string, limits: CustomLimits = {}): Promise<AccountView> {
  const account = await store.updateAccount(email.toLowerCase(), planChange(plan, limits));
  if (!account) throw noAccount(email);
  return accountView(account);
}

export async function findAccount(store: AccountStore, email: string): Promise<AccountView | null> {
  const account = await store.accountByEmail(email.toLowerCase());
  return account ? accountView(account) : null;
}

/** What a console sign-in checks: the account's id, its password hash (null until set) and whether it is disabled. */
export async function credentialsOf(store: AccountStore, email: string): Promise<{ id: number; passwordHash: string | null; disabled: boolean } | null> {
  const account = await store.accountByEmail(email.trim().toLowerCase());
  return account && { id: account.id, passwordHash: account.passwordHash, disabled: account.disabled };
}

/** The limits set on the account itself (null = the plan's default). */
export async function customLimitsOf(store: AccountStore, id: number): Promise<{ dailyLimit: number | null; minuteLimit: number | null; maxKeys: number | null } | null> {
  const account = await store.accountById(id);
  return account && { dailyLimit: account.dailyLimit, minuteLimit: account.minuteLimit, maxKeys: account.maxKeys };
}

export async function accountById(store: AccountStore, id: number): Promise<AccountView | null> {
  const account = await store.accountById(id);
  return account ? accountView(account) : null;
}

export async function listAccounts(store: AccountStore): Promise<AccountView[]> {
  return (await store.listAccounts()).map(accountView);
}

/** One page of accounts by e-mail, optionally only those whose e-mail contains `query`, and how many match. */
export async function listAccountsPage(store: AccountStore, options: { query?: string; offset: number; limit: number }): Promise<{ accounts: AccountView[]; total: number }> {
  const { accounts, total } = await store.accountsPage(options);
  return { accounts: accounts.map(accountView), total };
}

/**
 * A name (of a key, of an alert) is one line of printable text, for every caller: a control character (a line
 * break, a tab, ESC, any other C0 or C1 control, DEL) would start a forged line or drive the terminal wherever the
 * name is printed — the CLI's listings, MCP's text, a calendar feed.
 */
export function checkPrintableName(name: string, field: RuleField): void {
  if (hasControls(name)) throw new RuleError("control_character", "must be one line of printable text, without line breaks, tabs, escapes or other control characters", field);
}

/** The longest key name, in characters (the console's field and the CLI's --name alike). */
export const KEY_NAME_MAX = 64;

/** Whether the account may have one more active key named `name`, seeing the names of its active keys. */
function checkRoomForKey(account: AccountRecord, activeNames: readonly string[], name: string): void {
  if (activeNames.includes(name)) throw new UserError(`An active key named "${name}" exists already. Choose another name.`);
  const { maxKeys } = effectiveLimits(account);
  if (activeNames.length >= maxKeys) {
    throw new UserError(`The plan (${account.plan}) allows ${maxKeys} active keys and ${account.email} has ${activeNames.length}. Revoke one to create another.`);
  }
}

/**
 * A new key for the account. One set of rules for every caller (CLI, console): a name of one line of printable
 * text, 1 to KEY_NAME_MAX characters after trimming, unique among the account's active keys (a revoked key's name
 * may be reused), and no more active keys than the plan allows. Refusals are UserErrors in plain words, for an operator and an owner alike.
 */
export async function createKey(store: AccountStore, clock: Clock, email: string, name: string): Promise<KeyView & { key: string }> {
  checkPrintableName(name, "keyName");
  const trimmed = name.trim();
  if (trimmed.length < 1 || [...trimmed].length > KEY_NAME_MAX) throw new UserError(`A key name has 1 to ${KEY_NAME_MAX} characters.`);
  const key = generateKey();
  const row = { id: generateKeyId(), name: trimmed, hash: hashKey(key), prefix: displayPrefix(key), createdAt: clock.now() };
  const created = await store.createKey(email.toLowerCase(), row, (account, activeNames) => checkRoomForKey(account, activeNames, trimmed));
  if (!created) throw noAccount(email);
  return { ...keyView(created.key, created.account), key };
}

function keyView(key: KeyRecord, account: AccountRecord): KeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    account: account.email,
    plan: account.plan as PlanName,
    createdAt: new Date(key.createdAt).toISOString(),
    revokedAt: key.revokedAt === null ? null : new Date(key.revokedAt).toISOString(),
  };
}

/** Why `keyId` names no key: often the operator pasted the secret key itself (never echoed back). */
async function notAKeyId(store: AccountStore, keyId: string): Promise<string> {
  const owner = await store.keyIdByHash(hashKey(keyId));
  if (owner) return `that is the secret key itself, not its id: revoke it with "surfcast keys revoke ${owner}"`;
  if (keyId.startsWith("sk_")) return "that looks like a secret key (sk_…), not a key id (key_…), and it matches no key: \"surfcast keys list EMAIL\" shows the ids";
  return `no key with id ${keyId} ("surfcast keys list EMAIL" shows the ids)`;
}

/**
 * Revokes a key, and with it the forecast pictures (embeds) that count their views on it: they stop being served
 * either way, and switched off they no longer hold a place under the account's embed cap (docs/embeds.md).
 */
export async function revokeKey(store: AccountStore, clock: Clock, keyId: string): Promise<KeyView> {
  const revoked = await store.revokeKey(keyId, clock.now(), (key) => {
    if (key.revokedAt !== null) throw new UserError(`key ${keyId} is already revoked`);
  });
  if (!revoked) throw new UserError(await notAKeyId(store, keyId));
  return keyView(revoked.key, revoked.account);
}

export async function keyById(store: AccountStore, keyId: string): Promise<(KeyView & { accountId: number }) | null> {
  const found = await store.keyById(keyId);
  return found ? { ...keyView(found.key, found.account), accountId: found.account.id } : null;
}

export async function listKeys(store: AccountStore, email: string): Promise<KeyView[]> {
  const found = await store.keysOf(email.toLowerCase());
  if (!found) throw noAccount(email);
  return found.keys.map((key) => keyView(key, found.account));
}
