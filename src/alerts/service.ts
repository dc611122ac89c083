/**
 * Condition alerts (docs/alerts.md): "tell me when it's on" at one spot, for one of the owner's keys. This service
 * holds every rule about them — what a valid alert is, whose it is, the plan's number — for the CLI, the console
 * and MCP alike, and evaluates them after a refresh: each spot's forecast is read once, its windows found per alert
 * (condition.ts), and each new window queued once for delivery (the outbox in `alert_deliveries`; the delivery room
 * sends it).
 */
import { randomBytes } from "node:crypto";
import { HOUR_MS, utcHourStart, type Clock } from "../core/clock";
import { Refusal, RuleError, UserError } from "../core/errors";
import { log } from "../core/log";
import { checkPrintableName, isEmailAddress, keyById, listKeys, MAX_EMAIL_LENGTH } from "../access/accounts";
// A calendar feed's and an unsubscribe link's token: stored, as keys are, only as its SHA-256.
import { hashKey, randomToken } from "../access/keys";
import { PLAN_DEFAULTS } from "../access/plans";
import type { AccountStore } from "../access/store";
import { isoUtc } from "../core/clock";
import type { ForecastService } from "../forecast/service";
import type { Spot } from "../spots/types";
import { findWindows, fireOnce, parseCondition, type AlertCondition, type AlertWindow, type BestHour, type ConditionInput, type Span } from "./condition";
import type { AlertRecord, AlertStore, DeliveryKind, DeliveryOutcome, DeliveryPurpose, DeliveryRecord, LedgerSpan, SentTimes } from "./store";
import { buildAlertEvent, confirmationBody, eventBody, parseEventBody, type AlertEvent, type AlertEventType, type EventWindow } from "./delivery/event";
import { windowSpan } from "./delivery/wording";
import { CONFIRMATION_LIMITS, CONFIRMATION_LINK_MS, DELIVERY_LOG_MS, longestWindow, MAX_ATTEMPTS_PER_EVENT, nextAllowedAt, TEST_LIMITS, type Limit } from "./limits";
import { newMessageId, newWebhookSecret } from "./delivery/ids";

export type { AlertRecord, DeliveryRecord } from "./store";

/** The longest alert name, in characters. */
export const ALERT_NAME_MAX = 64;
/** The longest webhook URL, in characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Delivery log rows shown per alert. */
export const DELIVERY_LOG_LIMIT = 50;

const ALERT_ID = /^alert_[0-9a-f]{16}$/;

export interface AlertRequest {
  spotId: string;
  /** Exactly one of `webhook` and `email`. */
  webhook?: string;
  email?: string;
  name?: string;
  condition: ConditionInput;
}

/** An alert as the CLI, the console and MCP show it (never its secret nor its tokens). */
export interface AlertView {
  id: string;
  keyId: string;
  /** `timezone`: the spot's, whose local time every window is shown in. */
  spot: { id: string; name: string; timezone: string };
  name: string;
  condition: AlertCondition;
  delivery: DeliveryKind;
  target: string;
  enabled: boolean;
  /** An e-mail alert whose address has not confirmed yet: nothing but the confirmation e-mail is sent to it. */
  waitingForConfirmation: boolean;
  disabledReason: string | null;
  disabledAt: string | null;
  createdAt: string;
}

/** What the key itself may see of its alerts (MCP): never the target, whose URL may hold the receiver's own secret. */
export interface KeyAlert {
  id: string;
  name: string;
  spot: { id: string; name: string; timezone: string };
  condition: AlertCondition;
  delivery: DeliveryKind;
  enabled: boolean;
  waitingForConfirmation: boolean;
  nextWindows: AlertWindow[] | null;
}

/** What creation shows once: the webhook's signing secret and the calendar feed's secret URL. */
export interface CreatedAlert extends AlertView {
  /** `whsec_…` for a webhook; null for e-mail. */
  secret: string | null;
  calendarUrl: string;
}

export interface AlertWithWindows extends AlertView {
  /** The windows in the spot's current forecast from now on; null when the spot has no forecast yet. */
  nextWindows: AlertWindow[] | null;
}

/** One row of an alert's delivery log, as the console and `surfcast alerts deliveries` show it. */
export interface DeliveryLogRow {
  id: string;
  eventId: string;
  event: DeliveryPurpose;
  attempt: number;
  /** When it was attempted, or when it is due while pending; ISO UTC. */
  at: string;
  outcome: DeliveryOutcome;
  /**
   * The event's window, ISO UTC and in the spot's own time ("Thu 27 Nov 06:00–10:00", `timeZone`): a new alert's
   * first evaluation sends several events at once, and this is what tells them apart. Null for a confirmation
   * e-mail, which has no window.
   */
  window: { start: string; end: string; local: string; timeZone: string } | null;
  statusCode: number | null;
  error: string | null;
  /**
   * Only a failed attempt that is its event's latest (its retries have ended; while one is pending there is nothing
   * to add), of an alert that is on, is worth another: a refused target is refused again, a gone one switched it off.
   * An event has MAX_ATTEMPTS_PER_EVENT attempts in all.
   */
  canSendAgain: boolean;
}

/** What a confirmation link came to: the alert confirmed now or before, or the link's time is over. */
export interface Confirmation {
  alert: AlertView;
  outcome: "confirmed" | "expired";
}

export interface EvaluationSummary {
  /** Alerts evaluated (enabled, of active keys, on spots with a forecast). */
  alerts: number;
  /** Deliveries queued: one per new window. */
  queued: number;
  /** Spots whose forecast was read. */
  spots: number;
  durationMs: number;
}

/** `alert_` and 16 random hex digits. */
export const newAlertId = () => "alert_" + randomBytes(8).toString("hex");
/** `dlv_` and 16 random hex digits. */
export const newDeliveryId = () => "dlv_" + randomBytes(8).toString("hex");

export const isAlertId = (id: string) => ALERT_ID.test(id);

/** An alert's state in a listing: on, waiting for its address's confirmation, or off (and why). */
export function alertState(a: { enabled: boolean; waitingForConfirmation: boolean; disabledReason?: string | null }): string {
  if (!a.enabled) return a.disabledReason ? `off (${a.disabledReason})` : "off";
  return a.waitingForConfirmation ? "waiting for confirmation" : "on";
}

const spanOf = (l: LedgerSpan): Span => ({ start: isoUtc(l.start), end: isoUtc(l.end) });
const ledgerOf = (s: Span): LedgerSpan => ({ start: Date.parse(s.start), end: Date.parse(s.end) });
const sameLedger = (a: readonly LedgerSpan[], b: readonly LedgerSpan[]) => a.length === b.length && a.every((w, i) => w.start === b[i]!.start && w.end === b[i]!.end);

/** Items grouped by spot id, in the order each spot first appears. */
function bySpot<T>(items: readonly [string, T][]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const [spotId, item] of items) {
    const group = groups.get(spotId);
    if (group) group.push(item);
    else groups.set(spotId, [item]);
  }
  return groups;
}

export class AlertService {
  /**
   * `checkTarget` refuses a webhook URL whose address is not allowed (loopback, private, link-local, metadata,
   * unless the operator's SURFCAST_WEBHOOK_ALLOWED_NETWORKS lists it), throwing a UserError that says why.
   */
  constructor(
    private readonly stores: { alerts: AlertStore; access: AccountStore },
    private readonly forecasts: Pick<ForecastService, "storedDocument">,
    private readonly clock: Clock,
    private readonly config: { readonly publicUrl: string },
    private readonly spots: { find(id: string): Spot | undefined },
    private readonly checkTarget: (url: string) => Promise<void>,
  ) {}

  /** The calendar feed's address for a token (the token itself is stored only as its hash). */
  calendarUrlOf(token: string): string {
    return `${this.base()}/alerts/calendar/${token}.ics`;
  }

  /** Creates an alert for a key (CLI: any key; the console goes through `createForAccount`). */
  async create(keyId: string, request: AlertRequest): Promise<CreatedAlert> {
    const key = await keyById(this.stores.access, keyId);
    if (!key) throw new UserError(`no key with id ${keyId} ("surfcast keys list EMAIL" shows the ids)`);
    if (key.revokedAt !== null) throw new UserError(`key ${keyId} is revoked; an alert needs an active key`);
    const spot = this.spots.find(request.spotId.trim());
    if (!spot) throw new Refusal({ code: "no_such_spot", spotId: request.spotId });
    const condition = parseCondition(request.condition);
    if (request.name !== undefined) checkPrintableName(request.name, "alertName");
    const name = (request.name ?? spot.name).trim();
    if (name.length < 1 || [...name].length > ALERT_NAME_MAX) throw new RuleError("out_of_range", `must have 1 to ${ALERT_NAME_MAX} characters`, "alertName");
    const { delivery, target } = await this.target(request);
    const secret = delivery === "webhook" ? newWebhookSecret() : null;
    const calendarToken = randomToken();
    const record: AlertRecord = {
      id: newAlertId(),
      keyId: key.id,
      spotId: spot.id,
      name,
      condition,
      delivery,
      target,
      webhookSecret: secret,
      calendarTokenHash: hashKey(calendarToken),
      disabledReason: null,
      disabledAt: null,
      createdAt: this.clock.now(),
      // A webhook's owner chose its URL; an e-mail address must agree before it receives anything but the confirmation.
      confirmedAt: delivery === "webhook" ? this.clock.now() : null,
      confirmTokenHash: null,
      confirmSentAt: null,
    };
    const max = PLAN_DEFAULTS[key.plan].maxAlerts;
    await this.stores.alerts.insertAlert(record, key.accountId, (count) => {
      if (count >= max) throw new Refusal({ code: "alert_limit", account: key.account, plan: key.plan, max });
    });
    if (delivery === "email") await this.stores.alerts.enqueue([this.confirmationDelivery(record, this.clock.now())]);
    return { ...this.view(record), secret, calendarUrl: this.calendarUrlOf(calendarToken) };
  }

  /** Every alert of an account's keys (of revoked keys too), oldest first, with its next windows. */
  async list(email: string): Promise<AlertWithWindows[]> {
    const keys = await listKeys(this.stores.access, email);
    return this.withNextWindows(await this.stores.alerts.alertsOfKeys(keys.map((k) => k.id)));
  }

  /** The key's alerts with their next windows, as the key itself may see them (MCP). */
  async listForKey(keyId: string): Promise<KeyAlert[]> {
    const alerts = await this.withNextWindows(await this.stores.alerts.alertsOfKeys([keyId]));
    return alerts.map((a) => ({ id: a.id, name: a.name, spot: a.spot, condition: a.condition, delivery: a.delivery, enabled: a.enabled, waitingForConfirmation: a.waitingForConfirmation, nextWindows: a.nextWindows }));
  }

  /** Alerts with the windows their spot's current forecast holds from now on; each spot's forecast read once. */
  async withNextWindows(alerts: readonly AlertRecord[]): Promise<AlertWithWindows[]> {
    const now = this.clock.now();
    const windows = new Map<string, AlertWindow[] | null>();
    for (const [spotId, group] of bySpot(alerts.map((a) => [a.spotId, a]))) {
      const forecast = await this.forecasts.storedDocument(spotId);
      for (const a of group) windows.set(a.id, forecast && findWindows(a.condition, forecast.hours, forecast.daily, now));
    }
    return alerts.map((a) => ({ ...this.view(a), nextWindows: windows.get(a.id) ?? null }));
  }

  async nextWindows(alert: AlertRecord): Promise<AlertWindow[] | null> {
    return (await this.withNextWindows([alert]))[0]!.nextWindows;
  }

  async delete(id: string): Promise<AlertView> {
    const alert = await this.found(id);
    if (!(await this.stores.alerts.deleteAlert(alert.id))) throw this.unknown(id);
    return this.view(alert);
  }

  /**
   * Queues a test event for delivery now (type `alert.test`): the alert's next window, or the current hour without
   * figures. Only for an alert that would send (on, its key active, its account enabled, its address confirmed),
   * and within TEST_LIMITS.
   */
  async test(id: string): Promise<DeliveryRecord> {
    const alert = await this.found(id);
    const accountId = await this.sendingAccount(alert);
    if (alert.confirmedAt === null) throw new Refusal({ code: "awaiting_confirmation", alertId: alert.id, target: alert.target });
    const now = this.clock.now();
    const next = (await this.nextWindows(alert))?.[0];
    const hour = utcHourStart(now);
    const window = next ?? { start: isoUtc(hour), end: isoUtc(hour + HOUR_MS), best: { time: isoUtc(hour), waveHeight: null, wavePeriod: null, windSpeed: null, windDirectionType: null, rating: null } };
    const delivery = this.pending(alert, "test", eventBody(this.event(alert, "alert.test", window, now)), now);
    await this.stores.alerts.enqueueLimited(delivery, accountId, now - longestWindow(TEST_LIMITS), (sent) => this.withinLimits(TEST_LIMITS, sent, delivery));
    return delivery;
  }

  /** Sends an e-mail alert's confirmation again (the last link may have expired or been lost), within CONFIRMATION_LIMITS. */
  async resendConfirmation(id: string): Promise<DeliveryRecord> {
    const alert = await this.found(id);
    const accountId = await this.sendingAccount(alert);
    if (alert.confirmedAt !== null) throw new Refusal({ code: "confirmed_already", alertId: alert.id });
    const now = this.clock.now();
    const delivery = this.confirmationDelivery(alert, now);
    await this.stores.alerts.enqueueLimited(delivery, accountId, now - longestWindow(CONFIRMATION_LIMITS), (sent) => this.withinLimits(CONFIRMATION_LIMITS, sent, delivery));
    return delivery;
  }

  /** The alert a confirmation link names, confirmed unless the link's time is over; null when the token is unknown. */
  async confirm(token: string): Promise<Confirmation | null> {
    const alert = await this.stores.alerts.alertByConfirmTokenHash(hashKey(token));
    if (!alert) return null;
    const now = this.clock.now();
    if (alert.confirmedAt === null && (alert.confirmSentAt ?? 0) + CONFIRMATION_LINK_MS < now) return { alert: this.view(alert), outcome: "expired" };
    await this.stores.alerts.confirmAlert(alert.id, now);
    // A link opened again confirms nothing new: the first confirmation's time stays.
    return { alert: this.view({ ...alert, confirmedAt: alert.confirmedAt ?? now }), outcome: "confirmed" };
  }

  /** Deletes the delivery log's rows older than DELIVERY_LOG_MS (the delivery job calls it); answers how many. */
  pruneDeliveries(): Promise<number> {
    return this.stores.alerts.pruneDeliveries(this.clock.now() - DELIVERY_LOG_MS);
  }

  /** The alert's delivery log, newest first. */
  deliveries(alertId: string, limit = DELIVERY_LOG_LIMIT): Promise<DeliveryRecord[]> {
    return this.stores.alerts.deliveriesOf(alertId, limit);
  }

  /** The alert's delivery log, newest first, each row with its event's window (an unknown id is refused). */
  async deliveryLog(id: string): Promise<DeliveryLogRow[]> {
    const alert = await this.found(id);
    const deliveries = await this.deliveries(alert.id);
    const latest = new Map<string, number>();
    for (const d of deliveries) latest.set(d.eventId, Math.max(d.attempt, latest.get(d.eventId) ?? 0));
    const windowOf = (payload: string): DeliveryLogRow["window"] => {
      const { window, spot } = parseEventBody(payload);
      return { start: window.start, end: window.end, local: windowSpan(window.start, window.end, spot.timezone), timeZone: spot.timezone };
    };
    return deliveries.map((d) => ({
      id: d.id,
      eventId: d.eventId,
      event: d.kind,
      attempt: d.attempt,
      at: new Date(d.attemptedAt ?? d.scheduledAt).toISOString(),
      outcome: d.outcome,
      window: d.kind === "confirmation" ? null : windowOf(d.payload),
      statusCode: d.statusCode,
      error: d.error,
      canSendAgain: d.outcome === "failed" && d.attempt === latest.get(d.eventId) && d.attempt < MAX_ATTEMPTS_PER_EVENT && alert.disabledReason === null,
    }));
  }

  /** "Send again": another attempt of a logged event, now, with the same event id and body. */
  async sendAgain(alertId: string, deliveryId: string): Promise<DeliveryRecord> {
    const logged = await this.stores.alerts.deliveriesOf(alertId, DELIVERY_LOG_LIMIT);
    const chosen = logged.find((d) => d.id === deliveryId);
    if (!chosen) throw new UserError(`no delivery ${deliveryId} in the log of alert ${alertId}`);
    // The event's latest attempt, so that attempt numbers keep counting up.
    const latest = logged.filter((d) => d.eventId === chosen.eventId).reduce((a, b) => (b.attempt > a.attempt ? b : a));
    const id = newDeliveryId();
    await this.stores.alerts.scheduleRetry(latest, id, this.clock.now());
    return { ...latest, id, attempt: latest.attempt + 1, scheduledAt: this.clock.now(), attemptedAt: null, statusCode: null, error: null, outcome: "pending", unsubscribeTokenHash: null };
  }

  /** The alert an e-mail's unsubscribe link names, as it is; null when the token is unknown. */
  async unsubscribeTarget(token: string): Promise<AlertView | null> {
    const alert = await this.stores.alerts.alertByUnsubscribeTokenHash(hashKey(token));
    return alert && this.view(alert);
  }

  /** The alert an e-mail's unsubscribe link names, switched off; null when the token is unknown. */
  async unsubscribe(token: string): Promise<AlertView | null> {
    const alert = await this.stores.alerts.alertByUnsubscribeTokenHash(hashKey(token));
    if (!alert) return null;
    await this.stores.alerts.disableAlert(alert.id, "unsubscribed", this.clock.now());
    return this.view((await this.stores.alerts.alertById(alert.id)) ?? alert);
  }

  /** The alert behind a calendar feed's token; null when the token is unknown (feeds.ts serves its feed). */
  calendar(token: string): Promise<AlertRecord | null> {
    return this.stores.alerts.alertByCalendarTokenHash(hashKey(token));
  }

  /** The account of an alert that may send: refuses one switched off, of a revoked key or of a disabled account. */
  private async sendingAccount(alert: AlertRecord): Promise<number> {
    const owned = await this.stores.access.keyById(alert.keyId);
    if (alert.disabledReason !== null) throw new Refusal({ code: "alert_switched_off", alertId: alert.id, reason: alert.disabledReason });
    if (!owned || owned.key.revokedAt !== null) throw new Refusal({ code: "alert_key_revoked", alertId: alert.id, keyId: alert.keyId });
    if (owned.account.disabled) throw new Refusal({ code: "sending_account_disabled", account: owned.account.email });
    return owned.account.id;
  }

  /** Refuses a delivery made by hand past its alert's or its account's limit, with the time the next is allowed. */
  private withinLimits(limits: { alert: Limit; account: Limit }, sent: SentTimes, delivery: DeliveryRecord): void {
    const now = this.clock.now();
    for (const scope of ["alert", "account"] as const) {
      const limit = limits[scope];
      const next = nextAllowedAt(sent[scope], limit, now);
      if (next === null) continue;
      const purpose = delivery.kind as Exclude<DeliveryPurpose, "window">;
      throw new Refusal({ code: "sending_limit", scope, alertId: delivery.alertId, sent: purpose, ...limit, nextAllowedAt: next, refusedAt: now });
    }
  }

  // ── the console: only the signed-in account's keys and alerts ─────────────────────────────────────

  async createForAccount(accountId: number, keyId: string, request: AlertRequest): Promise<CreatedAlert> {
    const key = await keyById(this.stores.access, keyId);
    if (!key || key.accountId !== accountId) throw new UserError("Choose one of your keys.");
    if (key.revokedAt !== null) throw new UserError("That key is revoked; choose an active key.");
    return this.create(keyId, request);
  }

  /** The account's alert with this id, or null when it is not the account's (another account's is as absent as an unknown one). */
  async alertOfAccount(accountId: number, id: string): Promise<AlertRecord | null> {
    const alert = isAlertId(id) ? await this.stores.alerts.alertById(id) : null;
    return alert && (await keyById(this.stores.access, alert.keyId))?.accountId === accountId ? alert : null;
  }

  async deleteForAccount(accountId: number, id: string): Promise<AlertView | null> {
    return (await this.alertOfAccount(accountId, id)) && this.delete(id);
  }

  // ── evaluation ─────────────────────────────────────────────────────────────────────────────────────

  /** The spots enabled alerts watch: in the `requested` refresh scope they are refreshed as if asked for. */
  watchedSpots(): Promise<string[]> {
    return this.stores.alerts.watchedSpots();
  }

  /**
   * Evaluates every enabled alert on these spots against their current forecasts (after a refresh wrote them):
   * each new window is queued once, due now (condition.ts fireOnce). An alert whose spot has no forecast is left
   * as it was, its ledger untouched, so a spot missing from one refresh does not make its windows new again.
   */
  evaluate(spotIds: readonly string[], now = this.clock.now()): Promise<EvaluationSummary> {
    return this.evaluateWhere(spotIds, now, () => true);
  }

  /**
   * A new alert evaluated at once against its spot's current forecast, instead of at the next refresh (the console
   * calls it after creation); the spot's other alerts are left to the refreshes, their forecast being the same.
   */
  evaluateNew(alert: Pick<AlertView, "id" | "spot">): Promise<EvaluationSummary> {
    return this.evaluateWhere([alert.spot.id], this.clock.now(), (a) => a.id === alert.id);
  }

  private async evaluateWhere(spotIds: readonly string[], now: number, chosen: (alert: AlertRecord) => boolean): Promise<EvaluationSummary> {
    const started = performance.now();
    const evaluated = (await this.stores.alerts.alertsToEvaluate(spotIds)).filter((e) => chosen(e.alert));
    const ledgers: { alertId: string; windows: LedgerSpan[] }[] = [];
    const deliveries: DeliveryRecord[] = [];
    let alerts = 0;
    let spots = 0;
    // Spot by spot: one forecast document in memory at a time, however many spots the refresh covered.
    for (const [spotId, group] of bySpot(evaluated.map((e) => [e.alert.spotId, e]))) {
      const forecast = await this.forecasts.storedDocument(spotId);
      if (!forecast) continue;
      spots++;
      for (const { alert, announced } of group) {
        alerts++;
        const { fire, remember } = fireOnce(announced.map(spanOf), findWindows(alert.condition, forecast.hours, forecast.daily, now));
        const windows = remember.map(ledgerOf);
        if (!sameLedger(announced, windows)) ledgers.push({ alertId: alert.id, windows });
        for (const window of fire) deliveries.push(this.delivery(alert, this.event(alert, "alert.window", window, now), now));
      }
    }
    if (ledgers.length > 0 || deliveries.length > 0) await this.stores.alerts.saveEvaluation(ledgers, deliveries);
    const summary = { alerts, queued: deliveries.length, spots, durationMs: Math.round(performance.now() - started) };
    if (alerts > 0) log.info("alerts evaluated", summary);
    return summary;
  }

  private event(alert: AlertRecord, type: AlertEventType, window: EventWindow, at: number): AlertEvent {
    const spot = this.spots.find(alert.spotId);
    return buildAlertEvent({
      type,
      at: new Date(at),
      alert,
      spot: { id: alert.spotId, name: spot?.name ?? alert.spotId, timezone: spot?.timezone ?? "UTC" },
      window,
      publicUrl: this.base(),
    });
  }

  private delivery(alert: AlertRecord, event: AlertEvent, at: number): DeliveryRecord {
    return this.pending(alert, "window", eventBody(event), at);
  }

  private confirmationDelivery(alert: AlertRecord, at: number): DeliveryRecord {
    return this.pending(alert, "confirmation", confirmationBody(alert, { id: alert.spotId, name: this.spots.find(alert.spotId)?.name ?? alert.spotId }), at);
  }

  private pending(alert: AlertRecord, kind: DeliveryPurpose, payload: string, at: number): DeliveryRecord {
    return { id: newDeliveryId(), alertId: alert.id, eventId: newMessageId(), attempt: 1, scheduledAt: at, attemptedAt: null, statusCode: null, error: null, outcome: "pending", kind, payload, unsubscribeTokenHash: null };
  }

  /** Where the alert is delivered: exactly one webhook URL (its address checked) or one e-mail address. */
  private async target(request: AlertRequest): Promise<{ delivery: DeliveryKind; target: string }> {
    const { webhook, email } = request;
    if ((webhook === undefined) === (email === undefined)) throw new Refusal({ code: "one_target" });
    if (email !== undefined) {
      const address = email.trim();
      if (address.length > MAX_EMAIL_LENGTH || !isEmailAddress(address)) throw new Refusal({ code: "not_an_email", address });
      return { delivery: "email", target: address };
    }
    const url = webhook!.trim();
    let parsed: URL | null = null;
    try {
      parsed = url.length <= MAX_WEBHOOK_URL_LENGTH ? new URL(url) : null;
    } catch {
      parsed = null;
    }
    if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
      throw new Refusal({ code: "not_a_webhook_url", url, maxLength: MAX_WEBHOOK_URL_LENGTH });
    }
    try {
      await this.checkTarget(parsed.href);
    } catch (err) {
      if (err instanceof UserError) throw new Refusal({ code: "webhook_refused", reason: err.message });
      throw new UserError(`the webhook's address ${parsed.host} could not be checked: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { delivery: "webhook", target: parsed.href };
  }

  private async found(id: string): Promise<AlertRecord> {
    const alert = isAlertId(id) ? await this.stores.alerts.alertById(id) : null;
    if (!alert) throw this.unknown(id);
    return alert;
  }

  private unknown(id: string): UserError {
    return new UserError(`no alert with id ${id} ("surfcast alerts list EMAIL" shows the ids)`);
  }

  private base(): string {
    return this.config.publicUrl.replace(/\/+$/, "");
  }

  private view(a: AlertRecord): AlertView {
    const spot = this.spots.find(a.spotId);
    return {
      id: a.id,
      keyId: a.keyId,
      spot: { id: a.spotId, name: spot?.name ?? a.spotId, timezone: spot?.timezone ?? "UTC" },
      name: a.name,
      condition: a.condition,
      delivery: a.delivery,
      target: a.target,
      enabled: a.disabledReason === null,
      waitingForConfirmation: a.confirmedAt === null,
      disabledReason: a.disabledReason,
      disabledAt: a.disabledAt === null ? null : new Date(a.disabledAt).toISOString(),
      createdAt: new Date(a.createdAt).toISOString(),
    };
  }
}
