/**
 * What the alerts room keeps in the database (db/schema.ts `alerts`, `alert_windows`, `alert_deliveries`) as small
 * functions that answer with promises, so that the PostgreSQL store (postgres-store.ts) sits beside the SQLite one
 * (sqlite-store.ts). The rules stay in service.ts and condition.ts; the plan's cap is a `check` the insert runs in
 * its own transaction. Times are epoch milliseconds.
 */
import type { AlertCondition } from "./condition";

export type DeliveryKind = "webhook" | "email";
/** `gone`: the receiver answered 410 (the alert is switched off); `refused`: the target is not allowed, or e-mail is not set up. */
export type DeliveryOutcome = "pending" | "delivered" | "failed" | "gone" | "refused";

/** One alert as stored (its condition parsed). */
export interface AlertRecord {
  id: string;
  keyId: string;
  spotId: string;
  name: string;
  condition: AlertCondition;
  delivery: DeliveryKind;
  /** The webhook's URL or the e-mail address. */
  target: string;
  /** `whsec_…`, kept in the clear because signing needs it; never logged. Null for e-mail. */
  webhookSecret: string | null;
  calendarTokenHash: string;
  /** Null while the alert is on. */
  disabledReason: string | null;
  disabledAt: number | null;
  createdAt: number;
}

/** An alert's row: its condition as JSON. */
export interface AlertRow extends Omit<AlertRecord, "condition"> {
  condition: string;
}

/** A window of the fire-once ledger: start and exclusive end. */
export interface LedgerSpan {
  start: number;
  end: number;
}

/** One delivery attempt, or the pending one of an event. */
export interface DeliveryRecord {
  id: string;
  alertId: string;
  /** The webhook-id: the same over an event's retries. */
  eventId: string;
  attempt: number;
  scheduledAt: number;
  attemptedAt: number | null;
  statusCode: number | null;
  error: string | null;
  outcome: DeliveryOutcome;
  /** The event's JSON body. */
  payload: string;
  /** SHA-256 of the unsubscribe token an e-mail attempt carried, hex; null otherwise. */
  unsubscribeTokenHash: string | null;
}

/** What an attempt came to. */
export interface AttemptResult {
  attemptedAt: number;
  statusCode: number | null;
  /** What went wrong, in a few words (never a secret). */
  error: string | null;
  outcome: Exclude<DeliveryOutcome, "pending">;
  /** SHA-256 of the unsubscribe token an e-mail carried (made when it is sent, so none rests in the clear). */
  unsubscribeTokenHash?: string | null;
}

/** An enabled alert of an active key, with the windows of its last evaluation. */
export interface EvaluatedAlert {
  alert: AlertRecord;
  announced: LedgerSpan[];
}

export interface DueDelivery {
  delivery: DeliveryRecord;
  alert: AlertRecord;
  firstAttemptAt: number | null;
}

export interface AlertStore {
  /**
   * Inserts the alert once `check` has seen how many alerts the account's active keys have, in one transaction, so
   * that two processes creating at once cannot pass the plan's cap together.
   */
  insertAlert(record: AlertRecord, accountId: number, check: (count: number) => void): Promise<void>;
  alertById(id: string): Promise<AlertRecord | null>;
  /** The alerts of these keys, oldest first. */
  alertsOfKeys(keyIds: readonly string[]): Promise<AlertRecord[]>;
  /** Deletes the alert with its ledger and delivery log; false when it was unknown. */
  deleteAlert(id: string): Promise<boolean>;
  /** Marks the alert off with a reason; false when it was unknown or already off. */
  disableAlert(id: string, reason: string, at: number): Promise<boolean>;
  alertByCalendarTokenHash(hash: string): Promise<AlertRecord | null>;
  /** The alert an e-mail attempt with this unsubscribe token belonged to. */
  alertByUnsubscribeTokenHash(hash: string): Promise<AlertRecord | null>;

  /** The spots that enabled alerts of active keys watch: the refresh must keep their forecasts fresh. */
  watchedSpots(): Promise<string[]>;
  /** The enabled alerts on these spots whose key is active and account enabled, with their ledgers. */
  alertsToEvaluate(spotIds: readonly string[]): Promise<EvaluatedAlert[]>;
  /**
   * One evaluation's writes, in one transaction: each listed alert's ledger replaced by `windows`, and the new
   * deliveries queued.
   */
  saveEvaluation(ledgers: readonly { alertId: string; windows: readonly LedgerSpan[] }[], deliveries: readonly DeliveryRecord[]): Promise<void>;
  /** Queues deliveries (a test event, "send again"). */
  enqueue(deliveries: readonly DeliveryRecord[]): Promise<void>;

  /**
   * Pending deliveries of enabled alerts scheduled at or before `now`, earliest first, with their alerts and when
   * their event's first attempt was made (null before it).
   */
  dueDeliveries(now: number, limit: number): Promise<DueDelivery[]>;
  /** Records what a pending delivery's attempt came to; false when it was not pending (attempted already). */
  recordAttempt(id: string, result: AttemptResult): Promise<boolean>;
  /** Queues the next attempt of the event `previous` belongs to (same event id and payload, attempt + 1), as `id`, at `at`. */
  scheduleRetry(previous: DeliveryRecord, id: string, at: number): Promise<void>;
  /** The alert's delivery log, newest first. */
  deliveriesOf(alertId: string, limit: number): Promise<DeliveryRecord[]>;
}

export function recordOf(row: AlertRow): AlertRecord {
  return { ...row, condition: JSON.parse(row.condition) as AlertCondition };
}

export function rowOf(record: AlertRecord): AlertRow {
  return { ...record, condition: JSON.stringify(record.condition) };
}

/** The alerts to evaluate, each with its ledger: `windows` (in order) grouped by alert. */
export function withLedgers(rows: readonly { alert: AlertRow }[], windows: readonly ({ alertId: string } & LedgerSpan)[]): EvaluatedAlert[] {
  const ledgers = new Map<string, LedgerSpan[]>();
  for (const w of windows) {
    let list = ledgers.get(w.alertId);
    if (!list) ledgers.set(w.alertId, (list = []));
    list.push({ start: w.start, end: w.end });
  }
  return rows.map((r) => ({ alert: recordOf(r.alert), announced: ledgers.get(r.alert.id) ?? [] }));
}

/** The pending row of an event's next attempt. */
export function nextAttempt(previous: DeliveryRecord, id: string, at: number): DeliveryRecord {
  return { id, alertId: previous.alertId, eventId: previous.eventId, attempt: previous.attempt + 1, scheduledAt: at, attemptedAt: null, statusCode: null, error: null, outcome: "pending", payload: previous.payload, unsubscribeTokenHash: null };
}
