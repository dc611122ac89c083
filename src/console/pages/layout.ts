/**
 * The page shell and small shared pieces. Templates are ghtml tagged templates: every `${value}` is
 * HTML-escaped; only `!${fragment}` inserts markup, and only ever markup built by these templates.
 */
import { html } from "ghtml";

export interface Viewer {
  email: string;
  admin: boolean;
  /** The CSRF token every form of the page carries. */
  csrf: string;
}

/** What every page of a signed-in owner is drawn with. */
export interface OwnerPage {
  viewer: Viewer;
  publicUrl: string;
  assetVersion: string;
  notice?: string | null;
  error?: string | null;
}

export type Section = "overview" | "keys" | "alerts" | "usage" | "password" | "admin" | null;

export interface PageOptions {
  title: string;
  viewer: Viewer | null;
  section?: Section;
  notice?: string | null;
  error?: string | null;
  narrow?: boolean;
  assetVersion: string;
}

function navLink(href: string, label: string, current: boolean): string {
  return html`<li><a href="${href}"!${current ? ' aria-current="page"' : ""}>${label}</a></li>`;
}

function header(viewer: Viewer | null, section: Section): string {
  if (!viewer) return html`<header class="top"><div class="bar"><a class="brand" href="/console">Surfcast console</a></div></header>`;
  const links = [
    navLink("/console/overview", "Overview", section === "overview"),
    navLink("/console/keys", "Keys", section === "keys"),
    navLink("/console/alerts", "Alerts", section === "alerts"),
    navLink("/console/usage", "Usage", section === "usage"),
    navLink("/console/password", "Password", section === "password"),
    viewer.admin ? navLink("/console/admin", "Accounts", section === "admin") : "",
  ];
  return html`<header class="top"><div class="bar">
  <a class="brand" href="/console/overview">Surfcast console</a>
  <nav aria-label="Console"><ul>!${links}</ul></nav>
  <form method="post" action="/console/sign-out">!${csrfField(viewer.csrf)}<button class="link" type="submit">Sign out <span class="visually-hidden">${viewer.email}</span></button></form>
</div></header>`;
}

export function csrfField(token: string): string {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

export function page(options: PageOptions, body: string): string {
  const { title, viewer, section = null, notice, error, narrow, assetVersion } = options;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} &middot; Surfcast console</title>
<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css?v=${assetVersion}">
<script src="/console/assets/console.js?v=${assetVersion}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
!${header(viewer, section)}
<main id="main"!${narrow ? ' class="narrow"' : ""}>
<h1>${title}</h1>
!${notice ? html`<p class="notice" role="status">${notice}</p>` : ""}
!${error ? html`<p class="error" role="alert">${error}</p>` : ""}
!${body}
</main>
</body>
</html>`;
}

/** A code block with a copy button; `wrap` for one long line (a link, a snippet) rather than code (shown by the script; the text stays selectable without it). */
export function copyBlock(id: string, text: string, label: string, wrap = false): string {
  return html`<div class="copyable"><button type="button" class="copy secondary" data-copy="${id}" hidden aria-label="Copy ${label}">Copy</button><span id="${id}-status" class="muted" role="status"></span><pre id="${id}"!${wrap ? ' class="wrap"' : ""} tabindex="0" aria-label="${label}"><code>${text}</code></pre></div>`;
}

export function formatNumber(n: number): string {
  return n.toLocaleString("en-US");
}

export function formatDay(iso: string | null): string {
  return iso === null ? "never" : iso.slice(0, 10);
}

/** The card of a page that asks before an irreversible action (works without script): the question, then the form. */
export function confirmCard(csrf: string, question: string, action: string, button: string, back: string): string {
  return html`<div class="card">
<p>!${question}</p>
<form method="post" action="${action}" class="actions">
  !${csrfField(csrf)}
  <button type="submit" class="danger">${button}</button>
  <a href="${back}">Cancel</a>
</form>
</div>`;
}
