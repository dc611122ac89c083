/**
 * One-time console links. An invitation creates the account when it is new; for an existing account the same
 * link lets its owner set (or reset) the password. Valid 7 days, single use; a newer link for the same account
 * replaces the older ones. Only the token's SHA-256 is stored.
 */
import type { Clock } from "../core/clock";
import { RuleError } from "../core/errors";
import { accountView, newAccount, planChange, type AccountView, type CustomLimits } from "../access/accounts";
import type { AccountUpdate } from "../access/store";
import { hashPassword, hashToken, passwordProblem, randomToken } from "./secrets";
import type { AccountChange, ConsoleStore, LinkWithAccount } from "./store";

export const INVITATION_TTL_MS = 7 * 86_400_000;

export interface InviteRequest {
  email: string;
  /** Required for a new account; for an existing one it moves the account to this plan and these limits. */
  plan?: string;
  limits?: CustomLimits;
  admin?: boolean;
}

export interface Invitation {
  account: AccountView;
  /** True when this call created the account. */
  created: boolean;
  /** "invitation" for a new account or one that never set a password, else "set-password". */
  kind: "invitation" | "set-password";
  url: string;
  expiresAt: string;
}

export function invitationUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/console/invite/${token}`;
}

/** What an invitation does to its account, by the account rules of access/. */
function accountChange(clock: Clock, request: InviteRequest): AccountChange {
  const limits = request.limits ?? {};
  return {
    create() {
      if (!request.plan) throw new RuleError("required", "is required for a new account", "plan");
      return { ...newAccount(clock, request.email, request.plan, limits), admin: request.admin === true };
    },
    update(found) {
      const update: AccountUpdate = {};
      if (request.plan) Object.assign(update, planChange(request.plan, limits));
      else if (Object.values(limits).some((v) => v !== undefined)) throw new RuleError("required", "is required to set custom limits", "plan");
      if (request.admin && !found.admin) update.admin = true;
      return update;
    },
  };
}

export async function issueInvitation(store: ConsoleStore, clock: Clock, publicUrl: string, request: InviteRequest): Promise<Invitation> {
  const token = randomToken();
  const now = clock.now();
  const link = { tokenHash: hashToken(token), createdAt: now, expiresAt: now + INVITATION_TTL_MS };
  const { account, created } = await store.issueLink(request.email.toLowerCase(), accountChange(clock, request), link);
  return {
    account: accountView(account),
    created,
    kind: account.passwordHash !== null ? "set-password" : "invitation",
    url: invitationUrl(publicUrl, token),
    expiresAt: new Date(link.expiresAt).toISOString(),
  };
}

export type LinkProblem = "unknown" | "used" | "expired" | "disabled";
export type LinkState = { ok: true; accountId: number; email: string; hasPassword: boolean } | { ok: false; problem: LinkProblem };

/** Why a stored link cannot be used now, or null when it can. */
function problemOf(found: LinkWithAccount, now: number): Exclude<LinkProblem, "unknown"> | null {
  if (found.link.usedAt !== null) return "used";
  if (found.link.expiresAt <= now) return "expired";
  if (found.account.disabled) return "disabled";
  return null;
}

/** What a presented link token is worth right now. */
export async function inspectLink(store: ConsoleStore, clock: Clock, token: string): Promise<LinkState> {
  const found = await store.link(hashToken(token));
  if (!found) return { ok: false, problem: "unknown" };
  const problem = problemOf(found, clock.now());
  if (problem) return { ok: false, problem };
  return { ok: true, accountId: found.account.id, email: found.account.email, hasPassword: found.account.passwordHash !== null };
}

/**
 * Sets the password through a link and uses the link up. Every existing session of the account ends (a
 * password change signs everyone out). Returns the account id, or the link's problem / the password's.
 */
export async function redeemLink(store: ConsoleStore, clock: Clock, token: string, password: string): Promise<{ accountId: number } | { problem: string }> {
  const weak = passwordProblem(password);
  if (weak) return { problem: weak };
  const passwordHash = await hashPassword(password);
  const now = clock.now();
  // The link is checked in the transaction that uses it up: two tabs racing on one link, only one wins.
  return (await store.redeemLink(hashToken(token), passwordHash, now, (found) => problemOf(found, now))) ?? { problem: "unknown" };
}

/**
 * Stores a new password hash, ends every console session of the account and uses up its outstanding links (a
 * set-password link mailed before the change must not undo it).
 */
export function setPassword(store: ConsoleStore, clock: Clock, accountId: number, passwordHash: string): Promise<void> {
  return store.setPassword(accountId, passwordHash, clock.now());
}
