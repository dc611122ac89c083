/**
 * The alert store (store.ts) on the shared PostgreSQL database. An insert locks its account's row while it counts
 * the account's alerts, so two servers creating alerts for one account take turns and the plan's cap holds; a
 * ledger's rows are replaced in alert order, so two writers would wait for each other rather than deadlock (only the
 * refresh's holder evaluates).
 */
import { and, asc, count, desc, eq, gt, inArray, isNotNull, isNull, lt, lte, min, sql } from "drizzle-orm";
import type { PgDb } from "../db/postgres";
import { chunks, insertChunks } from "../db/postgres/batch-rows";
import { accounts, alertDeliveries, alerts, alertWindows, apiKeys } from "../db/postgres/schema";
import type { PgTx } from "../db/postgres/transaction";
import { candidateFields, sendableAt } from "./sqlite-store";
import { nextAttempt, recordOf, rowOf, takeInTurns, withLedgers, type AlertStore, type DeliveryRecord } from "./store";

async function insertDeliveries(tx: PgTx | PgDb, deliveries: readonly DeliveryRecord[]): Promise<void> {
  for (const chunk of insertChunks(alertDeliveries, deliveries)) await tx.insert(alertDeliveries).values(chunk);
}

export function postgresAlertStore(db: PgDb): AlertStore {
  const one = async (where: ReturnType<typeof eq>) => {
    const [row] = await db.select().from(alerts).where(where);
    return row ? recordOf(row) : null;
  };

  return {
    async insertAlert(record, accountId, check) {
      await db.transaction(async (tx) => {
        await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
        const [row] = await tx.select({ n: count() }).from(alerts).innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id)).where(eq(apiKeys.accountId, accountId));
        check(row?.n ?? 0);
        await tx.insert(alerts).values(rowOf(record));
      });
    },

    alertById: (id) => one(eq(alerts.id, id)),
    alertByCalendarTokenHash: (hash) => one(eq(alerts.calendarTokenHash, hash)),
    async alertByUnsubscribeTokenHash(hash) {
      const [row] = await db.select({ alert: alerts }).from(alertDeliveries).innerJoin(alerts, eq(alertDeliveries.alertId, alerts.id)).where(eq(alertDeliveries.unsubscribeTokenHash, hash)).limit(1);
      return row ? recordOf(row.alert) : null;
    },
    alertByConfirmTokenHash: (hash) => one(eq(alerts.confirmTokenHash, hash)),

    async confirmAlert(id, at) {
      const changed = await db
        .update(alerts)
        .set({ confirmedAt: at })
        .where(and(eq(alerts.id, id), isNull(alerts.confirmedAt)))
        .returning({ id: alerts.id });
      return changed.length > 0;
    },

    async alertsOfKeys(keyIds) {
      if (keyIds.length === 0) return [];
      // Ids in code-point order on a tie, as SQLite's binary collation sorts them.
      const rows = await db
        .select()
        .from(alerts)
        .where(inArray(alerts.keyId, [...keyIds]))
        .orderBy(asc(alerts.createdAt), asc(sql`${alerts.id} collate "C"`));
      return rows.map(recordOf);
    },

    async deleteAlert(id) {
      return (await db.delete(alerts).where(eq(alerts.id, id)).returning({ id: alerts.id })).length > 0;
    },

    async disableAlert(id, reason, at) {
      const changed = await db
        .update(alerts)
        .set({ disabledReason: reason, disabledAt: at })
        .where(and(eq(alerts.id, id), isNull(alerts.disabledReason)))
        .returning({ id: alerts.id });
      return changed.length > 0;
    },

    async watchedSpots() {
      const rows = await db
        .selectDistinct({ spotId: alerts.spotId })
        .from(alerts)
        .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
        .innerJoin(accounts, eq(apiKeys.accountId, accounts.id))
        .where(and(isNull(alerts.disabledReason), isNull(apiKeys.revokedAt), eq(accounts.disabled, false)));
      return rows.map((r) => r.spotId).sort();
    },

    async alertsToEvaluate(spotIds) {
      if (spotIds.length === 0) return [];
      const evaluated = and(inArray(alerts.spotId, [...spotIds]), isNull(alerts.disabledReason), isNotNull(alerts.confirmedAt), isNull(apiKeys.revokedAt), eq(accounts.disabled, false));
      const rows = await db
        .select({ alert: alerts })
        .from(alerts)
        .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
        .innerJoin(accounts, eq(apiKeys.accountId, accounts.id))
        .where(evaluated)
        .orderBy(asc(sql`${alerts.id} collate "C"`));
      const windows = await db
        .select({ alertId: alertWindows.alertId, start: alertWindows.start, end: alertWindows.end })
        .from(alertWindows)
        .innerJoin(alerts, eq(alertWindows.alertId, alerts.id))
        .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
        .innerJoin(accounts, eq(apiKeys.accountId, accounts.id))
        .where(evaluated)
        .orderBy(asc(alertWindows.alertId), asc(alertWindows.start));
      return withLedgers(rows, windows);
    },

    async saveEvaluation(ledgers, deliveries) {
      await db.transaction(async (tx) => {
        // An alert deleted since it was read is left out; the ones still there cannot be deleted until this commits.
        const wanted = [...new Set([...ledgers.map((l) => l.alertId), ...deliveries.map((d) => d.alertId)])].sort();
        const present = new Set<string>();
        for (const chunk of chunks(wanted, 1)) {
          const rows = await tx.select({ id: alerts.id }).from(alerts).where(inArray(alerts.id, chunk)).orderBy(asc(sql`${alerts.id} collate "C"`)).for("key share");
          for (const row of rows) present.add(row.id);
        }
        const kept = ledgers.filter((l) => present.has(l.alertId)).sort((a, b) => (a.alertId < b.alertId ? -1 : a.alertId > b.alertId ? 1 : 0));
        const windows = kept.flatMap((l) => l.windows.map((w) => ({ alertId: l.alertId, start: w.start, end: w.end })));
        for (const chunk of chunks(kept.map((l) => l.alertId), 1)) await tx.delete(alertWindows).where(inArray(alertWindows.alertId, chunk));
        for (const chunk of insertChunks(alertWindows, windows)) await tx.insert(alertWindows).values(chunk);
        await insertDeliveries(tx, deliveries.filter((d) => present.has(d.alertId)));
      });
    },

    async enqueue(deliveries) {
      await db.transaction((tx) => insertDeliveries(tx, deliveries));
    },

    async enqueueLimited(delivery, accountId, since, check) {
      await db.transaction(async (tx) => {
        // The account's row locked: two servers counting its sends at once take turns.
        await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
        const counted = and(eq(alertDeliveries.kind, delivery.kind), eq(alertDeliveries.attempt, 1), gt(alertDeliveries.scheduledAt, since));
        const alert = await tx.select({ at: alertDeliveries.scheduledAt }).from(alertDeliveries).where(and(counted, eq(alertDeliveries.alertId, delivery.alertId)));
        const account = await tx
          .select({ at: alertDeliveries.scheduledAt })
          .from(alertDeliveries)
          .innerJoin(alerts, eq(alertDeliveries.alertId, alerts.id))
          .innerJoin(apiKeys, eq(alerts.keyId, apiKeys.id))
          .where(and(counted, eq(apiKeys.accountId, accountId)));
        check({ alert: alert.map((r) => Number(r.at)), account: account.map((r) => Number(r.at)) });
        await insertDeliveries(tx, [delivery]);
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
      const candidates = await db.select({ id: ranked.id, scheduledAt: ranked.scheduledAt, accountId: ranked.accountId }).from(ranked).where(eq(ranked.place, 1));
      const order = takeInTurns(candidates, limit).map((r) => r.id);
      const rows = new Map<string, { delivery: DeliveryRecord; alert: typeof alerts.$inferSelect }>();
      for (const chunk of chunks(order, 1)) {
        for (const row of await db.select({ delivery: alertDeliveries, alert: alerts }).from(alertDeliveries).innerJoin(alerts, eq(alertDeliveries.alertId, alerts.id)).where(inArray(alertDeliveries.id, chunk))) rows.set(row.delivery.id, row);
      }
      const due = order.flatMap((id) => rows.get(id) ?? []);
      const firsts = new Map<string, number | null>();
      for (const chunk of chunks([...new Set(due.map((d) => d.delivery.eventId))], 1)) {
        const rows = await db.select({ eventId: alertDeliveries.eventId, first: min(alertDeliveries.attemptedAt) }).from(alertDeliveries).where(inArray(alertDeliveries.eventId, chunk)).groupBy(alertDeliveries.eventId);
        for (const row of rows) firsts.set(row.eventId, row.first === null ? null : Number(row.first));
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

    async recordAttempt(id, { confirmTokenHash, ...result }) {
      return db.transaction(async (tx) => {
        const recorded = await tx
          .update(alertDeliveries)
          // Its claim (claimDeliveries) moved its scheduled time ahead: the log shows it when it was attempted.
          .set({ ...result, scheduledAt: result.attemptedAt })
          .where(and(eq(alertDeliveries.id, id), eq(alertDeliveries.outcome, "pending")))
          .returning({ alertId: alertDeliveries.alertId });
        if (recorded.length > 0 && confirmTokenHash) await tx.update(alerts).set({ confirmTokenHash, confirmSentAt: result.attemptedAt }).where(eq(alerts.id, recorded[0]!.alertId));
        return recorded.length > 0;
      });
    },

    async scheduleRetry(previous, id, at) {
      await insertDeliveries(db, [nextAttempt(previous, id, at)]);
    },

    async deliveriesOf(alertId, limit) {
      return db.select().from(alertDeliveries).where(eq(alertDeliveries.alertId, alertId)).orderBy(desc(alertDeliveries.scheduledAt), desc(alertDeliveries.attempt)).limit(limit);
    },

    async pruneDeliveries(before) {
      return (await db.delete(alertDeliveries).where(lt(alertDeliveries.scheduledAt, before)).returning({ id: alertDeliveries.id })).length;
    },
  };
}
