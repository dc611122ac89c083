/**
 * The outbox against a receiver on 127.0.0.1 and an in-memory queue, on a fake clock (started at the real time,
 * so the package's verify accepts the signed timestamps).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { ManualClock } from "../../../src/core/clock";
import { parseAllowedNetworks } from "../../../src/alerts/delivery/address";
import { createHash } from "node:crypto";
import type { MailMessage } from "../../../src/alerts/delivery/email";
import { eventBody } from "../../../src/alerts/delivery/event";
import { sampleEvent } from "./sample-event";
import { GONE_REASON, Outbox, type AlertMail, type Delivery, type DeliveryQueue, type DeliveryTarget, type OutboxOptions, type RecordedAttempt } from "../../../src/alerts/delivery/outbox";
import { newMessageId, newWebhookSecret } from "../../../src/alerts/delivery/ids";
import { startReceiver, type Answer, type Receiver } from "./receiver";

/** The queue as the alerts store keeps it, in memory. */
class MemoryQueue implements DeliveryQueue {
  rows = new Map<string, Delivery & { nextAt: Date | null; log: { result: RecordedAttempt; at: Date }[] }>();
  disabled = new Map<string, string>();

  add(target: DeliveryTarget, at: Date, alertId = "alert_01"): string {
    const id = `d${this.rows.size + 1}`;
    const body = eventBody(sampleEvent(at, alertId));
    this.rows.set(id, { id, alertId, kind: "window", eventId: newMessageId(), body, target, attempts: 0, firstAttemptAt: null, nextAt: at, log: [] });
    return id;
  }
  async due(now: Date, limit: number): Promise<Delivery[]> {
    return [...this.rows.values()]
      .filter((r) => r.nextAt !== null && r.nextAt <= now && !this.disabled.has(r.alertId))
      .sort((a, b) => a.nextAt!.getTime() - b.nextAt!.getTime())
      .slice(0, limit)
      .map(({ nextAt: _n, log: _l, ...delivery }) => structuredClone(delivery));
  }
  async claim(deliveries: readonly Delivery[], now: Date, until: Date): Promise<Delivery[]> {
    const claimed = deliveries.filter((d) => this.rows.get(d.id)!.nextAt !== null && this.rows.get(d.id)!.nextAt! <= now);
    for (const d of claimed) this.rows.get(d.id)!.nextAt = until;
    return claimed;
  }
  async recordAttempt(delivery: Delivery, result: RecordedAttempt, at: Date): Promise<void> {
    const row = this.rows.get(delivery.id)!;
    row.log.push({ result, at });
    row.attempts++;
    row.firstAttemptAt ??= at;
  }
  async schedule(delivery: Delivery, at: Date | null): Promise<void> {
    this.rows.get(delivery.id)!.nextAt = at;
  }
  async disableAlert(alertId: string, reason: string): Promise<void> {
    this.disabled.set(alertId, reason);
  }
}

const secret = newWebhookSecret();
let receiver: Receiver | undefined;
afterEach(() => receiver?.stop());

function setUp(answers: Answer[], options: Partial<OutboxOptions> = {}) {
  receiver = startReceiver(answers);
  const clock = new ManualClock(Date.now());
  const queue = new MemoryQueue();
  const outbox = new Outbox({ queue, clock, allowed: parseAllowedNetworks("127.0.0.1/32"), publicUrl: "https://surf.example", ...options });
  const id = queue.add({ kind: "webhook", url: `${receiver.url}/hook`, secret }, new Date(clock.now()));
  return { clock, queue, outbox, id, row: () => queue.rows.get(id)! };
}

describe("the outbox", () => {
  test("a success is recorded and ends the delivery", async () => {
    const { outbox, row } = setUp([204]);
    expect(await outbox.runDue()).toEqual({ attempted: 1, delivered: 1, retrying: 0, ended: 0 });
    expect(row().log.map((l) => l.result)).toMatchObject([{ outcome: "delivered", status: 204 }]);
    expect(row().nextAt).toBeNull();
    expect(await outbox.runDue()).toEqual({ attempted: 0, delivered: 0, retrying: 0, ended: 0 });
    expect(receiver!.received).toHaveLength(1);
  });

  test("a failed first attempt is retried within 30 s with the same webhook-id and body, signed afresh", async () => {
    const { clock, outbox, row } = setUp([500, 200]);
    expect(await outbox.runDue()).toEqual({ attempted: 1, delivered: 0, retrying: 1, ended: 0 });
    const first = row().log[0]!;
    expect(first.result).toMatchObject({ outcome: "failed", status: 500, error: "HTTP 500" });
    const retryIn = row().nextAt!.getTime() - first.at.getTime();
    expect(retryIn).toBeGreaterThan(0);
    expect(retryIn).toBeLessThanOrEqual(30_000);

    clock.advance(retryIn - 1);
    expect((await outbox.runDue()).attempted).toBe(0); // not due yet
    clock.advance(1);
    expect(await outbox.runDue()).toEqual({ attempted: 1, delivered: 1, retrying: 0, ended: 0 });

    const [a, b] = receiver!.received;
    expect(b!.headers["webhook-id"]).toBe(a!.headers["webhook-id"]!);
    expect(a!.headers["webhook-id"]).toBe(row().eventId);
    expect(b!.body).toBe(a!.body);
    expect(Number(b!.headers["webhook-timestamp"]) - Number(a!.headers["webhook-timestamp"])).toBe(retryIn / 1000);
    for (const r of [a!, b!]) expect(new Webhook(secret).verify(r.body, r.headers)).toMatchObject({ type: "alert.window", spot: { id: "pipe" } });
    expect(row().attempts).toBe(2);
    expect(row().firstAttemptAt).toEqual(first.at);
    expect(row().nextAt).toBeNull();
  });

  test("410 disables the alert and ends the delivery", async () => {
    const { queue, outbox, row } = setUp([410]);
    expect(await outbox.runDue()).toEqual({ attempted: 1, delivered: 0, retrying: 0, ended: 1 });
    expect(queue.disabled.get("alert_01")).toBe(GONE_REASON);
    expect(row().log[0]!.result).toMatchObject({ outcome: "gone", status: 410 });
    expect(row().nextAt).toBeNull();
  });

  test("a receiver that never answers times out, and the attempt is retried", async () => {
    const { outbox, row } = setUp(["hang"], { timeoutMs: 200 });
    expect(await outbox.runDue()).toEqual({ attempted: 1, delivered: 0, retrying: 1, ended: 0 });
    expect(row().log[0]!.result).toMatchObject({ outcome: "failed", error: "no answer within 0.2 s" });
    expect(row().nextAt).not.toBeNull();
  });

  test("a target refused at delivery is not retried", async () => {
    const { outbox, row } = setUp([204], { allowed: parseAllowedNetworks("") });
    expect(await outbox.runDue()).toEqual({ attempted: 1, delivered: 0, retrying: 0, ended: 1 });
    expect(row().log[0]!.result).toMatchObject({ outcome: "refused" });
    expect(receiver!.received).toHaveLength(0);
  });

  test("a receiver that always fails is tried with growing waits, then given up a day after the first attempt", async () => {
    const { clock, outbox, row } = setUp([503]);
    const waits: number[] = [];
    while ((await outbox.runDue()).retrying === 1) {
      waits.push(row().nextAt!.getTime() - clock.now());
      clock.set(row().nextAt!);
    }
    expect(row().nextAt).toBeNull();
    expect(waits[0]).toBeLessThanOrEqual(30_000);
    expect(waits).toEqual([...waits].sort((x, y) => x - y));
    expect(clock.now() - row().firstAttemptAt!.getTime()).toBeLessThanOrEqual(24 * 3_600_000);
    expect(new Set(receiver!.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(receiver!.received).toHaveLength(row().attempts);
  }, 30_000);

  test("a run under way is joined, not repeated: nothing is sent twice", async () => {
    const { outbox } = setUp([204]);
    const [a, b] = await Promise.all([outbox.runDue(), outbox.runDue()]);
    expect(a).toBe(b);
    expect(receiver!.received).toHaveLength(1);
  });

  test("a round started while another waits on a receiver that never answers sends the others, leaving that target out", async () => {
    const { queue, outbox } = setUp(["hang"], { timeoutMs: 1_500 });
    const fast = startReceiver([204]);
    try {
      const first = outbox.runDue();
      await Bun.sleep(100);
      expect(receiver!.received).toHaveLength(1);
      queue.add({ kind: "webhook", url: `${receiver!.url}/hook`, secret }, new Date(0), "alert_h2");
      queue.add({ kind: "webhook", url: `${fast.url}/hook`, secret }, new Date(0), "alert_f1");
      const started = performance.now();
      expect(await outbox.runDue()).toEqual({ attempted: 1, delivered: 1, retrying: 0, ended: 0 });
      expect(performance.now() - started).toBeLessThan(1_000);
      // Still one attempt in flight to the hanging target.
      expect(receiver!.received).toHaveLength(1);
      expect((await first).retrying).toBe(1);
      await outbox.idle();
    } finally {
      fast.stop();
    }
  });

  test("several receivers are served side by side", async () => {
    const { queue, outbox } = setUp(["hang"], { timeoutMs: 400, concurrency: 4 });
    const fast = startReceiver([204]);
    try {
      for (let i = 0; i < 3; i++) queue.add({ kind: "webhook", url: `${fast.url}/hook`, secret }, new Date(0), `alert_f${i}`);
      const started = performance.now();
      expect(await outbox.runDue()).toEqual({ attempted: 4, delivered: 3, retrying: 1, ended: 0 });
      expect(performance.now() - started).toBeLessThan(1_500);
    } finally {
      fast.stop();
    }
  });

  /** A mail sender keeping what it is given, and tokens tok1, tok2, … */
  function fakeMail(answer: string | null = null): AlertMail & { sent: MailMessage[] } {
    const sent: MailMessage[] = [];
    let n = 0;
    return {
      sent,
      send: async (m) => (sent.push(m), answer),
      newToken: () => {
        const token = `tok${++n}`;
        return { token, hash: createHash("sha256").update(token).digest("hex") };
      },
      confirmationDays: 7,
    };
  }

  test("an e-mail delivery goes through the mail sender, written from the stored event, its token's hash recorded", async () => {
    const mail = fakeMail();
    const { queue, outbox } = setUp([204], { mail });
    const id = queue.add({ kind: "email", to: "owner@example.com" }, new Date(0), "alert_02");
    await outbox.runDue();
    expect(mail.sent).toHaveLength(1);
    const [message] = mail.sent;
    expect(message!.to).toBe("owner@example.com");
    expect(message!.subject).toBe("Surf at Pipeline: Fri 27 Nov 06:00–10:00 HST, 1.6 m");
    expect(message!.headers["List-Unsubscribe"]).toBe("<https://surf.example/alerts/unsubscribe/tok1>");
    expect(queue.rows.get(id)!.log[0]!.result).toMatchObject({
      outcome: "delivered",
      unsubscribeTokenHash: createHash("sha256").update("tok1").digest("hex"),
    });
    expect(JSON.stringify([...queue.rows.values()])).not.toContain('"tok1"');
  });

  test("an e-mail that the SMTP server refuses is retried; without SMTP it is refused", async () => {
    const { queue, outbox } = setUp([204], { mail: fakeMail("connect ECONNREFUSED") });
    const id = queue.add({ kind: "email", to: "owner@example.com" }, new Date(0), "alert_02");
    await outbox.runDue();
    expect(queue.rows.get(id)!.log[0]!.result).toMatchObject({ outcome: "failed", error: "connect ECONNREFUSED" });
    expect(queue.rows.get(id)!.nextAt).not.toBeNull();

    const bareQueue = new MemoryQueue();
    const bare = new Outbox({ queue: bareQueue, clock: new ManualClock(Date.now()), allowed: [], publicUrl: "https://surf.example" });
    const other = bareQueue.add({ kind: "email", to: "owner@example.com" }, new Date(0));
    await bare.runDue();
    expect(bareQueue.rows.get(other)!.log[0]!.result).toMatchObject({ outcome: "refused", error: "e-mail is not configured (SURFCAST_SMTP_URL)" });
    expect(bareQueue.rows.get(other)!.nextAt).toBeNull();
  });
});
