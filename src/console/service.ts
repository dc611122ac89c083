/**
 * What the console's pages ask and do, over the access services (accounts, keys, meter, registry) and the
 * console's own store (sessions, links). The HTTP handler turns requests into these calls and their results into
 * pages; the rules live here, never in a template. Every owner operation takes the signed-in account's id and checks ownership itself, so an id
 * changed in a URL or a form can never reach another account.
 */
import type { App } from "../app";
import { DAY_MS, utcDay } from "../core/clock";
import { UserError } from "../core/errors";
import { log } from "../core/log";
import { accountById, createKey, credentialsOf, customLimitsOf, findAccount, keyById, listAccountsPage, listKeys, revokeKey, setAccountDisabled, setAccountPlan, type AccountView, type CustomLimits, type KeyView } from "../access/accounts";
import type { UsageDay } from "../access/meter";
import { USAGE_KEYS } from "../core/endpoints";
import { PLAN_DEFAULTS } from "../access/plans";
import { inspectLink, issueInvitation, redeemLink, setPassword, type Invitation, type InviteRequest, type LinkState } from "./invitations";
import { mailInvitation } from "./mailer";
import { deviceCookie, deviceOf, hashPassword, openForSession, passwordProblem, randomToken, sealForSession, verifyPassword } from "./secrets";
import { findSession, startSession, type Session } from "./sessions";
import { openConsoleStore } from "./open-store";
import type { ConsoleStore } from "./store";
import { SignInThrottle, WorkQueue, type Admission, type AttemptFrom, type Reservation, type Throttle } from "./throttle";
import { SharedSignInThrottle } from "./shared-throttle";
import { DEFAULT_PREFIX } from "../access/redis-limits";
import { isOutage } from "../core/errors";
import { MAX_EMBED_SPOTS, type EmbedRequest, type EmbedView } from "../embed/service";
import type { Spot } from "../spots/types";
import type { AlertRequest, AlertWithWindows, CreatedAlert, DeliveryLogRow } from "../alerts/service";
import { MAX_ATTEMPTS_PER_EVENT } from "../alerts/limits";

export { KEY_NAME_MAX } from "../access/accounts";
export const ACCOUNTS_PAGE_SIZE = 50;
/** Failed sign-ins allowed per e-mail and per client address in a quarter of an hour. */
export const SIGN_IN_RULE = { limit: 10, windowMs: 15 * 60_000 };
/** The longest spot search the picture form sends (GET /v1/spots?q= takes 200 characters). */
const SPOT_QUERY_MAX = 200;
/** How long a new alert's secret waits, sealed in a cookie, for the page the creation redirects to. */
export const CREATED_ALERT_REVEAL_MS = 10 * 60_000;

export interface ConsoleKey extends KeyView {
  /** Last UTC day the key was counted on, or null. */
  lastUsed: string | null;
  today: number;
}

export interface Overview {
  account: AccountView;
  attributionRequired: boolean;
  keys: ConsoleKey[];
  todayTotal: number;
}

export interface UsageTable {
  /** Endpoints with at least one request in the period, in a stable order (the spec's five first). */
  endpoints: string[];
  days: UsageDay[];
  total: number;
}

/** A spot as the picture form lists it. */
export interface SpotChoice {
  id: string;
  name: string;
  region: string | null;
  country: string;
}

/**
 * The form's spot picker: the spots ticked so far and, after a search, the spots whose name matches (the spot
 * search of GET /v1/spots, through the console service), or why the search found none.
 */
export interface SpotPicker {
  chosen: SpotChoice[];
  query: string;
  found: SpotChoice[] | null;
  problem?: string;
}

/** How many alerts the account has (those of its active keys, as the plan counts them) of how many it may. */
export interface AlertAllowance {
  count: number;
  max: number;
}

export type SignInResult =
  | { token: string; accountId: number; device: string }
  | { problem: "invalid" }
  | { problem: "throttled"; retryAfterSeconds: number }
  | { problem: "busy" };

/** Who is signing in: the address the throttle counts by and the browser's device cookie, if any. */
export interface AttemptSource {
  address: string;
  deviceCookie: string | undefined;
}

/** One password check (argon2) at a time; a few more wait, the rest are refused at once (console/throttle.ts). */
const PASSWORD_CHECKS = { concurrent: 1, waiting: 16 };
const SWEEP_MS = 60_000;
const DEVICE_SECRET = "console.device_secret";

export class ConsoleService {
  /** In Redis when several servers share one (an address gets its failures once, not once per server). */
  private readonly throttle: Throttle;
  private readonly passwordChecks = new WorkQueue(PASSWORD_CHECKS.concurrent, PASSWORD_CHECKS.waiting);
  private deviceSecretValue: Promise<string> | undefined;
  private readonly store: ConsoleStore;

  constructor(private readonly app: App) {
    this.store = openConsoleStore(app.engine);
    if (app.redis) {
      this.throttle = new SharedSignInThrottle(app.redis, SIGN_IN_RULE, DEFAULT_PREFIX);
    } else {
      const local = new SignInThrottle(SIGN_IN_RULE);
      setInterval(() => local.sweep(this.app.clock.now()), SWEEP_MS).unref();
      this.throttle = local;
    }
  }

  /** The throttle's verdict, or null when it cannot count (Redis away): the attempt is then not judged at all. */
  private async admitAttempt(attempt: AttemptFrom): Promise<Admission | null> {
    try {
      return await this.throttle.admit(attempt, this.app.clock.now());
    } catch (err) {
      if (!isOutage(err)) throw err;
      log.warn("console sign-in not judged: the throttle's counters do not answer", { error: String(err) });
      return null;
    }
  }

  /** Settles a counted attempt; a settlement lost to an outage leaves one failure counted, which expires with its window. */
  private async settle(reservation: Reservation, outcome: "succeeded" | "withdrawn"): Promise<void> {
    try {
      await this.throttle[outcome](reservation);
    } catch (err) {
      if (!isOutage(err)) throw err;
      log.warn("console sign-in attempt not settled: the throttle's counters do not answer", { error: String(err) });
    }
  }

  private deviceSecret(): Promise<string> {
    return (this.deviceSecretValue ??= this.store.valueOnce(DEVICE_SECRET, randomToken).catch((err: unknown) => {
      this.deviceSecretValue = undefined;
      throw err;
    }));
  }

  /** The live session of a cookie token, or null (unknown, expired, account disabled). */
  session(token: string): Promise<Session | null> {
    return findSession(this.store, this.app.clock, token);
  }

  /** A new session of the account; its cookie token. */
  startSession(accountId: number): Promise<string> {
    return startSession(this.store, this.app.clock, accountId);
  }

  endSession(tokenHash: string): Promise<void> {
    return this.store.endSession(tokenHash);
  }

  /** What a presented one-time link is worth right now. */
  linkState(token: string): Promise<LinkState> {
    return inspectLink(this.store, this.app.clock, token);
  }

  /** Sets the password through a link (see invitations.ts): the account id, or the link's or the password's problem. */
  redeemLink(token: string, password: string): Promise<{ accountId: number } | { problem: string }> {
    return redeemLink(this.store, this.app.clock, token, password);
  }

  /**
   * Unknown e-mail, no password yet, disabled account and wrong password all answer "invalid" after the same
   * argon2 work. The attempt is counted before that work and refused when throttled; when too many checks are
   * already waiting it is refused as "busy" and not counted.
   */
  async signIn(email: string, password: string, source: AttemptSource): Promise<SignInResult> {
    const emailKey = email.trim().toLowerCase();
    const secret = await this.deviceSecret();
    const device = deviceOf(secret, emailKey, source.deviceCookie);
    const admission = await this.admitAttempt({ email: emailKey, address: source.address, device });
    if (admission === null) return { problem: "busy" };
    if (!admission.admitted) return { problem: "throttled", retryAfterSeconds: admission.retryAfterSeconds };
    const row = await credentialsOf(this.app.stores.access, emailKey);
    const ok = await this.passwordChecks.run(() => verifyPassword(password, row?.passwordHash ?? null));
    if (ok === null) {
      await this.settle(admission.reservation, "withdrawn");
      return { problem: "busy" };
    }
    if (!ok || !row || row.disabled) {
      log.info("console sign-in refused", { address: source.address });
      return { problem: "invalid" };
    }
    await this.settle(admission.reservation, "succeeded");
    log.info("console sign-in", { account: row.id });
    return { token: await this.startSession(row.id), accountId: row.id, device: deviceCookie(secret, emailKey) };
  }

  findAccount(email: string): Promise<AccountView | null> {
    return findAccount(this.app.stores.access, email);
  }

  /**
   * Changes the password after checking the current one; every session of the account and every outstanding link
   * end and a new session starts for the caller. The check is throttled and counted like a sign-in.
   */
  async changePassword(accountId: number, current: string, next: string, source: AttemptSource): Promise<{ token: string } | { problem: string }> {
    const account = await this.account(accountId);
    const weak = passwordProblem(next);
    if (weak) return { problem: weak };
    const device = deviceOf(await this.deviceSecret(), account.email, source.deviceCookie);
    const admission = await this.admitAttempt({ email: account.email, address: source.address, device });
    if (admission === null) return { problem: "The server is busy. Try again in a few seconds." };
    if (!admission.admitted) return { problem: "Too many failed attempts. Try again later." };
    const hash = await this.passwordChecks.run(async () =>
      (await verifyPassword(current, (await credentialsOf(this.app.stores.access, account.email))?.passwordHash ?? null)) ? hashPassword(next) : false,
    );
    if (hash === null) {
      await this.settle(admission.reservation, "withdrawn");
      return { problem: "The server is busy. Try again in a few seconds." };
    }
    if (hash === false) return { problem: "The current password is wrong." };
    await this.settle(admission.reservation, "succeeded");
    await setPassword(this.store, this.app.clock, accountId, hash);
    log.info("console password changed", { account: accountId });
    return { token: await this.startSession(accountId) };
  }

  async account(accountId: number): Promise<AccountView> {
    const account = await accountById(this.app.stores.access, accountId);
    if (!account) throw new UserError("This account no longer exists.");
    return account;
  }

  async keys(accountId: number): Promise<ConsoleKey[]> {
    const account = await this.account(accountId);
    await this.app.meter.flush();
    const keys = await listKeys(this.app.stores.access, account.email);
    const ids = keys.map((k) => k.id);
    const lastUsed = await this.app.stores.access.lastUsedDays(ids);
    const today = await this.app.stores.access.dayTotalsByKey(ids, utcDay(this.app.clock.now()));
    return keys.map((k) => ({ ...k, lastUsed: lastUsed.get(k.id) ?? null, today: today.get(k.id) ?? 0 }));
  }

  /** The account's keys without usage figures (the usage page's key choice). */
  async keyList(accountId: number): Promise<KeyView[]> {
    return listKeys(this.app.stores.access, (await this.account(accountId)).email);
  }

  async overview(accountId: number): Promise<Overview> {
    const account = await this.account(accountId);
    const keys = await this.keys(accountId);
    return {
      account,
      attributionRequired: PLAN_DEFAULTS[account.plan].attributionRequired,
      keys,
      todayTotal: keys.reduce((n, k) => n + k.today, 0),
    };
  }

  /** Creates a key for the account; the full key is in the result and nowhere else, ever. */
  async createKey(accountId: number, name: string): Promise<{ key: string; view: KeyView }> {
    const account = await this.account(accountId);
    const { key, ...view } = await createKey(this.app.stores.access, this.app.clock, account.email, name);
    await this.app.keys.reload();
    log.info("console key created", { account: account.id, key: view.id });
    return { key, view };
  }

  /** The account's key with this id, or null: another account's key is as absent as an unknown one. */
  async ownKey(accountId: number, keyId: string): Promise<KeyView | null> {
    return (await this.keyList(accountId)).find((k) => k.id === keyId) ?? null;
  }

  async revokeOwnKey(accountId: number, keyId: string): Promise<KeyView | null> {
    const key = await this.ownKey(accountId, keyId);
    if (!key || key.revokedAt !== null) return null;
    return this.revokeAnyKey(keyId, accountId);
  }

  /** The account's forecast pictures (embeds), revoked ones too, oldest first. */
  async embeds(accountId: number): Promise<EmbedView[]> {
    return this.app.embeds.list((await this.account(accountId)).email);
  }

  /** A forecast picture for one of the account's keys; the embed service holds the rules (UserError on a mistake). */
  async createEmbed(accountId: number, keyId: string, request: EmbedRequest): Promise<EmbedView> {
    if (request.spots.length === 0) throw new UserError(`Choose 1 to ${MAX_EMBED_SPOTS} spots: find them by name and tick them, or type their ids.`);
    const embed = await this.app.embeds.createForAccount(accountId, keyId, request);
    log.info("console embed created", { account: accountId, key: keyId, embed: embed.id });
    return embed;
  }

  /**
   * The picture form's spot picker: the spots ticked so far (unknown ids dropped), and for a search the best 10
   * matches of the spot search (the one of GET /v1/spots?q=) not ticked already.
   */
  spotPicker(chosen: readonly string[], query: string | null): SpotPicker {
    const choice = (s: Spot): SpotChoice => ({ id: s.id, name: s.name, region: s.region, country: s.country });
    const ticked = [...new Set(chosen)].flatMap((id) => {
      const spot = this.app.spots.find(id);
      return spot ? [choice(spot)] : [];
    });
    if (query === null) return { chosen: ticked, query: "", found: null };
    const q = query.trim().slice(0, SPOT_QUERY_MAX);
    if ([...q].length < 2) return { chosen: ticked, query: q, found: [], problem: "Type at least 2 letters of the spot's name, town or region." };
    return { chosen: ticked, query: q, found: this.app.spots.search({ q, limit: 10 }).filter((s) => !ticked.some((t) => t.id === s.id)).map(choice) };
  }

  /** The account's active embed with this id, or null (another account's is as absent as an unknown one). */
  async ownEmbed(accountId: number, embedId: string): Promise<EmbedView | null> {
    return (await this.embeds(accountId)).find((e) => e.id === embedId && e.revokedAt === null) ?? null;
  }

  async revokeOwnEmbed(accountId: number, embedId: string): Promise<EmbedView | null> {
    const embed = await this.app.embeds.revokeForAccount(accountId, embedId);
    if (embed) log.info("console embed revoked", { account: accountId, embed: embedId });
    return embed;
  }

  /** The account's alerts (of revoked keys too), oldest first, with their next windows; the alerts service holds the rules. */
  async alerts(accountId: number): Promise<AlertWithWindows[]> {
    return this.app.alerts.list((await this.account(accountId)).email);
  }

  /** Alerts in use and allowed: the plan counts every alert of the account, of revoked keys too. */
  async alertAllowance(accountId: number, alerts: readonly AlertWithWindows[]): Promise<AlertAllowance> {
    return { count: alerts.length, max: PLAN_DEFAULTS[(await this.account(accountId)).plan].maxAlerts };
  }

  /**
   * An alert for one of the account's active keys; its secret and calendar URL are in the result and nowhere else.
   * A spot nobody asked for has no forecast yet: it is fetched now (the `requested` scope's on-demand fetch, waiting
   * as a first request does) and the new alert is evaluated at once, so its windows show and its first events go
   * out now rather than at the next scheduled refresh.
   */
  async createAlert(accountId: number, keyId: string, request: AlertRequest): Promise<CreatedAlert> {
    const alert = await this.app.alerts.createForAccount(accountId, keyId, request);
    log.info("console alert created", { account: accountId, key: keyId, alert: alert.id });
    try {
      await this.app.demand.ready([alert.spot.id]);
      await this.app.alerts.evaluateNew(alert);
    } catch (err) {
      log.warn("a new alert could not be evaluated at once; the next refresh evaluates it", { alert: alert.id, error: String(err) });
    }
    return alert;
  }

  /** A new alert's secret and feed address sealed for this session, for the page the creation redirects to (secrets.ts). */
  async sealCreatedAlert(sessionTokenHash: string, created: CreatedAlert): Promise<string> {
    const shown = JSON.stringify({ id: created.id, secret: created.secret, calendarUrl: created.calendarUrl });
    return sealForSession(await this.deviceSecret(), sessionTokenHash, shown, this.app.clock.now() + CREATED_ALERT_REVEAL_MS);
  }

  /** The new alert a sealed cookie names, with its secret and feed address, when it is this session's and one of these alerts. */
  async openCreatedAlert(sessionTokenHash: string, sealed: string, alerts: readonly AlertWithWindows[]): Promise<CreatedAlert | null> {
    const opened = openForSession(await this.deviceSecret(), sessionTokenHash, sealed, this.app.clock.now());
    if (opened === null) return null;
    const { id, secret, calendarUrl } = JSON.parse(opened) as { id: string; secret: string | null; calendarUrl: string };
    const alert = alerts.find((a) => a.id === id);
    return alert ? { ...alert, secret, calendarUrl } : null;
  }

  /** The account's alert with this id, with its next windows, or null (another account's is as absent as an unknown one). */
  async ownAlert(accountId: number, alertId: string): Promise<AlertWithWindows | null> {
    const alert = await this.app.alerts.alertOfAccount(accountId, alertId);
    return alert && (await this.app.alerts.withNextWindows([alert]))[0]!;
  }

  async deleteOwnAlert(accountId: number, alertId: string): Promise<boolean> {
    const deleted = await this.app.alerts.deleteForAccount(accountId, alertId);
    if (deleted) log.info("console alert deleted", { account: accountId, alert: alertId });
    return deleted !== null;
  }

  /** Queues a test event of the account's alert; false when it is not the account's. */
  testOwnAlert(accountId: number, alertId: string): Promise<boolean> {
    return this.queueForOwnAlert(accountId, alertId, (id) => this.app.alerts.test(id), "console alert test queued");
  }

  /** Sends the account's e-mail alert's confirmation again; false when it is not the account's. */
  resendConfirmationOwn(accountId: number, alertId: string): Promise<boolean> {
    return this.queueForOwnAlert(accountId, alertId, (id) => this.app.alerts.resendConfirmation(id), "console alert confirmation sent again");
  }

  /** Queues something by hand for the account's alert (the service's limits apply); false when it is not the account's. */
  private async queueForOwnAlert(accountId: number, alertId: string, queue: (id: string) => Promise<unknown>, logged: string): Promise<boolean> {
    const alert = await this.app.alerts.alertOfAccount(accountId, alertId);
    if (!alert) return false;
    await queue(alert.id);
    log.info(logged, { account: accountId, alert: alert.id });
    return true;
  }

  /** The delivery log of the account's alert, newest first; null when it is not the account's. */
  async ownAlertDeliveries(accountId: number, alertId: string): Promise<DeliveryLogRow[] | null> {
    const alert = await this.app.alerts.alertOfAccount(accountId, alertId);
    return alert && this.app.alerts.deliveryLog(alert.id);
  }

  /** "Send again" of a failed delivery of the account's alert; false when the alert is not the account's. */
  async sendAgainOwn(accountId: number, alertId: string, deliveryId: string): Promise<boolean> {
    const deliveries = await this.ownAlertDeliveries(accountId, alertId);
    if (!deliveries) return false;
    if (!deliveries.some((d) => d.id === deliveryId && d.canSendAgain)) throw new UserError(`Only a failed delivery that is not being retried already, of an alert that is on, can be sent again, up to ${MAX_ATTEMPTS_PER_EVENT} attempts in all.`);
    await this.app.alerts.sendAgain(alertId, deliveryId);
    log.info("console alert delivery sent again", { account: accountId, alert: alertId, delivery: deliveryId });
    return true;
  }

  /**
   * Daily totals per endpoint over the last 30 UTC days, for one of the account's keys or all of them: the
   * counters GET /v1/usage reports (meter.report), read after a flush and summed over the keys in one query.
   */
  async usage(accountId: number, keyId: string | null): Promise<UsageTable> {
    const account = await this.account(accountId);
    await this.app.meter.flush();
    const keyIds = (await listKeys(this.app.stores.access, account.email))
      .filter((k) => keyId === null || k.id === keyId)
      .map((k) => k.id);
    const now = this.app.clock.now();
    const days: UsageDay[] = [];
    const byDate = new Map<string, UsageDay>();
    for (let i = 29; i >= 0; i--) {
      const day: UsageDay = { date: utcDay(now - i * DAY_MS), total: 0, byEndpoint: {} };
      days.push(day);
      byDate.set(day.date, day);
    }
    const used = new Set<string>();
    for (const { day, endpoint, count: n } of await this.app.stores.access.countsByDay(keyIds, days[0]!.date)) {
      const target = byDate.get(day);
      if (!target || n === 0) continue;
      target.total += n;
      target.byEndpoint[endpoint] = (target.byEndpoint[endpoint] ?? 0) + n;
      used.add(endpoint);
    }
    const known = USAGE_KEYS as readonly string[];
    const endpoints = [...USAGE_KEYS.filter((e) => used.has(e)), ...[...used].filter((e) => !known.includes(e)).sort()];
    return { endpoints, days, total: days.reduce((n, d) => n + d.total, 0) };
  }

  // ── operator ──────────────────────────────────────────────────────────────────────────────────────

  /** A page of accounts; a page past the last (any number) shows the last. */
  async accountsPage(query: string, requestedPage: number) {
    await this.app.meter.flush();
    const read = (page: number) => listAccountsPage(this.app.stores.access, { query, offset: (page - 1) * ACCOUNTS_PAGE_SIZE, limit: ACCOUNTS_PAGE_SIZE });
    const asked = Math.max(1, Math.floor(requestedPage) || 1);
    let { accounts, total } = await read(asked);
    const pages = Math.max(1, Math.ceil(total / ACCOUNTS_PAGE_SIZE));
    const page = Math.min(asked, pages);
    // Past the last page (rare: an edited URL), the last page is read again.
    if (page !== asked) ({ accounts, total } = await read(page));
    const today = await this.app.stores.access.dayTotalsByAccount(accounts.map((a) => a.id), utcDay(this.app.clock.now()));
    return { rows: accounts.map((account) => ({ account, today: today.get(account.id) ?? 0 })), total, pages, page };
  }

  async invite(request: InviteRequest): Promise<{ invitation: Invitation; mailProblem: string | null }> {
    const invitation = await issueInvitation(this.store, this.app.clock, this.app.config.publicUrl, request);
    await this.app.keys.reload();
    const mailProblem = this.app.config.smtpUrl ? await mailInvitation(this.app.config, invitation) : null;
    log.info("console invitation issued", { account: invitation.account.id, emailed: this.app.config.smtpUrl ? mailProblem === null : undefined });
    return { invitation, mailProblem };
  }

  async accountExists(accountId: number): Promise<boolean> {
    return (await accountById(this.app.stores.access, accountId)) !== null;
  }

  /** Any account's key by id (operators). */
  anyKey(keyId: string): Promise<(KeyView & { accountId: number }) | null> {
    return keyById(this.app.stores.access, keyId);
  }

  async customLimits(accountId: number) {
    return (await customLimitsOf(this.app.stores.access, accountId)) ?? { dailyLimit: null, minuteLimit: null, maxKeys: null };
  }

  async setPlan(accountId: number, plan: string, limits: CustomLimits): Promise<AccountView> {
    const account = await setAccountPlan(this.app.stores.access, (await this.account(accountId)).email, plan, limits);
    await this.app.keys.reload();
    return account;
  }

  async setDisabled(accountId: number, disabled: boolean): Promise<AccountView> {
    const account = await setAccountDisabled(this.app.stores.access, (await this.account(accountId)).email, disabled);
    await this.app.keys.reload();
    log.info(disabled ? "console account disabled" : "console account enabled", { account: accountId });
    return account;
  }

  /** Revokes a key of any account (operators; owners go through revokeOwnKey). Null when unknown or revoked. */
  async revokeAnyKey(keyId: string, byAccount: number): Promise<KeyView | null> {
    try {
      const key = await revokeKey(this.app.stores.access, this.app.clock, keyId);
      await this.app.keys.reload();
      log.info("console key revoked", { key: keyId, by: byAccount });
      return key;
    } catch (err) {
      if (err instanceof UserError) return null;
      throw err;
    }
  }
}
