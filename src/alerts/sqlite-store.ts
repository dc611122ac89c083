/** The alert store (store.ts) on SQLite: every statement about alerts, through drizzle on bun:sqlite. */
import { and, count, desc, eq, gt, inArray, isNotNull, isNull, lt, lte, min, or, sql, type Column, type SQL } from "drizzle-orm";
import { writeTransaction, type Db } from "../db";
import { accounts, alertDeliveries, alerts, alertWindows, apiKeys } from "../db/schema";
import { nextAttempt, recordOf, rowOf, takeInTurns, withLedgers, type AlertStore, type DeliveryRecord } from "./store";

/** Rows per insert statement: well under SQLite's limit of bound variables. */
const CHUNK = 500;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

/**
 * The columns of either engine's tables that say whether a pending delivery may be sent. The due deliveries'
 * condition and fields below are drizzle that builds for either dialect: the PostgreSQL store uses them too.
 */
interface SendableColumns {
  deliveries: { outcome: Column; scheduledAt: Column; kind: Column };
  alerts: { disabledReason: Column; confirmedAt: Column };
  keys: { revokedAt: Column };
  accounts: { disabled: Column };
}

/** A pending delivery due at `now` that may be sent: its alert on, key active, account enabled, address confirmed (or it is the confirmation). */
export function sendableAt(c: SendableColumns, now: number): SQL {
  return and(
    eq(c.deliveries.outcome, "pending"),
    lte(c.deliveries.scheduledAt, now),
    isNull(c.alerts.disabledReason),
    isNull(c.keys.revokedAt),
    eq(c.accounts.disabled, false),
    or(isNotNull(c.alerts.confirmedAt), eq(c.deliveries.kind, "confirmation")),
  )!;
}

/**
 * A due delivery's candidate fields: its id, due time and account, and its place among its target's deliveries
 * (1: the earliest), so that a round takes one per target.
 */
export function candidateFields<I extends Column, S extends Column, A extends Column>(deliveries: { id: I; scheduledAt: S }, target: Column, accountId: A) {
  const place = sql<number>`row_number() over (partition by ${target} order by ${deliveries.scheduledAt}, ${deliveries.id})`.as("place");
  return { id: deliveries.id, scheduledAt: deliveries.scheduledAt, accountId, place };
}

export function sqliteAlertStore(db: Db): AlertStore {
  const one = (where: ReturnType<typeof eq>) => {
    const row = db.select().from(alerts).where(where).get();
    return row ? recordOf(row) : null;
  };
  const insertDeliveries = (deliveries: readonly DeliveryRecord[]) => {
    for (const chunk of chunks(deliveries)) db.insert(alertDeliveries).values(chunk).run();
  };

  return {
    async insertAlert(record, accountId, check) {
      writeTransaction(db, () => {
        const row = db.select({ n: count() }).from(alerts).innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id)).where(eq(apiKeys.accountId, accountId)).get();
        check(row?.n ?? 0);
        db.insert(alerts).values(rowOf(record)).run();
      });
    },

    alertById: async (id) => one(eq(alerts.id, id)),
    alertByCalendarTokenHash: async (hash) => one(eq(alerts.calendarTokenHash, hash)),
    async alertByUnsubscribeTokenHash(hash) {
      const row = db.select({ alert: alerts }).from(alertDeliveries).innerJoin(alerts, eq(alertDeliveries.alertId, alerts.id)).where(eq(alertDeliveries.unsubscribeTokenHash, hash)).get();
      return row ? recordOf(row.alert) : null;
    },
    alertByConfirmTokenHash: async (hash) => one(eq(alerts.confirmTokenHash, hash)),

    async confirmAlert(id, at) {
      return writeTransaction(
        db,
        () =>
          db
            .update(alerts)
            .set({ confirmedAt: at })
            .where(and(eq(alerts.id, id), isNull(alerts.confirmedAt)))
            .returning({ id: alerts.id })
            .all().length > 0,
      );
    },

    async alertsOfKeys(keyIds) {
      if (keyIds.length === 0) return [];
      return db.select().from(alerts).where(inArray(alerts.keyId, [...keyIds])).orderBy(alerts.createdAt, alerts.id).all().map(recordOf);
    },

    async deleteAlert(id) {
      return writeTransaction(db, () => db.delete(alerts).where(eq(alerts.id, id)).returning({ id: alerts.id }).all().length > 0);
    },

    async disableAlert(id, reason, at) {
      return writeTransaction(
        db,
        () =>
          db
            .update(alerts)
            .set({ disabledReason: reason, disabledAt: at })
            .where(and(eq(alerts.id, id), isNull(alerts.disabledReason)))
            .returning({ id: alerts.id })
            .all().length > 0,
      );
    },

    async watchedSpots() {
      return db
        .selectDistinct({ spotId: alerts.spotId })
        .from(alerts)
        .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
        .innerJoin(accounts, eq(apiKeys.accountId, accounts.id))
        .where(and(isNull(alerts.disabledReason), isNull(apiKeys.revokedAt), eq(accounts.disabled, false)))
        .orderBy(alerts.spotId)
        .all()
        .map((r) => r.spotId);
    },

    async alertsToEvaluate(spotIds) {
      if (spotIds.length === 0) return [];
      const evaluated = and(inArray(alerts.spotId, [...spotIds]), isNull(alerts.disabledReason), isNotNull(alerts.confirmedAt), isNull(apiKeys.revokedAt), eq(accounts.disabled, false));
      const rows = db
        .select({ alert: alerts })
        .from(alerts)
        .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
        .innerJoin(accounts, eq(apiKeys.accountId, accounts.id))
        .where(evaluated)
        .orderBy(alerts.id)
        .all();
      const windows = db
        .select({ alertId: alertWindows.alertId, start: alertWindows.start, end: alertWindows.end })
        .from(alertWindows)
        .innerJoin(alerts, eq(alertWindows.alertId, alerts.id))
        .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
        .innerJoin(accounts, eq(apiKeys.accountId, accounts.id))
        .where(evaluated)
        .orderBy(alertWindows.alertId, alertWindows.start)
        .all();
      return withLedgers(rows, windows);
    },

    async saveEvaluation(ledgers, deliveries) {
      writeTransaction(db, () => {
        // An alert deleted since it was read (by the console or the CLI) is left out, not a reason to lose the rest.
        const wanted = [...new Set([...ledgers.map((l) => l.alertId), ...deliveries.map((d) => d.alertId)])];
        const present = new Set(chunks(wanted).flatMap((chunk) => db.select({ id: alerts.id }).from(alerts).where(inArray(alerts.id, chunk)).all().map((r) => r.id)));
        const kept = ledgers.filter((l) => present.has(l.alertId));
        for (const chunk of chunks(kept.map((l) => l.alertId))) db.delete(alertWindows).where(inArray(alertWindows.alertId, chunk)).run();
        for (const chunk of chunks(kept.flatMap((l) => l.windows.map((w) => ({ alertId: l.alertId, start: w.start, end: w.end }))))) db.insert(alertWindows).values(chunk).run();
        insertDeliveries(deliveries.filter((d) => present.has(d.alertId)));
      });
    },

    async enqueue(deliveries) {
      writeTransaction(db, () => insertDeliveries(deliveries));
    },

    async enqueueLimited(delivery, accountId, since, check) {
      writeTransaction(db, () => {
        const counted = and(eq(alertDeliveries.kind, delivery.kind), eq(alertDeliveries.attempt, 1), gt(alertDeliveries.scheduledAt, since));
        const alert = db.select({ at: alertDeliveries.scheduledAt }).from(alertDeliveries).where(and(counted, eq(alertDeliveries.alertId, delivery.alertId))).all();
        const account = db
          .select({ at: alertDeliveries.scheduledAt })
          .from(alertDeliveries)
          .innerJoin(alerts, eq(alertDeliveries.alertId, alerts.id))
          .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
          .where(and(counted, eq(apiKeys.accountId, accountId)))
          .all();
        check({ alert: alert.map((r) => r.at), account: account.map((r) => r.at) });
        insertDeliveries([delivery]);
      });
    },

    async dueDeliveries(now, limit) {
      const ranked = db
        .select(candidateFields(alertDeliveries, alerts.target, apiKeys.accountId))
        .from(alertDeliveries)
        .innerJoin(alerts, eq(alertDeliveries.alertId, alerts.id))
        .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
        .innerJoin(accounts, eq(apiKeys.accountId, accounts.id))
        .where(sendableAt({ deliveries: alertDeliveries, alerts, keys: apiKeys, accounts }, now))
        .as("ranked");
      const candidates = db.select({ id: ranked.id, scheduledAt: ranked.scheduledAt, accountId: ranked.accountId }).from(ranked).where(eq(ranked.place, 1)).all();
      const order = takeInTurns(candidates, limit).map((r) => r.id);
      const rows = new Map<string, { delivery: DeliveryRecord; alert: typeof alerts.$inferSelect }>();
      for (const chunk of chunks(order)) {
        for (const row of db.select({ delivery: alertDeliveries, alert: alerts }).from(alertDeliveries).innerJoin(alerts, eq(alertDeliveries.alertId, alerts.id)).where(inArray(alertDeliveries.id, chunk)).all()) rows.set(row.delivery.id, row);
      }
      const due = order.flatMap((id) => rows.get(id) ?? []);
      const firsts = new Map<string, number | null>();
      for (const chunk of chunks([...new Set(due.map((d) => d.delivery.eventId))])) {
        const rows = db.select({ eventId: alertDeliveries.eventId, first: min(alertDeliveries.attemptedAt) }).from(alertDeliveries).where(inArray(alertDeliveries.eventId, chunk)).groupBy(alertDeliveries.eventId).all();
        for (const row of rows) firsts.set(row.eventId, row.first);
      }
      return due.map((r) => ({ delivery: r.delivery, alert: recordOf(r.alert), firstAttemptAt: firsts.get(r.delivery.eventId) ?? null }));
    },

    async claimDeliveries(ids, now, until) {
      return writeTransaction(db, () =>
        db
          .update(alertDeliveries)
          .set({ scheduledAt: until })
          .where(and(inArray(alertDeliveries.id, [...ids]), eq(alertDeliveries.outcome, "pending"), lte(alertDeliveries.scheduledAt, now)))
          .returning({ id: alertDeliveries.id })
          .all()
          .map((row) => row.id),
      );
    },

    async recordAttempt(id, { confirmTokenHash, ...result }) {
      return writeTransaction(db, () => {
        const recorded = db
          .update(alertDeliveries)
          // Its claim (claimDeliveries) moved its scheduled time ahead: the log shows it when it was attempted.
          .set({ ...result, scheduledAt: result.attemptedAt })
          .where(and(eq(alertDeliveries.id, id), eq(alertDeliveries.outcome, "pending")))
          .returning({ alertId: alertDeliveries.alertId })
          .all();
        if (recorded.length > 0 && confirmTokenHash) db.update(alerts).set({ confirmTokenHash, confirmSentAt: result.attemptedAt }).where(eq(alerts.id, recorded[0]!.alertId)).run();
        return recorded.length > 0;
      });
    },

    async scheduleRetry(previous, id, at) {
      writeTransaction(db, () => insertDeliveries([nextAttempt(previous, id, at)]));
    },

    async deliveriesOf(alertId, limit) {
      return db.select().from(alertDeliveries).where(eq(alertDeliveries.alertId, alertId)).orderBy(desc(alertDeliveries.scheduledAt), desc(alertDeliveries.attempt)).limit(limit).all();
    },

    async pruneDeliveries(before) {
      return writeTransaction(db, () => db.delete(alertDeliveries).where(lt(alertDeliveries.scheduledAt, before)).returning({ id: alertDeliveries.id }).all().length);
    },
  };
}

