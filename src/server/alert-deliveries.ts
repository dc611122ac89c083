/**
 * Sending what the alerts queued (alerts/delivery/outbox.ts): a server runs its outbox every few seconds and at once
 * after each refresh's evaluation. On a shared database every server runs its rounds: each delivery is claimed in the
 * database before it is sent, so none is sent twice, and a server without SMTP leaves e-mails to those with it
 * (never ending them as refused). `surfcast refresh` sends
 * what it queued itself only when no server runs on the data directory (the server would send it otherwise). Each
 * server also prunes the delivery log's rows past their keeping time (alerts/limits.ts DELIVERY_LOG_MS) once an hour.
 */
import type { App } from "../app";
import { hashKey, randomToken } from "../access/keys";
import { sendMail } from "../console/mailer";
import { log } from "../core/log";
import type { Outbox, OutboxRun } from "../alerts/delivery/outbox";
import { deliveryQueue, type QueuedDelivery } from "../alerts/queue";
import { CONFIRMATION_LINK_MS } from "../alerts/limits";
import { DAY_MS, HOUR_MS } from "../core/clock";

/** Between two rounds: a failed first attempt is due again 30 s later, so it is sent within this of that. */
const ROUND_MS = 5_000;
/** Between two prunes of the delivery log: a delete every server may run (it removes the same rows). */
const PRUNE_MS = HOUR_MS;

/**
 * The outbox, its sending code (webhooks, signatures, e-mail) loaded with the first delivery due: a server without
 * alerts never holds it.
 */
export async function alertOutbox(app: App): Promise<Outbox<QueuedDelivery>> {
  const { config } = app;
  const { Outbox } = await import("../alerts/delivery/outbox");
  return new Outbox({
    queue: deliveryQueue(app.stores.alerts, app.clock),
    clock: app.clock,
    allowed: config.webhookAllowedNetworks,
    publicUrl: config.publicUrl,
    otherSenders: app.engine.kind === "postgres",
    mail: config.smtpUrl
      ? {
          send: (message) => sendMail(config, message),
          newToken: () => {
            const token = randomToken();
            return { token, hash: hashKey(token) };
          },
          confirmationDays: CONFIRMATION_LINK_MS / DAY_MS,
        }
      : undefined,
  });
}

export function logRound(run: OutboxRun): void {
  if (run.attempted > 0) log.info("alert deliveries sent", { ...run });
}

/** The server's outbox: a round every few seconds and after each refresh; stop() waits for the round under way. */
export function startAlertDeliveries(app: App): { stop(): Promise<void> } {
  let outbox: Promise<Outbox<QueuedDelivery>> | undefined;
  let prunedAt = -Infinity;
  const send = async () => {
    if (app.clock.now() - prunedAt >= PRUNE_MS) {
      prunedAt = app.clock.now();
      const pruned = await app.alerts.pruneDeliveries();
      if (pruned > 0) log.info("alert delivery log pruned", { rows: pruned });
    }
    // Most rounds find nothing due: one small query, and the outbox stays unloaded until something is.
    if ((await app.stores.alerts.dueDeliveries(app.clock.now(), 1)).length === 0) return undefined;
    return (await (outbox ??= alertOutbox(app))).runDue();
  };
  const stopping = new AbortController();
  let failing = false;
  const round = () => {
    if (stopping.signal.aborted) return;
    send().then(
      (run) => {
        if (failing) log.info("alert deliveries work again");
        failing = false;
        if (run) logRound(run);
      },
      (err: unknown) => {
        // A database away fails every round: one line when they start failing, one when they work again.
        if (!failing) log.error("alert deliveries failed; the queue is kept and tried again", { error: String(err) });
        failing = true;
      },
    );
  };
  const timer = setInterval(round, ROUND_MS);
  app.refreshEvents.on(round);
  return {
    async stop() {
      stopping.abort();
      clearInterval(timer);
      app.refreshEvents.off(round);
      await (await outbox)?.idle();
    },
  };
}
