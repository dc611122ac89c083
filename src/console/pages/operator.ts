/** The operator's pages: accounts list with invite, one account (plan, limits, disable/enable, keys), invitation result. */
import { html } from "ghtml";
import type { AccountView } from "../../access/accounts";
import { PLAN_DEFAULTS, PLAN_NAMES } from "../../access/plans";
import type { Invitation } from "../invitations";
import type { ConsoleKey } from "../service";
import { copyBlock, csrfField, formatDay, formatNumber, page, type OwnerPage } from "./layout";

function planOptions(selected: string): string[] {
  return PLAN_NAMES.map((name) => {
    const d = PLAN_DEFAULTS[name];
    return html`<option value="${name}"!${name === selected ? " selected" : ""}>${name} (${formatNumber(d.dailyLimit)}/day, ${d.minuteLimit}/min, ${d.maxKeys} keys)</option>`;
  });
}

function limitInputs(prefix: string, values: { dailyLimit?: number | null; minuteLimit?: number | null; maxKeys?: number | null }): string {
  const field = (name: string, label: string, value: number | null | undefined) =>
    html`<div><label for="${prefix}-${name}">${label} <span class="hint">blank = plan default</span></label><input id="${prefix}-${name}" name="${name}" type="number" min="1" step="1" inputmode="numeric" value="${value ?? ""}"></div>`;
  return [field("dailyLimit", "Daily limit", values.dailyLimit), field("minuteLimit", "Per-minute limit", values.minuteLimit), field("maxKeys", "Key limit", values.maxKeys)].join("");
}

function statusOf(a: AccountView): string {
  return a.disabled ? html`<span class="status-disabled">disabled</span>` : html`<span class="status-active">active</span>`;
}

export function accountsPage(p: OwnerPage, o: { rows: { account: AccountView; today: number }[]; total: number; page: number; pages: number; query: string }): string {
  const rows = o.rows.map(
    ({ account: a, today }) =>
      html`<tr><td><a href="/console/admin/accounts/${a.id}">${a.email}</a>!${a.admin ? html` <span class="muted">(operator)</span>` : ""}</td><td>${a.plan}</td><td>!${statusOf(a)}</td><td class="num">${a.activeKeys} / ${a.maxKeys}</td><td class="num">${formatNumber(today)}</td></tr>`,
  );
  const q = o.query ? `&q=${encodeURIComponent(o.query)}` : "";
  const pager =
    o.pages > 1
      ? html`<nav class="pager" aria-label="Pages">!${o.page > 1 ? html`<a href="/console/admin?page=${o.page - 1}${q}">Previous</a>` : ""}<span>Page ${o.page} of ${o.pages}</span>!${o.page < o.pages ? html`<a href="/console/admin?page=${o.page + 1}${q}">Next</a>` : ""}</nav>`
      : "";
  return page(
    { title: "Accounts", viewer: p.viewer, section: "admin", notice: p.notice, error: p.error, assetVersion: p.assetVersion },
    html`<details class="card"!${p.error ? " open" : ""}>
<summary>Invite an account</summary>
<form method="post" action="/console/admin/invite">
  !${csrfField(p.viewer.csrf)}
  <label for="invite-email">E-mail</label>
  <input id="invite-email" name="email" type="email" required>
  <label for="invite-plan">Plan <span class="hint">For an existing account the link sets a new password and moves it to this plan.</span></label>
  <select id="invite-plan" name="plan">!${planOptions("starter")}</select>
  <div class="inline-form">!${limitInputs("invite", {})}</div>
  <button type="submit">Create invitation link</button>
</form>
</details>
<form method="get" action="/console/admin" class="inline-form card" role="search">
  <div><label for="q">Find by e-mail</label><input id="q" name="q" type="search" value="${o.query}"></div>
  <button type="submit" class="secondary">Search</button>
</form>
<p>${formatNumber(o.total)} account${o.total === 1 ? "" : "s"}!${o.query ? html` matching &ldquo;${o.query}&rdquo;` : ""}.</p>
<div class="table-wrap" role="region" aria-label="Accounts" tabindex="0">
<table>
<thead><tr><th scope="col">E-mail</th><th scope="col">Plan</th><th scope="col">Status</th><th scope="col" class="num">Keys</th><th scope="col" class="num">Requests today</th></tr></thead>
<tbody>!${rows.length > 0 ? rows : html`<tr><td colspan="5">No accounts.</td></tr>`}</tbody>
</table>
</div>
!${pager}`,
  );
}

export function accountPage(p: OwnerPage, o: { account: AccountView; keys: ConsoleKey[]; custom: { dailyLimit: number | null; minuteLimit: number | null; maxKeys: number | null } }): string {
  const a = o.account;
  const keyRows = o.keys.map(
    (k) =>
      html`<tr><td>${k.name}</td><td><code>${k.prefix}&hellip;</code></td><td>${formatDay(k.createdAt)}</td><td>${formatDay(k.lastUsed)}</td><td class="num">${formatNumber(k.today)}</td><td>!${k.revokedAt === null ? html`<span class="status-active">active</span>` : html`<span class="status-revoked">revoked</span>`}</td><td>!${k.revokedAt === null ? html`<a href="/console/admin/keys/${k.id}/revoke">Revoke<span class="visually-hidden"> ${k.name}</span></a>` : ""}</td></tr>`,
  );
  const self = a.email === p.viewer.email;
  return page(
    { title: a.email, viewer: p.viewer, section: "admin", notice: p.notice, error: p.error, assetVersion: p.assetVersion },
    html`<p><a href="/console/admin">&larr; All accounts</a></p>
<div class="grid">
  <div class="card"><span class="muted">Status</span><span class="stat">!${statusOf(a)}</span>${a.admin ? "Operator. " : ""}Since ${formatDay(a.createdAt)}.</div>
  <div class="card"><span class="muted">Plan</span><span class="stat">${a.plan}</span>${formatNumber(a.dailyLimit)}/day, ${formatNumber(a.minuteLimit)}/min per key</div>
  <div class="card"><span class="muted">Keys</span><span class="stat">${a.activeKeys} of ${a.maxKeys}</span>active</div>
</div>
<h2>Plan and limits</h2>
<form method="post" action="/console/admin/accounts/${a.id}/plan" class="card">
  !${csrfField(p.viewer.csrf)}
  <label for="plan">Plan</label>
  <select id="plan" name="plan">!${planOptions(a.plan)}</select>
  <div class="inline-form">!${limitInputs("plan", o.custom)}</div>
  <button type="submit">Save plan and limits</button>
</form>
<h2>Access</h2>
<div class="card actions">
!${self
  ? html`<p class="muted">You cannot disable your own account here.</p>`
  : html`<form method="post" action="/console/admin/accounts/${a.id}/${a.disabled ? "enable" : "disable"}">!${csrfField(p.viewer.csrf)}<button type="submit"!${a.disabled ? "" : ' class="danger"'}>${a.disabled ? "Enable account" : "Disable account"}</button></form>`}
<form method="post" action="/console/admin/invite">!${csrfField(p.viewer.csrf)}<input type="hidden" name="email" value="${a.email}"><button type="submit" class="secondary">New set-password link</button></form>
</div>
<h2>Keys</h2>
<div class="table-wrap" role="region" aria-label="Keys of ${a.email}" tabindex="0">
<table>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col" class="num">Today</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>!${keyRows.length > 0 ? keyRows : html`<tr><td colspan="7">No keys.</td></tr>`}</tbody>
</table>
</div>`,
  );
}

export function invitationPage(p: OwnerPage, o: { invitation: Invitation; mailProblem: string | null; smtp: boolean }): string {
  const { invitation } = o;
  const delivery = !o.smtp
    ? "E-mail is not configured on this server: send the link yourself."
    : o.mailProblem === null
      ? `The link was e-mailed to ${invitation.account.email}.`
      : `The e-mail could not be sent (${o.mailProblem}): send the link yourself.`;
  return page(
    { title: invitation.kind === "invitation" ? "Invitation created" : "Set-password link created", viewer: p.viewer, section: "admin", assetVersion: p.assetVersion },
    html`<div class="card">
<p>${invitation.created ? "New account" : "Account"} <a href="/console/admin/accounts/${invitation.account.id}">${invitation.account.email}</a> (${invitation.account.plan}). The link works once and expires ${formatDay(invitation.expiresAt)}.</p>
!${copyBlock("invite-link", invitation.url, "invitation link", true)}
<p>${delivery}</p>
</div>
<p><a href="/console/admin">&larr; All accounts</a></p>`,
  );
}
