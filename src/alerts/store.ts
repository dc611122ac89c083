/**
 * What the alerts room keeps in the database (`alerts`, `alert_windows`, `alert_deliveries`), implemented once for
 * both databases (drizzle-store.ts). The rules stay in service.ts and condition.ts; the plan's cap is a `check` the
 * insert runs in its own transaction. Times are epoch milliseconds.
 */
import type { AlertCondition } from "./condition";

export type DeliveryKind = "webhook" | "email";
/** `gone`: the receiver answered 410 (the alert is switched off); `refused`: the target is not allowed, or e-mail is not set up. */
export type DeliveryOutcome = "pending" | "delivered" | "failed" | "gone" | "refused";
/** What a delivery sends: a window, a test event, or an e-mail address's confirmation message. */
export type DeliveryPurpose = "window" | "test" | "confirmation";

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
  /** When the e-mail address was confirmed (a webhook: when it was made); null while waiting for confirmation. */
  confirmedAt: number | null;
  /** SHA-256 of the last confirmation e-mail's token, hex; null before one is sent. */
  confirmTokenHash: string | null;
  /** When the last confirmation e-mail was sent. */
  confirmSentAt: number | null;
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
  kind: DeliveryPurpose;
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
  /** SHA-256 of the token a confirmation e-mail carried: recorded on the alert, replacing any earlier one. */
  confirmTokenHash?: string | null;
}

/** The first attempts of one kind since a time, for a limit (limits.ts): the alert's, and its account's. */
export interface SentTimes {
  alert: number[];
  account: number[];
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
   * Inserts the alert once `check` has seen how many alerts the account has (of revoked keys too: revoking a key and
   * making another does not make room), in one transaction, so that two processes creating at once cannot pass the
   * plan's cap together.
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
  alertByConfirmTokenHash(hash: string): Promise<AlertRecord | null>;
  /** Marks the alert's address confirmed; false when it was unknown or confirmed already. */
  confirmAlert(id: string, at: number): Promise<boolean>;

  /** The spots that enabled alerts of active keys watch: the refresh must keep their forecasts fresh. */
  watchedSpots(): Promise<string[]>;
  /** The enabled, confirmed alerts on these spots whose key is active and account enabled, with their ledgers. */
  alertsToEvaluate(spotIds: readonly string[]): Promise<EvaluatedAlert[]>;
  /**
   * One evaluation's writes, in one transaction: each listed alert's ledger replaced by `windows`, and the new
   * deliveries queued.
   */
  saveEvaluation(ledgers: readonly { alertId: string; windows: readonly LedgerSpan[] }[], deliveries: readonly DeliveryRecord[]): Promise<void>;
  /** Queues deliveries (a new e-mail alert's confirmation). */
  enqueue(deliveries: readonly DeliveryRecord[]): Promise<void>;
  /**
   * Queues a delivery made by hand (a test, a confirmation sent again) once `check` has seen the first attempts of
   * its kind since `since`, of its alert and of the account's alerts, in one transaction: servers sharing the
   * database count together.
   */
  enqueueLimited(delivery: DeliveryRecord, accountId: number, since: number, check: (sent: SentTimes) => void): Promise<void>;

  /**
   * Pending deliveries scheduled at or before `now` that may be sent — the alert enabled, its key active, its
   * account enabled, its address confirmed (or the delivery is the confirmation) — with their alerts and when their
   * event's first attempt was made (null before it). Fair: the earliest one of each target only, so no target has
   * two attempts in flight, taken in turns across accounts (each account's earliest, then each one's next, …).
   */
  dueDeliveries(now: number, limit: number): Promise<DueDelivery[]>;
  /**
   * Claims pending deliveries still due at `now` for one sender: their scheduled time becomes `until`, so no other
   * sender finds them due meanwhile; answers the ids claimed (another sender may have taken some first).
   */
  claimDeliveries(ids: readonly string[], now: number, until: number): Promise<string[]>;
  /** Records what a pending delivery's attempt came to; false when it was not pending (attempted already). */
  recordAttempt(id: string, result: AttemptResult): Promise<boolean>;
  /** Queues the next attempt of the event `previous` belongs to (same event id and payload, attempt + 1), as `id`, at `at`. */
  scheduleRetry(previous: DeliveryRecord, id: string, at: number): Promise<void>;
  /** The alert's delivery log, newest first. */
  deliveriesOf(alertId: string, limit: number): Promise<DeliveryRecord[]>;
  /** Deletes the delivery log's rows scheduled before `before`; answers how many. */
  pruneDeliveries(before: number): Promise<number>;
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
  return { id, alertId: previous.alertId, eventId: previous.eventId, attempt: previous.attempt + 1, scheduledAt: at, attemptedAt: null, statusCode: null, error: null, outcome: "pending", kind: previous.kind, payload: previous.payload, unsubscribeTokenHash: null };
}

/** The order a fair round takes its deliveries in: ranked within their account, then by when they were due. */
export function takeInTurns<T extends { accountId: number; scheduledAt: number; id: string }>(rows: readonly T[], limit: number): T[] {
  const seen = new Map<number, number>();
  const ranked = [...rows]
    .sort((a, b) => a.scheduledAt - b.scheduledAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((row) => {
      const turn = seen.get(row.accountId) ?? 0;
      seen.set(row.accountId, turn + 1);
      return { row, turn };
    });
  return ranked
    .sort((a, b) => a.turn - b.turn || a.row.scheduledAt - b.row.scheduledAt || (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0))
    .slice(0, limit)
    .map((r) => r.row);
}
