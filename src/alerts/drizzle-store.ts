/**
 * The alert store (store.ts) through drizzle, on either database (db/store-dialect.ts). An insert locks its
 * account's row (PostgreSQL) while it counts the account's alerts, so two servers creating alerts for one account
 * take turns and the plan's cap holds; a ledger's rows are replaced in alert order, so two writers would wait for
 * each other rather than deadlock (only the refresh's holder evaluates).
 */
import { and, count, desc, eq, gt, inArray, isNotNull, isNull, lt, lte, min, or, sql, type SQL } from "drizzle-orm";
import type { PgQueryable } from "../db/postgres/transaction";
import { run, type StoreDialect, type Work } from "../db/store-dialect";
import { nextAttempt, recordOf, rowOf, takeInTurns, withLedgers, type AlertRow, type AlertStore, type DeliveryRecord } from "./store";

export function drizzleAlertStore({ db, tables, direct, write, lock, binary, chunks }: StoreDialect): AlertStore {
  const { accounts, alertDeliveries, alerts, alertWindows, apiKeys } = tables;
  const one = async (where: SQL) => {
    const [row] = await db.select().from(alerts).where(where).limit(1);
    return row ? recordOf(row) : null;
  };
  function* insertDeliveries(tx: PgQueryable, deliveries: readonly DeliveryRecord[]): Work<void> {
    for (const chunk of chunks(deliveries, alertDeliveries)) yield* run(tx.insert(alertDeliveries).values(chunk));
  }
  /** The account's row locked: two servers counting its alerts or sends at once take turns. */
  const lockAccount = (tx: PgQueryable, accountId: number) => run(lock(tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId))));
  const changed = async (rows: PromiseLike<unknown[]>) => (await rows).length > 0;
  /** The alert is on, its key active and its account enabled. */
  const live = and(isNull(alerts.disabledReason), isNull(apiKeys.revokedAt), eq(accounts.disabled, false));

  return {
    insertAlert: (record, accountId, check) =>
      write(function* (tx) {
        yield* lockAccount(tx, accountId);
        const [row] = yield* run(tx.select({ n: count() }).from(alerts).innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id)).where(eq(apiKeys.accountId, accountId)));
        check(row?.n ?? 0);
        yield* run(tx.insert(alerts).values(rowOf(record)));
      }),

    alertById: (id) => one(eq(alerts.id, id)),
    alertByCalendarTokenHash: (hash) => one(eq(alerts.calendarTokenHash, hash)),
    async alertByUnsubscribeTokenHash(hash) {
      const [row] = await db.select({ alert: alerts }).from(alertDeliveries).innerJoin(alerts, eq(alertDeliveries.alertId, alerts.id)).where(eq(alertDeliveries.unsubscribeTokenHash, hash)).limit(1);
      return row ? recordOf(row.alert) : null;
    },
    alertByConfirmTokenHash: (hash) => one(eq(alerts.confirmTokenHash, hash)),

    confirmAlert: (id, at) => changed(db.update(alerts).set({ confirmedAt: at }).where(and(eq(alerts.id, id), isNull(alerts.confirmedAt))).returning({ id: alerts.id })),

    async alertsOfKeys(keyIds) {
      if (keyIds.length === 0) return [];
      return (await db.select().from(alerts).where(inArray(alerts.keyId, [...keyIds])).orderBy(alerts.createdAt, binary(alerts.id))).map(recordOf);
    },

    deleteAlert: (id) => changed(db.delete(alerts).where(eq(alerts.id, id)).returning({ id: alerts.id })),

    disableAlert: (id, reason, at) => changed(db.update(alerts).set({ disabledReason: reason, disabledAt: at }).where(and(eq(alerts.id, id), isNull(alerts.disabledReason))).returning({ id: alerts.id })),

    async watchedSpots() {
      const rows = await db
        .selectDistinct({ spotId: alerts.spotId, sorted: binary(alerts.spotId) })
        .from(alerts)
        .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
        .innerJoin(accounts, eq(apiKeys.accountId, accounts.id))
        .where(live)
        .orderBy(binary(alerts.spotId));
      return rows.map((r) => r.spotId);
    },

    async alertsToEvaluate(spotIds) {
      if (spotIds.length === 0) return [];
      const evaluated = and(inArray(alerts.spotId, [...spotIds]), isNotNull(alerts.confirmedAt), live);
      const rows = await db
        .select({ alert: alerts })
        .from(alerts)
        .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
        .innerJoin(accounts, eq(apiKeys.accountId, accounts.id))
        .where(evaluated)
        .orderBy(binary(alerts.id));
      const windows = await db
        .select({ alertId: alertWindows.alertId, start: alertWindows.start, end: alertWindows.end })
        .from(alertWindows)
        .innerJoin(alerts, eq(alertWindows.alertId, alerts.id))
        .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
        .innerJoin(accounts, eq(apiKeys.accountId, accounts.id))
        .where(evaluated)
        .orderBy(alertWindows.alertId, alertWindows.start);
      return withLedgers(rows, windows);
    },

    saveEvaluation: (ledgers, deliveries) =>
      write(function* (tx) {
        // An alert deleted since it was read is left out; the ones still there cannot be deleted until this commits.
        const wanted = [...new Set([...ledgers.map((l) => l.alertId), ...deliveries.map((d) => d.alertId)])].sort();
        const present = new Set<string>();
        for (const chunk of chunks(wanted)) {
          for (const row of yield* run(lock(tx.select({ id: alerts.id }).from(alerts).where(inArray(alerts.id, chunk)).orderBy(binary(alerts.id)), "key share"))) present.add(row.id);
        }
        const kept = ledgers.filter((l) => present.has(l.alertId)).sort((a, b) => (a.alertId < b.alertId ? -1 : a.alertId > b.alertId ? 1 : 0));
        const windows = kept.flatMap((l) => l.windows.map((w) => ({ alertId: l.alertId, start: w.start, end: w.end })));
        for (const chunk of chunks(kept.map((l) => l.alertId))) yield* run(tx.delete(alertWindows).where(inArray(alertWindows.alertId, chunk)));
        for (const chunk of chunks(windows, alertWindows)) yield* run(tx.insert(alertWindows).values(chunk));
        yield* insertDeliveries(tx, deliveries.filter((d) => present.has(d.alertId)));
      }),

    enqueue: (deliveries) => write((tx) => insertDeliveries(tx, deliveries)),

    enqueueLimited: (delivery, accountId, since, check) =>
      write(function* (tx) {
        yield* lockAccount(tx, accountId);
        const counted = and(eq(alertDeliveries.kind, delivery.kind), eq(alertDeliveries.attempt, 1), gt(alertDeliveries.scheduledAt, since));
        const alert = yield* run(tx.select({ at: alertDeliveries.scheduledAt }).from(alertDeliveries).where(and(counted, eq(alertDeliveries.alertId, delivery.alertId))));
        const account = yield* run(
          tx
            .select({ at: alertDeliveries.scheduledAt })
            .from(alertDeliveries)
            .innerJoin(alerts, eq(alertDeliveries.alertId, alerts.id))
            .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
            .where(and(counted, eq(apiKeys.accountId, accountId))),
        );
        check({ alert: alert.map((r) => r.at), account: account.map((r) => r.at) });
        yield* insertDeliveries(tx, [delivery]);
      }),

    async dueDeliveries(now, limit) {
      // A due delivery that may be sent: its alert on, key active, account enabled, address confirmed (or it is the
      // confirmation); ranked among its target's, so that a round takes the earliest one per target.
      const sendable = and(eq(alertDeliveries.outcome, "pending"), lte(alertDeliveries.scheduledAt, now), live, or(isNotNull(alerts.confirmedAt), eq(alertDeliveries.kind, "confirmation")));
      const place = sql<number>`row_number() over (partition by ${alerts.target} order by ${alertDeliveries.scheduledAt}, ${alertDeliveries.id})`.as("place");
      const ranked = db
        .select({ id: alertDeliveries.id, scheduledAt: alertDeliveries.scheduledAt, accountId: apiKeys.accountId, place })
        .from(alertDeliveries)
        .innerJoin(alerts, eq(alertDeliveries.alertId, alerts.id))
        .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
        .innerJoin(accounts, eq(apiKeys.accountId, accounts.id))
        .where(sendable)
        .as("ranked");
      const candidates = await db.select({ id: ranked.id, scheduledAt: ranked.scheduledAt, accountId: ranked.accountId }).from(ranked).where(eq(ranked.place, 1));
      const order = takeInTurns(candidates, limit).map((r) => r.id);
      const rows = new Map<string, { delivery: DeliveryRecord; alert: AlertRow }>();
      for (const chunk of chunks(order)) {
        for (const row of await db.select({ delivery: alertDeliveries, alert: alerts }).from(alertDeliveries).innerJoin(alerts, eq(alertDeliveries.alertId, alerts.id)).where(inArray(alertDeliveries.id, chunk))) rows.set(row.delivery.id, row);
      }
      const due = order.flatMap((id) => rows.get(id) ?? []);
      const firsts = new Map<string, number | null>();
      for (const chunk of chunks([...new Set(due.map((d) => d.delivery.eventId))])) {
        const rows = await db.select({ eventId: alertDeliveries.eventId, first: min(alertDeliveries.attemptedAt) }).from(alertDeliveries).where(inArray(alertDeliveries.eventId, chunk)).groupBy(alertDeliveries.eventId);
        for (const row of rows) firsts.set(row.eventId, row.first);
      }
      return due.map((r) => ({ delivery: r.delivery, alert: recordOf(r.alert), firstAttemptAt: firsts.get(r.delivery.eventId) ?? null }));
    },

    async claimDeliveries(ids, now, until) {
      // One UPDATE: a second sender's waits on the rows' locks, then finds them no longer due.
      const claimed = await db
        .update(alertDeliveries)
        .set({ scheduledAt: until })
        .where(and(inArray(alertDeliveries.id, [...ids]), eq(alertDeliveries.outcome, "pending"), lte(alertDeliveries.scheduledAt, now)))
        .returning({ id: alertDeliveries.id });
      return claimed.map((row) => row.id);
    },

    recordAttempt: (id, { confirmTokenHash, ...result }) =>
      write(function* (tx) {
        const recorded = yield* run(
          tx
            .update(alertDeliveries)
            // Its claim (claimDeliveries) moved its scheduled time ahead: the log shows it when it was attempted.
            .set({ ...result, scheduledAt: result.attemptedAt })
            .where(and(eq(alertDeliveries.id, id), eq(alertDeliveries.outcome, "pending")))
            .returning({ alertId: alertDeliveries.alertId }),
        );
        if (recorded.length > 0 && confirmTokenHash) yield* run(tx.update(alerts).set({ confirmTokenHash, confirmSentAt: result.attemptedAt }).where(eq(alerts.id, recorded[0]!.alertId)));
        return recorded.length > 0;
      }),

    scheduleRetry: (previous, id, at) => direct((tx) => insertDeliveries(tx, [nextAttempt(previous, id, at)])),

    deliveriesOf: (alertId, limit) => db.select().from(alertDeliveries).where(eq(alertDeliveries.alertId, alertId)).orderBy(desc(alertDeliveries.scheduledAt), desc(alertDeliveries.attempt)).limit(limit),

    pruneDeliveries: async (before) => (await db.delete(alertDeliveries).where(lt(alertDeliveries.scheduledAt, before)).returning({ id: alertDeliveries.id })).length,
  };
}
