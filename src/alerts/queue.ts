/**
 * The alert store as the delivery outbox's queue (delivery/outbox.ts `DeliveryQueue`): the due deliveries with
 * their targets and how many attempts their event has had, each attempt written to the delivery log, the next
 * attempt queued as a row of its own (same event id and body), an alert switched off when its receiver says gone.
 */
import type { Clock } from "../core/clock";
import { newDeliveryId } from "./service";
import type { AlertRecord, AlertStore, DeliveryRecord } from "./store";
import type { Delivery, DeliveryQueue, DeliveryTarget, RecordedAttempt } from "./delivery/outbox";

/** A due delivery as the outbox sends it, carrying its stored row for the next attempt. */
export interface QueuedDelivery extends Delivery {
  record: DeliveryRecord;
}

function targetOf(alert: AlertRecord): DeliveryTarget {
  if (alert.delivery === "email") return { kind: "email", to: alert.target };
  if (alert.webhookSecret === null) throw new Error(`webhook alert ${alert.id} has no signing secret`);
  return { kind: "webhook", url: alert.target, secret: alert.webhookSecret };
}

export function deliveryQueue(store: AlertStore, clock: Clock): DeliveryQueue<QueuedDelivery> {
  return {
    async due(now: Date, limit: number): Promise<QueuedDelivery[]> {
      return (await store.dueDeliveries(now.getTime(), limit)).map(({ delivery, alert, firstAttemptAt }) => ({
        id: delivery.id,
        alertId: delivery.alertId,
        kind: delivery.kind,
        eventId: delivery.eventId,
        body: delivery.payload,
        target: targetOf(alert),
        attempts: delivery.attempt - 1,
        firstAttemptAt: firstAttemptAt === null ? null : new Date(firstAttemptAt),
        record: delivery,
      }));
    },

    async claim(deliveries: readonly QueuedDelivery[], now: Date, until: Date): Promise<QueuedDelivery[]> {
      const claimed = new Set(await store.claimDeliveries(deliveries.map((d) => d.id), now.getTime(), until.getTime()));
      return deliveries.filter((d) => claimed.has(d.id));
    },

    async recordAttempt(delivery: QueuedDelivery, attempt: RecordedAttempt, at: Date): Promise<void> {
      await store.recordAttempt(delivery.id, {
        attemptedAt: at.getTime(),
        statusCode: attempt.status ?? null,
        error: attempt.error ?? null,
        outcome: attempt.outcome,
        unsubscribeTokenHash: attempt.unsubscribeTokenHash ?? null,
        confirmTokenHash: attempt.confirmTokenHash ?? null,
      });
    },

    /** Queues the event's next attempt at `at`; null: no more attempts. */
    async schedule(delivery: QueuedDelivery, at: Date | null): Promise<void> {
      if (at !== null) await store.scheduleRetry(delivery.record, newDeliveryId(), at.getTime());
    },

    async disableAlert(alertId: string, reason: string): Promise<void> {
      await store.disableAlert(alertId, reason, clock.now());
    },
  };
}
