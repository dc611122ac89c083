/**
 * The outbox: sends the deliveries that are due, records each attempt and schedules the next one. Deliveries are
 * made by the alerts' evaluation (one per window, its body stored once); this runner only sends them, through a
 * DeliveryQueue the alerts store implements. One process runs it (the holder of the refresh's lease).
 *
 * Fair: the queue gives at most one delivery per target, in turns across accounts, and a round started while an
 * earlier one still waits on a slow receiver leaves that receiver's target out, so one target never has two attempts
 * in flight and never holds up the others' deliveries.
 *
 * Each delivery is claimed in the queue before it is sent (`claim`: on the database, its next attempt moved
 * CLAIM_MS ahead, by whichever sender gets there first), so no two senders, servers or `surfcast refresh`, ever send
 * one delivery. Delivery is at least once: an attempt whose record is lost (a crash between sending and recording)
 * is due again once its claim runs out, and sent with the same `webhook-id`, which is what receivers deduplicate on.
 */
import type { Clock } from "../../core/clock";
import type { AllowedNetworks, Resolver } from "./address";
import { alertEmail, confirmationEmail, type MailMessage, type MailSender } from "./email";
import { parseConfirmationBody, parseEventBody } from "./event";
import { nextAttemptAt } from "./retry";
import { sendWebhook, type AttemptResult, type WebhookRequest } from "./webhook";

export type DeliveryTarget = { kind: "webhook"; url: string; secret: string } | { kind: "email"; to: string };

export interface Delivery {
  id: string;
  alertId: string;
  /** An event (a window or a test), or the confirmation e-mail an address receives before any event. */
  kind: "window" | "test" | "confirmation";
  /** The event's `webhook-id` (`msg_…`): the same on every attempt. */
  eventId: string;
  /** The event body as stored when the delivery was made (event.ts), sent unchanged on every attempt. */
  body: string;
  target: DeliveryTarget;
  /** Attempts of this event made so far. */
  attempts: number;
  /** When the event's first attempt was made; null before it. */
  firstAttemptAt: Date | null;
}

/** An attempt as the delivery log keeps it. */
export interface RecordedAttempt extends AttemptResult {
  /** The SHA-256 (hex) of the unsubscribe token an e-mail carried: the token itself is never stored. */
  unsubscribeTokenHash?: string;
  /** The SHA-256 (hex) of the token a confirmation e-mail carried. */
  confirmTokenHash?: string;
}

/**
 * What the outbox needs of the alerts store. The deliveries `due` returns are handed back as they are, so a
 * store may carry its own row in them (the type parameter).
 */
export interface DeliveryQueue<D extends Delivery = Delivery> {
  /** Deliveries of enabled alerts whose next attempt is due at `now`, the longest waiting first, at most `limit`. */
  due(now: Date, limit: number): Promise<D[]>;
  /** Takes `deliveries` for this sender until `until`: those still due and not taken by another sender meanwhile. */
  claim(deliveries: readonly D[], now: Date, until: Date): Promise<D[]>;
  /** Adds the attempt to the delivery log (the owner sees it). */
  recordAttempt(delivery: D, attempt: RecordedAttempt, at: Date): Promise<void>;
  /** When to try the event again; null: no more attempts (delivered, gone, refused, or the retries are over). */
  schedule(delivery: D, at: Date | null): Promise<void>;
  /** Turns the alert off (its receiver answered 410 Gone), saying why. */
  disableAlert(alertId: string, reason: string): Promise<void>;
}

/** The console's SMTP sender, and a fresh token (with its hash) for each e-mail's unsubscribe or confirmation link. */
export interface AlertMail {
  send: MailSender;
  newToken: () => { token: string; hash: string };
  /** How many days a confirmation link works, as its e-mail says. */
  confirmationDays: number;
}

export interface OutboxOptions<D extends Delivery = Delivery> {
  queue: DeliveryQueue<D>;
  clock: Clock;
  allowed: AllowedNetworks;
  publicUrl: string;
  /** Without it (no SMTP configured) an e-mail delivery is refused, or left to them when `otherSenders`. */
  mail?: AlertMail;
  /** Other servers send from the same queue (a shared database): what this one cannot send is theirs, never refused. */
  otherSenders?: boolean;
  /** Deliveries taken per run (the queue gives at most one per target, in turns across accounts). */
  batchSize?: number;
  /** Deliveries in flight at once: one slow receiver must not hold up the others. */
  concurrency?: number;
  timeoutMs?: number;
  fetch?: WebhookRequest["fetch"];
  resolve?: Resolver;
}

export interface OutboxRun {
  attempted: number;
  delivered: number;
  /** Failed, with another attempt scheduled. */
  retrying: number;
  /** Failed for good: refused, gone, or out of retries. */
  ended: number;
}

export const GONE_REASON = "the webhook receiver answered 410 Gone";

/** How long a claimed delivery is this sender's: well past a webhook's timeout and an SMTP exchange. */
export const CLAIM_MS = 2 * 60_000;

const targetKey = (target: DeliveryTarget) => (target.kind === "webhook" ? target.url : `mailto:${target.to}`);

export class Outbox<D extends Delivery = Delivery> {
  /** The round still taking its deliveries from the queue: a call meanwhile joins it rather than sending twice. */
  private taking: Promise<OutboxRun> | null = null;
  private readonly rounds = new Set<Promise<OutboxRun>>();
  /** Attempts in flight per target. */
  private readonly busy = new Map<string, number>();

  constructor(private readonly options: OutboxOptions<D>) {}

  /**
   * Sends what is due now. A call while a round takes its deliveries joins that round; one while earlier rounds
   * only wait on their attempts starts another, without their targets.
   */
  runDue(): Promise<OutboxRun> {
    if (this.taking) return this.taking;
    const round: Promise<OutboxRun> = this.sendDue(() => {
      if (this.taking === round) this.taking = null;
    });
    this.taking = round;
    this.rounds.add(round);
    round.then(
      () => this.rounds.delete(round),
      () => this.rounds.delete(round),
    );
    return round;
  }

  /** Resolves when no round is under way (for a graceful stop). */
  async idle(): Promise<void> {
    while (this.rounds.size > 0) await Promise.allSettled([...this.rounds]);
  }

  private async sendDue(taken: () => void): Promise<OutboxRun> {
    const { queue, clock } = this.options;
    const batchSize = this.options.batchSize ?? 100;
    let due: D[];
    try {
      // Asked for as many more as there are busy targets, whose deliveries are left for a later round.
      const now = new Date(clock.now());
      const sendable = (await queue.due(now, batchSize + this.busy.size)).filter((d) => !this.busy.has(targetKey(d.target)) && this.sends(d)).slice(0, batchSize);
      due = sendable.length === 0 ? [] : await queue.claim(sendable, now, new Date(now.getTime() + CLAIM_MS));
    } finally {
      taken();
    }
    for (const d of due) this.busy.set(targetKey(d.target), (this.busy.get(targetKey(d.target)) ?? 0) + 1);
    const release = (delivery: D) => {
      const key = targetKey(delivery.target);
      const left = this.busy.get(key)! - 1;
      if (left > 0) this.busy.set(key, left);
      else this.busy.delete(key);
    };
    const summary: OutboxRun = { attempted: 0, delivered: 0, retrying: 0, ended: 0 };
    let next = 0;
    const worker = async () => {
      while (next < due.length) {
        const delivery = due[next++]!;
        try {
          const verdict = await this.deliver(delivery);
          summary.attempted++;
          summary[verdict]++;
        } finally {
          release(delivery);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(this.options.concurrency ?? 8, due.length) }, worker));
    } finally {
      // Those no worker reached (the store failed under every worker) are free for a later round.
      for (const delivery of due.slice(next)) release(delivery);
      next = due.length;
    }
    return summary;
  }

  /** Whether this sender sends `delivery`: an e-mail without SMTP is another server's when there are others. */
  private sends(delivery: D): boolean {
    return delivery.target.kind !== "email" || this.options.mail !== undefined || !this.options.otherSenders;
  }

  private async deliver(delivery: D): Promise<"delivered" | "retrying" | "ended"> {
    const { queue, clock } = this.options;
    const at = new Date(clock.now());
    const attempt = await this.attempt(delivery, at);
    await queue.recordAttempt(delivery, attempt, at);
    if (attempt.outcome === "gone") await queue.disableAlert(delivery.alertId, GONE_REASON);
    const retryAt = attempt.outcome === "failed" ? nextAttemptAt(delivery.firstAttemptAt ?? at, delivery.attempts + 1, new Date(clock.now())) : null;
    await queue.schedule(delivery, retryAt);
    if (attempt.outcome === "delivered") return "delivered";
    return retryAt === null ? "ended" : "retrying";
  }

  private async attempt(delivery: D, at: Date): Promise<RecordedAttempt> {
    const { target } = delivery;
    if (delivery.kind === "confirmation") return target.kind === "email" ? this.confirmation(delivery, target.to) : { outcome: "refused", error: "only an e-mail address is confirmed", durationMs: 0 };
    if (target.kind === "webhook") {
      return sendWebhook({
        url: target.url,
        secret: target.secret,
        eventId: delivery.eventId,
        body: delivery.body,
        allowed: this.options.allowed,
        at,
        ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}),
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        ...(this.options.resolve ? { resolve: this.options.resolve } : {}),
      });
    }
    return this.email(delivery, target.to);
  }

  private email(delivery: D, to: string): Promise<RecordedAttempt> {
    return this.mailed("unsubscribeTokenHash", "the stored event cannot be read", () => {
      const event = parseEventBody(delivery.body);
      return (token) => alertEmail(event, to, { publicUrl: this.options.publicUrl, unsubscribeToken: token });
    });
  }

  private confirmation(delivery: D, to: string): Promise<RecordedAttempt> {
    return this.mailed("confirmTokenHash", "the stored confirmation cannot be read", () => {
      const request = parseConfirmationBody(delivery.body);
      return (token) => confirmationEmail(request, to, { publicUrl: this.options.publicUrl, confirmToken: token, validDays: this.options.mail!.confirmationDays });
    });
  }

  /**
   * One e-mail whose link carries a fresh token, its hash recorded as `hashField`: refused without SMTP, or when
   * `read` cannot read the stored body it writes the message from.
   */
  private async mailed(hashField: "unsubscribeTokenHash" | "confirmTokenHash", unreadable: string, read: () => (token: string) => MailMessage): Promise<RecordedAttempt> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const { mail } = this.options;
    if (!mail) return { outcome: "refused", error: "e-mail is not configured (SURFCAST_SMTP_URL)", durationMs: 0 };
    let write;
    try {
      write = read();
    } catch {
      return { outcome: "refused", error: unreadable, durationMs: elapsed() };
    }
    const { token, hash } = mail.newToken();
    const problem = await mail.send(write(token));
    // The hash is kept even when sending failed: the message may have gone out all the same.
    return problem === null ? { outcome: "delivered", durationMs: elapsed(), [hashField]: hash } : { outcome: "failed", error: problem, durationMs: elapsed(), [hashField]: hash };
  }
}
