/**
 * One-time console links. An invitation creates the account when it is new; for an existing account the same
 * link lets its owner set (or reset) the password. Valid 7 days, single use; a newer link for the same account
 * replaces the older ones. Only the token's SHA-256 is stored.
 */
import { and, eq, isNull } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { accounts, consoleSessions, invitations } from "../db/schema";
import type { Clock } from "../core/clock";
import { RuleError } from "../core/errors";
import { accountView, newAccount, planChange, type AccountView, type CustomLimits } from "../access/accounts";
import { sqliteAccountStatements } from "../access/sqlite-store";
import type { AccountChange, AccountUpdate, StoredAccount } from "../access/store";
import { hashPassword, hashToken, passwordProblem, randomToken } from "./secrets";

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

/** What an invitation does to its account (null: none has the e-mail yet), by the account rules of access/. */
function accountChange(clock: Clock, request: InviteRequest, found: StoredAccount | null): AccountChange {
  const limits = request.limits ?? {};
  if (found === null) {
    if (!request.plan) throw new RuleError("required", "is required for a new account", "plan");
    return { create: { ...newAccount(clock, request.email, request.plan, limits), admin: request.admin === true } };
  }
  const update: AccountUpdate = {};
  if (request.plan) Object.assign(update, planChange(request.plan, limits));
  else if (Object.values(limits).some((v) => v !== undefined)) throw new RuleError("required", "is required to set custom limits", "plan");
  if (request.admin && !found.admin) update.admin = true;
  return { update };
}

export function issueInvitation(db: Db, clock: Clock, publicUrl: string, request: InviteRequest): Invitation {
  const token = randomToken();
  const now = clock.now();
  const statements = sqliteAccountStatements(db);
  return writeTransaction(db, () => {
    const found = statements.byEmail(request.email.toLowerCase());
    const change = accountChange(clock, request, found);
    const account = "create" in change ? statements.insert(change.create) : statements.update(found!, change.update);
    db.update(invitations)
      .set({ usedAt: now })
      .where(and(eq(invitations.accountId, account.id), isNull(invitations.usedAt)))
      .run();
    db.insert(invitations).values({ tokenHash: hashToken(token), accountId: account.id, createdAt: now, expiresAt: now + INVITATION_TTL_MS }).run();
    return {
      account: accountView(account),
      created: found === null,
      kind: account.passwordHash !== null ? "set-password" : "invitation",
      url: invitationUrl(publicUrl, token),
      expiresAt: new Date(now + INVITATION_TTL_MS).toISOString(),
    };
  });
}

export type LinkState = { ok: true; accountId: number; email: string; hasPassword: boolean } | { ok: false; problem: "unknown" | "used" | "expired" | "disabled" };

/** What a presented link token is worth right now. */
export function inspectLink(db: Db, clock: Clock, token: string): LinkState {
  const row = db
    .select({ invitation: invitations, account: accounts })
    .from(invitations)
    .innerJoin(accounts, eq(invitations.accountId, accounts.id))
    .where(eq(invitations.tokenHash, hashToken(token)))
    .get();
  if (!row) return { ok: false, problem: "unknown" };
  if (row.invitation.usedAt !== null) return { ok: false, problem: "used" };
  if (row.invitation.expiresAt <= clock.now()) return { ok: false, problem: "expired" };
  if (row.account.disabled) return { ok: false, problem: "disabled" };
  return { ok: true, accountId: row.account.id, email: row.account.email, hasPassword: row.account.passwordHash !== null };
}

/**
 * Sets the password through a link and uses the link up. Every existing session of the account ends (a
 * password change signs everyone out). Returns the account id, or the link's problem / the password's.
 */
export async function redeemLink(db: Db, clock: Clock, token: string, password: string): Promise<{ accountId: number } | { problem: string }> {
  const weak = passwordProblem(password);
  if (weak) return { problem: weak };
  const passwordHash = await hashPassword(password);
  // Checked again inside the transaction: two tabs racing on one link, only one wins.
  return writeTransaction(db, () => {
    const state = inspectLink(db, clock, token);
    if (!state.ok) return { problem: state.problem };
    db.update(invitations).set({ usedAt: clock.now() }).where(eq(invitations.tokenHash, hashToken(token))).run();
    setPassword(db, clock, state.accountId, passwordHash);
    return { accountId: state.accountId };
  });
}

/**
 * Stores a new password hash, ends every console session of the account and uses up its outstanding links (a
 * set-password link mailed before the change must not undo it).
 */
export function setPassword(db: Db, clock: Clock, accountId: number, passwordHash: string): void {
  writeTransaction(db, () => {
    db.update(accounts).set({ passwordHash }).where(eq(accounts.id, accountId)).run();
    db.delete(consoleSessions).where(eq(consoleSessions.accountId, accountId)).run();
    db.update(invitations)
      .set({ usedAt: clock.now() })
      .where(and(eq(invitations.accountId, accountId), isNull(invitations.usedAt)))
      .run();
  });
}
