/**
 * The developer console over HTTP: every path under /console. Server-rendered pages, forms that work without
 * script, one stylesheet and one script embedded in the binary.
 *
 * Security, in order per request: security headers on every answer (strict CSP, no framing, same-origin
 * referrer, no caching of pages); the session from its cookie only (an API key is never looked at); every
 * POST must come with a matching Origin and the page's CSRF token (bound to the session, or to a random
 * cookie before sign-in); owner routes act only on the signed-in account; operator routes need an admin.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { App } from "../app";
import { UserError } from "../core/errors";
import { log, tally } from "../core/log";
import { MAX_EMAIL_LENGTH, type CustomLimits } from "../access/accounts";
import { CLIENT_SCRIPT } from "./assets/client";
import { FAVICON, STYLE } from "./assets/style";
import { ABSOLUTE_MS, type Session } from "./sessions";
import { randomToken } from "./secrets";
import { ConsoleService, CREATED_ALERT_REVEAL_MS, type AttemptSource } from "./service";
import { clientAddress, warnUntrustedForwarding } from "../core/proxy";
import { routeLabel } from "../core/route-label";
import { mountParam, type MountHandler, type RoomMount, type ServeOf } from "../core/mounts";
import { consoleWording } from "./wording";
import { changePasswordPage, choosePasswordPage, messagePage, signInPage } from "./pages/auth";
import type { Viewer } from "./pages/layout";
import { keysPage, overviewPage, revokeConfirmPage, usageCsv, usagePage } from "./pages/owner";
import type { OwnerPage } from "./pages/layout";
import { embedSpotIds, readEmbedForm, revokeEmbedPage, type EmbedForm } from "./pages/embeds";
import { alertLogPage, alertRequestOf, alertsPage, deleteAlertPage, readAlertForm, type AlertForm } from "./pages/alerts";
import { accountPage, accountsPage, invitationPage } from "./pages/operator";


const SESSION_COOKIE_NAME = "surfcast_session";
/** Proof of an earlier sign-in to an account, for the sign-in throttle (console/throttle.ts). */
const DEVICE_COOKIE_NAME = "surfcast_device";
const DEVICE_MAX_AGE_S = 365 * 86_400;
/** A new alert's secret and feed address, sealed for the session, until the page the creation redirects to shows them. */
const NEW_ALERT_COOKIE_NAME = "surfcast_new_alert";

/** Refused POSTs come in floods (a forged form, a browser that blocks cookies): one line a minute, never the path. */
const countRefusedPost = tally("console: refused POSTs without a matching Origin or CSRF token (403)");


const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "same-origin",
  "X-Content-Type-Options": "nosniff",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

const NOTICES: Record<string, string> = {
  welcome: "Your password is set and you are signed in. Create a key to start.",
  "signed-out": "You are signed out.",
  revoked: "The key is revoked. Requests with it are refused within a second.",
  "plan-saved": "Plan and limits saved. They apply to the account's keys within a second.",
  disabled: "The account is disabled: its keys are refused and its sessions have ended.",
  enabled: "The account is enabled again.",
  "password-changed": "Your password is changed. Every other session has ended.",
  "embed-created": "Your forecast picture is ready: copy its snippet below.",
  "embed-revoked": "The forecast picture is switched off. Its page answers \"not available\" within a second.",
  "alert-deleted": "The alert is deleted. Nothing more is sent for it and its calendar feed has stopped.",
  "alert-test-queued": "A test event is queued: it is sent within a few seconds and shows in the delivery log below.",
  "alert-sent-again": "The delivery is queued again: it is sent within a few seconds and shows in the log below.",
  "alert-confirmation-sent": "A new confirmation e-mail is queued: the alert sends its windows once its link is opened.",
};

interface Ctx {
  req: Request;
  url: URL;
  path: string;
  /** The page's row of the mount table. */
  mount: RoomMount<"console">;
  cookies: Bun.CookieMap;
  session: Session | null;
  sessionToken: string | null;
  address: string;
  /** Cookies to set on the answer. */
  setCookies: string[];
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function intField(form: URLSearchParams, name: string, label: string): number | undefined {
  const raw = (form.get(name) ?? "").trim();
  if (raw === "") return undefined;
  if (!/^\d+$/.test(raw)) throw new UserError(`${label} must be a whole number.`);
  return Number(raw);
}

export function createConsoleHandler(app: App): MountHandler<"console"> {
  const service = new ConsoleService(app);
  // Read per request: the server fills in the port when it was started on port 0 (see startHttpServer).
  const publicUrl = () => app.config.publicUrl;
  const publicOrigin = () => new URL(publicUrl()).origin;
  const secure = app.config.publicUrl.startsWith("https:");
  // Behind TLS every cookie carries the __Host- prefix: the browser takes it only from this host, over HTTPS,
  // for the path /, so a sibling subdomain cannot plant one.
  const cookieName = (name: string) => (secure ? `__Host-${name}` : name);
  const CSRF_COOKIE = cookieName("surfcast_csrf");
  const SESSION_COOKIE = cookieName(SESSION_COOKIE_NAME);
  const DEVICE_COOKIE = cookieName(DEVICE_COOKIE_NAME);
  const NEW_ALERT_COOKIE = cookieName(NEW_ALERT_COOKIE_NAME);
  const assetVersion = Bun.hash(STYLE + CLIENT_SCRIPT).toString(36);
  const assets = new Map([
    ["/console/assets/console.css", { body: STYLE, type: "text/css; charset=utf-8" }],
    ["/console/assets/console.js", { body: CLIENT_SCRIPT, type: "text/javascript; charset=utf-8" }],
    ["/console/assets/favicon.svg", { body: FAVICON, type: "image/svg+xml" }],
  ]);

  const cookie = (name: string, value: string, maxAgeSeconds: number) =>
    new Bun.Cookie(name, value, { path: name.startsWith("__Host-") ? "/" : "/console", httpOnly: true, sameSite: "lax", secure, maxAge: maxAgeSeconds }).serialize();
  const attemptSource = (ctx: Ctx): AttemptSource => ({ address: ctx.address, deviceCookie: ctx.cookies.get(DEVICE_COOKIE) ?? undefined });

  function respond(ctx: Ctx, body: string | null, status: number, extra: Record<string, string> = {}): Response {
    const headers = new Headers({ ...SECURITY_HEADERS, "Cache-Control": "no-store", ...extra });
    if (body !== null && !headers.has("Content-Type")) headers.set("Content-Type", "text/html; charset=utf-8");
    for (const c of ctx.setCookies) headers.append("Set-Cookie", c);
    return new Response(body, { status, headers });
  }
  const redirect = (ctx: Ctx, location: string) => respond(ctx, null, 303, { Location: location });

  /** The CSRF token of this browser: bound to the session when signed in, else to a random cookie. */
  function csrfToken(ctx: Ctx): string {
    if (ctx.sessionToken) return createHmac("sha256", ctx.sessionToken).update("surfcast console csrf").digest("base64url");
    let value = ctx.cookies.get(CSRF_COOKIE);
    if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) {
      value = randomToken();
      ctx.setCookies.push(cookie(CSRF_COOKIE, value, ABSOLUTE_MS / 1000));
      ctx.cookies.set(CSRF_COOKIE, value);
    }
    return value;
  }

  /**
   * Same origin and the page's token. The origin is the public URL's; on a plain-HTTP public URL (a local or LAN
   * install) also the one the browser used to reach us. Behind TLS the request reaches us as http://<Host>, which
   * no browser on the https page sends, so only the public origin is accepted there.
   */
  function postAllowed(ctx: Ctx, form: URLSearchParams): boolean {
    const origin = ctx.req.headers.get("origin");
    if (origin === null || (origin !== publicOrigin() && (secure || origin !== ctx.url.origin))) return false;
    const sent = form.get("csrf");
    if (!sent) return false;
    if (!ctx.sessionToken && !ctx.cookies.get(CSRF_COOKIE)) return false;
    return sameSecret(sent, csrfToken(ctx));
  }

  function viewer(ctx: Ctx): Viewer {
    return { email: ctx.session!.email, admin: ctx.session!.admin, csrf: csrfToken(ctx) };
  }

  function ownerPage(ctx: Ctx, extra: { error?: string | null } = {}): OwnerPage {
    const notice = NOTICES[ctx.url.searchParams.get("notice") ?? ""] ?? null;
    return { viewer: viewer(ctx), publicUrl: publicUrl(), assetVersion, notice, error: extra.error ?? null };
  }

  const html = (ctx: Ctx, body: string, status = 200) => respond(ctx, body, status);
  const notFound = (ctx: Ctx) =>
    html(ctx, messagePage({ title: "Not found", message: "There is no such page in the console.", viewer: ctx.session ? viewer(ctx) : null, link: { href: "/console", label: "Back to the console" }, assetVersion }), 404);
  const forbidden = (ctx: Ctx) =>
    html(ctx, messagePage({ title: "Request refused", message: "This form was sent from another site, or the page had expired. Go back, reload the page and try again.", viewer: null, link: { href: "/console", label: "Back to the console" }, assetVersion }), 403);

  function startSignedIn(ctx: Ctx, token: string, location: string): Response {
    ctx.setCookies.push(cookie(SESSION_COOKIE, token, ABSOLUTE_MS / 1000));
    return redirect(ctx, location);
  }

  // ── anonymous routes ───────────────────────────────────────────────────────────────────────────────

  async function signIn(ctx: Ctx, form: URLSearchParams | null): Promise<Response> {
    if (form === null) {
      if (ctx.session) return redirect(ctx, "/console/overview");
      return html(ctx, signInPage({ csrf: csrfToken(ctx), notice: NOTICES[ctx.url.searchParams.get("notice") ?? ""] ?? null, assetVersion }));
    }
    const email = (form.get("email") ?? "").trim();
    const refuse = (error: string, status: number, headers: Record<string, string> = {}) =>
      respond(ctx, signInPage({ csrf: csrfToken(ctx), email: email.slice(0, MAX_EMAIL_LENGTH), error, assetVersion }), status, headers);
    if (email.length > MAX_EMAIL_LENGTH) return refuse(`An e-mail address has at most ${MAX_EMAIL_LENGTH} characters.`, 400);
    const result = await service.signIn(email, form.get("password") ?? "", attemptSource(ctx));
    if ("token" in result) {
      ctx.setCookies.push(cookie(DEVICE_COOKIE, result.device, DEVICE_MAX_AGE_S));
      return startSignedIn(ctx, result.token, "/console/overview");
    }
    if (result.problem === "throttled") {
      const minutes = Math.ceil(result.retryAfterSeconds / 60);
      return refuse(`Too many failed sign-ins. Try again in ${minutes} minute${minutes > 1 ? "s" : ""}.`, 429, { "Retry-After": String(result.retryAfterSeconds) });
    }
    if (result.problem === "busy") return refuse("The server is busy checking other sign-ins. Try again in a few seconds.", 503, { "Retry-After": "2" });
    return refuse("The e-mail or the password is wrong.", 401);
  }

  const LINK_PROBLEMS: Record<string, string> = {
    unknown: "This link is not valid. Check that you copied all of it, or ask the operator for a new one.",
    used: "This link has already been used. Sign in with your password, or ask the operator for a new link.",
    expired: "This link has expired (links are valid for 7 days). Ask the operator for a new one.",
    disabled: "This account is disabled. Contact the operator of this server.",
  };

  async function invitation(ctx: Ctx, token: string, form: URLSearchParams | null): Promise<Response> {
    const state = await service.linkState(token);
    if (!state.ok) {
      return html(ctx, messagePage({ title: "Link not usable", message: LINK_PROBLEMS[state.problem]!, viewer: null, link: { href: "/console/sign-in", label: "Go to sign-in" }, assetVersion }), state.problem === "unknown" ? 404 : 410);
    }
    const show = (error: string | null, status: number) => html(ctx, choosePasswordPage({ csrf: csrfToken(ctx), token, email: state.email, hasPassword: state.hasPassword, error, assetVersion }), status);
    if (form === null) return show(null, 200);
    const password = form.get("password") ?? "";
    if (password !== (form.get("confirm") ?? "")) return show("The two passwords differ.", 400);
    const result = await service.redeemLink(token, password);
    if ("problem" in result) return show(LINK_PROBLEMS[result.problem] ?? result.problem, 400);
    if (ctx.session) await service.endSession(ctx.session.tokenHash);
    log.info("console password set through a link", { account: result.accountId });
    return startSignedIn(ctx, await service.startSession(result.accountId), "/console/overview?notice=welcome");
  }

  // ── owner routes ───────────────────────────────────────────────────────────────────────────────────

  /** A console page's answer; null when what its path names is not there or not the viewer's: "no such page". */
  type Page = (ctx: Ctx, form: URLSearchParams | null) => Promise<Response | null>;
  /** A parameter of the page's path (core/mounts.ts). */
  const param = (ctx: Ctx, name: string) => mountParam(ctx.mount, ctx.path, name)!;
  const accountOf = (ctx: Ctx) => ctx.session!.accountId;

  async function showKeys(ctx: Ctx, extra: { created?: { key: string; name: string }; error?: string; name?: string; embedForm?: EmbedForm; search?: boolean }, status = 200): Promise<Response> {
    const accountId = accountOf(ctx);
    const fresh = await service.account(accountId);
    const f = extra.embedForm;
    const spotPicker = f ? service.spotPicker(f.chosen ?? [], extra.search ? (f.q ?? "") : null) : undefined;
    const page = { keys: await service.keys(accountId), activeKeys: fresh.activeKeys, maxKeys: fresh.maxKeys, plan: fresh.plan, created: extra.created, name: extra.name, embeds: await service.embeds(accountId), embedForm: f, spotPicker };
    return html(ctx, keysPage(ownerPage(ctx, extra), page), status);
  }

  /** The signed-in owner's usage, as a page or as CSV; a key of someone else's is no such page. */
  async function usage(ctx: Ctx, csv: boolean): Promise<Response | null> {
    const accountId = accountOf(ctx);
    const requested = ctx.url.searchParams.get("key") || null;
    const keys = await service.keyList(accountId);
    if (requested !== null && !keys.some((k) => k.id === requested)) return null;
    const table = await service.usage(accountId, requested);
    if (csv) {
      const name = `surfcast-usage-${requested ?? "all-keys"}-${table.days.at(-1)!.date}.csv`;
      return respond(ctx, usageCsv(table), 200, { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="${name}"` });
    }
    return html(ctx, usagePage(ownerPage(ctx), { usage: table, keys, keyId: requested }));
  }

  // ── the owner's alerts ───────────────────────────────────────────────────────────────────────────

  async function showAlerts(ctx: Ctx, form: URLSearchParams | null, extra: { error?: string; form?: AlertForm; search?: string }, status = 200): Promise<Response> {
    const accountId = accountOf(ctx);
    const [list, keys, account] = await Promise.all([service.alerts(accountId), service.keyList(accountId), service.account(accountId)]);
    const allowance = await service.alertAllowance(accountId, list);
    // The new alert's secret and feed, once: the cookie the creation set is read and cleared here.
    const sealed = form ? undefined : ctx.cookies.get(NEW_ALERT_COOKIE);
    if (sealed) ctx.setCookies.push(cookie(NEW_ALERT_COOKIE, "", 0));
    const created = sealed ? await service.openCreatedAlert(ctx.session!.tokenHash, sealed, list) : null;
    const f = extra.form;
    const picker = service.spotPicker(f?.spot ? [f.spot] : [], extra.search ?? null);
    return html(ctx, alertsPage(ownerPage(ctx, extra), { alerts: list, keys, allowance, plan: account.plan, created: created ?? undefined, form: f, picker }), status);
  }

  type OwnAlert = NonNullable<Awaited<ReturnType<typeof service.ownAlert>>>;
  /** A page of one of the owner's alerts (the path's alertId); another's, or none, is no such page. */
  const alertPage = (run: (ctx: Ctx, alert: OwnAlert, form: URLSearchParams | null) => Promise<Response | null>): Page => async (ctx, form) => {
    const alert = await service.ownAlert(accountOf(ctx), param(ctx, "alertId"));
    return alert ? run(ctx, alert, form) : null;
  };
  const alertLog = async (ctx: Ctx, alert: OwnAlert, error: string | null, status = 200) => {
    const deliveries = (await service.ownAlertDeliveries(accountOf(ctx), alert.id)) ?? [];
    return html(ctx, alertLogPage(ownerPage(ctx, { error }), { alert, deliveries }), status);
  };
  /** An action on the alert's log page: back to the log with `notice`, or the log with the refusal. */
  const alertAction = (run: (accountId: number, alert: OwnAlert, ctx: Ctx) => Promise<boolean>, notice: string): Page =>
    alertPage(async (ctx, alert) => {
      try {
        return (await run(accountOf(ctx), alert, ctx)) ? redirect(ctx, `/console/alerts/${alert.id}?notice=${notice}`) : null;
      } catch (err) {
        if (!(err instanceof UserError)) throw err;
        return alertLog(ctx, alert, consoleWording(err), 400);
      }
    });

  // ── operator routes ────────────────────────────────────────────────────────────────────────────────

  const customLimits = (form: URLSearchParams): CustomLimits => ({ dailyLimit: intField(form, "dailyLimit", "Daily limit"), minuteLimit: intField(form, "minuteLimit", "Per-minute limit"), maxKeys: intField(form, "maxKeys", "Key limit") });
  const showAccount = async (ctx: Ctx, id: number, error?: string) =>
    html(ctx, accountPage(ownerPage(ctx, { error }), { account: await service.account(id), keys: await service.keys(id), custom: await service.customLimits(id) }), error ? 400 : 200);
  /** A page of the account the path's accountId names; an id that is not a number, or no account, is no such page. */
  const accountPageOf = (run: (ctx: Ctx, id: number, form: URLSearchParams | null) => Promise<Response | null>): Page => async (ctx, form) => {
    const raw = param(ctx, "accountId");
    if (!/^\d+$/.test(raw) || !(await service.accountExists(Number(raw)))) return null;
    return run(ctx, Number(raw), form);
  };
  const setDisabled = (disabled: boolean): Page =>
    accountPageOf(async (ctx, id) => {
      if (id === accountOf(ctx)) return null;
      await service.setDisabled(id, disabled);
      return redirect(ctx, `/console/admin/accounts/${id}?notice=${disabled ? "disabled" : "enabled"}`);
    });

  /** Every console row's page (core/mounts.ts): the row's guard was checked before it runs, its methods by the matcher. */
  const pages: Record<Exclude<ServeOf<"console">, "asset">, Page> = {
    start: async (ctx) => redirect(ctx, ctx.session ? "/console/overview" : "/console/sign-in"),
    signIn,
    invitation: (ctx, form) => invitation(ctx, param(ctx, "token"), form),
    signOut: async (ctx) => {
      if (ctx.session) await service.endSession(ctx.session.tokenHash);
      ctx.setCookies.push(cookie(SESSION_COOKIE, "", 0));
      return redirect(ctx, "/console/sign-in?notice=signed-out");
    },
    overview: async (ctx) => html(ctx, overviewPage(ownerPage(ctx), await service.overview(accountOf(ctx)))),
    keys: async (ctx, form) => {
      if (!form) return showKeys(ctx, {});
      const name = form.get("name") ?? "";
      try {
        const { key, view } = await service.createKey(accountOf(ctx), name);
        return showKeys(ctx, { created: { key, name: view.name } }, 201);
      } catch (err) {
        if (err instanceof UserError) return showKeys(ctx, { error: consoleWording(err), name }, 400);
        throw err;
      }
    },
    revokeKey: async (ctx, form) => {
      const key = await service.ownKey(accountOf(ctx), param(ctx, "keyId"));
      if (!key || key.revokedAt !== null) return null;
      if (!form) return html(ctx, revokeConfirmPage(ownerPage(ctx), key, `/console/keys/${key.id}/revoke`, "/console/keys"));
      await service.revokeOwnKey(accountOf(ctx), key.id);
      return redirect(ctx, "/console/keys?notice=revoked");
    },
    createEmbed: async (ctx, form) => {
      const { find, ...embedForm } = readEmbedForm(form!);
      // The form's Search button: the same page with the spots found by name, what was typed and ticked kept.
      if (find) return showKeys(ctx, { embedForm, search: true });
      try {
        await service.createEmbed(accountOf(ctx), embedForm.keyId!, {
          spots: embedSpotIds(embedForm),
          origins: embedForm.origins!.split(/\s+/).filter((o) => o !== ""),
          units: embedForm.units || undefined,
          theme: embedForm.theme || undefined,
          lang: embedForm.lang || undefined,
        });
        return redirect(ctx, "/console/keys?notice=embed-created#embeds");
      } catch (err) {
        if (!(err instanceof UserError)) throw err;
        return showKeys(ctx, { error: consoleWording(err), embedForm }, 400);
      }
    },
    revokeEmbed: async (ctx, form) => {
      const embed = await service.ownEmbed(accountOf(ctx), param(ctx, "embedId"));
      if (!embed) return null;
      if (!form) return html(ctx, revokeEmbedPage(ownerPage(ctx), embed));
      await service.revokeOwnEmbed(accountOf(ctx), embed.id);
      return redirect(ctx, "/console/keys?notice=embed-revoked#embeds");
    },
    alerts: async (ctx, form) => {
      if (!form) return showAlerts(ctx, form, {});
      const { find, ...alertForm } = readAlertForm(form);
      // The form's Search button: the same page with the spots found by name, everything typed kept.
      if (find) return showAlerts(ctx, form, { form: alertForm, search: alertForm.q });
      // A name typed where the id goes ("nazare") is searched for, so the owner picks the spot instead of a refusal.
      if (!alertForm.spot && alertForm.spotId !== "" && service.spotPicker([alertForm.spotId], null).chosen.length === 0) {
        const error = `There is no spot with the id "${alertForm.spotId.slice(0, 100)}": pick it among the spots found by name below.`;
        return showAlerts(ctx, form, { error, form: { ...alertForm, q: alertForm.spotId }, search: alertForm.spotId }, 400);
      }
      try {
        const created = await service.createAlert(accountOf(ctx), alertForm.keyId, alertRequestOf(alertForm));
        // POST, then redirect: a reload of the page shown next makes no second alert. The secret reaches that page
        // sealed in a short-lived cookie for this session (console/secrets.ts), never in its URL.
        ctx.setCookies.push(cookie(NEW_ALERT_COOKIE, await service.sealCreatedAlert(ctx.session!.tokenHash, created), CREATED_ALERT_REVEAL_MS / 1000));
        return redirect(ctx, "/console/alerts#new-alert-title");
      } catch (err) {
        if (!(err instanceof UserError)) throw err;
        return showAlerts(ctx, form, { error: consoleWording(err), form: alertForm }, 400);
      }
    },
    alertLog: alertPage((ctx, alert) => alertLog(ctx, alert, null)),
    deleteAlert: alertPage(async (ctx, alert, form) => {
      if (!form) return html(ctx, deleteAlertPage(ownerPage(ctx), alert));
      return (await service.deleteOwnAlert(accountOf(ctx), alert.id)) ? redirect(ctx, "/console/alerts?notice=alert-deleted") : null;
    }),
    testAlert: alertAction((accountId, alert) => service.testOwnAlert(accountId, alert.id), "alert-test-queued"),
    confirmAgain: alertAction((accountId, alert) => service.resendConfirmationOwn(accountId, alert.id), "alert-confirmation-sent"),
    sendAgain: alertAction((accountId, alert, ctx) => service.sendAgainOwn(accountId, alert.id, param(ctx, "deliveryId")), "alert-sent-again"),
    usage: (ctx) => usage(ctx, false),
    usageCsv: (ctx) => usage(ctx, true),
    password: async (ctx, form) => {
      if (!form) return html(ctx, changePasswordPage({ viewer: viewer(ctx), assetVersion }));
      const next = form.get("password") ?? "";
      if (next !== (form.get("confirm") ?? "")) return html(ctx, changePasswordPage({ viewer: viewer(ctx), error: "The two new passwords differ.", assetVersion }), 400);
      const result = await service.changePassword(accountOf(ctx), form.get("current") ?? "", next, attemptSource(ctx));
      if ("problem" in result) return html(ctx, changePasswordPage({ viewer: viewer(ctx), error: result.problem, assetVersion }), 400);
      return startSignedIn(ctx, result.token, "/console/password?notice=password-changed");
    },
    accounts: async (ctx) => {
      const query = (ctx.url.searchParams.get("q") ?? "").trim().slice(0, 200);
      // Any digits are a page number (past the last is the last); anything else is the first page.
      const requested = ctx.url.searchParams.get("page") ?? "";
      const result = await service.accountsPage(query, /^\d{1,9}$/.test(requested) ? Number(requested) : 1);
      return html(ctx, accountsPage(ownerPage(ctx), { ...result, query }));
    },
    invite: async (ctx, form) => {
      const email = (form!.get("email") ?? "").trim();
      try {
        const result = await service.invite({ email, plan: form!.get("plan") || undefined, limits: customLimits(form!) });
        return html(ctx, invitationPage(ownerPage(ctx), { ...result, smtp: app.config.smtpUrl !== undefined }), 201);
      } catch (err) {
        if (!(err instanceof UserError)) throw err;
        const result = await service.accountsPage("", 1);
        return html(ctx, accountsPage(ownerPage(ctx, { error: consoleWording(err) }), { ...result, query: "" }), 400);
      }
    },
    account: accountPageOf((ctx, id) => showAccount(ctx, id)),
    setPlan: accountPageOf(async (ctx, id, form) => {
      try {
        await service.setPlan(id, form!.get("plan") ?? "", customLimits(form!));
        return redirect(ctx, `/console/admin/accounts/${id}?notice=plan-saved`);
      } catch (err) {
        if (!(err instanceof UserError)) throw err;
        return showAccount(ctx, id, consoleWording(err));
      }
    }),
    disableAccount: setDisabled(true),
    enableAccount: setDisabled(false),
    revokeAnyKey: async (ctx, form) => {
      const key = await service.anyKey(param(ctx, "keyId"));
      if (!key || key.revokedAt !== null) return null;
      const back = `/console/admin/accounts/${key.accountId}`;
      if (!form) return html(ctx, revokeConfirmPage(ownerPage(ctx), key, `/console/admin/keys/${key.id}/revoke`, back));
      await service.revokeAnyKey(key.id, accountOf(ctx));
      return redirect(ctx, `${back}?notice=revoked`);
    },
    unknown: async () => null,
  };

  async function route(ctx: Ctx): Promise<Response> {
    const { mount } = ctx;
    if (mount.serve === "asset") {
      const asset = assets.get(ctx.path)!;
      return respond(ctx, asset.body, 200, { "Content-Type": asset.type, "Cache-Control": "public, max-age=31536000, immutable" });
    }
    if (ctx.req.method !== "GET" && ctx.req.method !== "HEAD" && ctx.req.method !== "POST") return respond(ctx, null, 405, { Allow: "GET, HEAD, POST" });
    let form: URLSearchParams | null = null;
    if (ctx.req.method === "POST") {
      const type = ctx.req.headers.get("content-type") ?? "";
      form = type.startsWith("application/x-www-form-urlencoded") ? new URLSearchParams(await ctx.req.text()) : new URLSearchParams();
      if (!postAllowed(ctx, form)) {
        countRefusedPost();
        return forbidden(ctx);
      }
    }
    switch (mount.guard) {
      case "visitor":
        break;
      case "session":
      case "admin":
        if (!ctx.session) return form ? forbidden(ctx) : redirect(ctx, "/console/sign-in");
        // An owner who is not an operator sees no operator page, as if there were none.
        if (mount.guard === "admin" && !ctx.session.admin) return notFound(ctx);
        break;
      default:
        // A guard the console does not decide: nothing is served.
        return notFound(ctx);
    }
    return (await pages[mount.serve](ctx, form)) ?? notFound(ctx);
  }

  return async (req, path, mount, server) => {
    const url = new URL(req.url);
    const cookies = new Bun.CookieMap(req.headers.get("cookie") ?? "");
    const sessionToken = cookies.get(SESSION_COOKIE) || null;
    const session = sessionToken ? await service.session(sessionToken) : null;
    const peer = server?.requestIP(req)?.address ?? "unknown";
    const forwardedFor = req.headers.get("x-forwarded-for");
    const ctx: Ctx = {
      req,
      url,
      path,
      mount,
      cookies,
      session,
      sessionToken: session ? sessionToken : null,
      // Behind a proxy named in SURFCAST_TRUST_PROXY, the client its X-Forwarded-For names (core/proxy.ts).
      address: clientAddress(peer, forwardedFor, app.config.trustProxy),
      setCookies: [],
    };
    if (forwardedFor !== null) warnUntrustedForwarding(peer, app.config.trustProxy, "the sign-in throttle counts every client behind it as one address");
    if (sessionToken && !session) ctx.setCookies.push(cookie(SESSION_COOKIE, "", 0));
    try {
      return await route(ctx);
    } catch (err) {
      log.error("console request failed", { route: routeLabel(path), error: String(err) });
      return respond(ctx, messagePage({ title: "Something went wrong", message: "The console could not answer. Try again; if it persists, the operator finds the cause in the server log.", viewer: null, assetVersion }), 500);
    }
  };
}
