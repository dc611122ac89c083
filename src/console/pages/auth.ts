/** Sign-in, the invitation / set-password page, password change, and the plain message page. */
import { html } from "ghtml";
import { MIN_PASSWORD_LENGTH } from "../secrets";
import { csrfField, page, type Viewer } from "./layout";

export function signInPage(o: { csrf: string; email?: string; error?: string | null; notice?: string | null; assetVersion: string }): string {
  return page(
    { title: "Sign in", viewer: null, narrow: true, error: o.error, notice: o.notice, assetVersion: o.assetVersion },
    html`<form method="post" action="/console/sign-in" class="card">
  !${csrfField(o.csrf)}
  <label for="email">E-mail</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${o.email ?? ""}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>
<p class="muted">No password yet, or forgot it? Ask the operator of this server for a new link.</p>`,
  );
}

function newPasswordFields(): string {
  return html`<label for="password">New password <span class="hint">At least ${MIN_PASSWORD_LENGTH} characters.</span></label>
  <input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required>
  <label for="confirm">Repeat the password</label>
  <input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required>`;
}

export function choosePasswordPage(o: { csrf: string; token: string; email: string; hasPassword: boolean; error?: string | null; assetVersion: string }): string {
  const title = o.hasPassword ? "Set a new password" : "Welcome to Surfcast";
  return page(
    { title, viewer: null, narrow: true, error: o.error, assetVersion: o.assetVersion },
    html`<p>${o.hasPassword ? "Choose a new password for" : "Choose a password for your account"} <strong>${o.email}</strong>. This link works once.</p>
<form method="post" action="/console/invite/${o.token}" class="card">
  !${csrfField(o.csrf)}
  <input type="text" name="username" autocomplete="username" value="${o.email}" hidden>
  !${newPasswordFields()}
  <button type="submit">Save password and sign in</button>
</form>`,
  );
}

export function changePasswordPage(o: { viewer: Viewer; error?: string | null; notice?: string | null; assetVersion: string }): string {
  return page(
    { title: "Password", viewer: o.viewer, section: "password", error: o.error, notice: o.notice, assetVersion: o.assetVersion },
    html`<form method="post" action="/console/password" class="card">
  !${csrfField(o.viewer.csrf)}
  <input type="text" name="username" autocomplete="username" value="${o.viewer.email}" hidden>
  <label for="current">Current password</label>
  <input id="current" name="current" type="password" autocomplete="current-password" required>
  !${newPasswordFields()}
  <button type="submit">Change password</button>
</form>
<p class="muted">Changing the password signs you out everywhere else.</p>`,
  );
}

export function messagePage(o: { title: string; message: string; viewer: Viewer | null; link?: { href: string; label: string }; assetVersion: string }): string {
  return page(
    { title: o.title, viewer: o.viewer, narrow: o.viewer === null, assetVersion: o.assetVersion },
    html`<p>${o.message}</p>!${o.link ? html`<p><a href="${o.link.href}">${o.link.label}</a></p>` : ""}`,
  );
}
