/**
 * Usage read for the console, from the same counters the meter writes and GET /v1/usage reports. Callers flush
 * the meter first (the console does on each page), so stored counts are the whole truth.
 */
import { and, eq, gte, inArray, sql } from "drizzle-orm";
import type { Db } from "../db";
import { apiKeys, usageCounters } from "../db/schema";

/** The last UTC day each key was counted on (keys never used are absent). */
export function lastUsedDays(db: Db, keyIds: string[]): Map<string, string> {
  if (keyIds.length === 0) return new Map();
  const rows = db
    .select({ keyId: usageCounters.keyId, day: sql<string>`max(${usageCounters.day})` })
    .from(usageCounters)
    .where(inArray(usageCounters.keyId, keyIds))
    .groupBy(usageCounters.keyId)
    .all();
  return new Map(rows.map((r) => [r.keyId, r.day]));
}

/** Requests counted on `day` per key, for the given keys (keys without requests are absent). */
export function dayTotalsByKey(db: Db, keyIds: string[], day: string): Map<string, number> {
  if (keyIds.length === 0) return new Map();
  const rows = db
    .select({ keyId: usageCounters.keyId, n: sql<number>`sum(${usageCounters.count})` })
    .from(usageCounters)
    .where(and(inArray(usageCounters.keyId, keyIds), eq(usageCounters.day, day)))
    .groupBy(usageCounters.keyId)
    .all();
  return new Map(rows.map((r) => [r.keyId, r.n]));
}

/** Requests counted on `day` per account, over all the account's keys (accounts without requests are absent). */
export function dayTotalsByAccount(db: Db, accountIds: number[], day: string): Map<number, number> {
  if (accountIds.length === 0) return new Map();
  const rows = db
    .select({ accountId: apiKeys.accountId, n: sql<number>`sum(${usageCounters.count})` })
    .from(apiKeys)
    .innerJoin(usageCounters, and(eq(usageCounters.keyId, apiKeys.id), eq(usageCounters.day, day)))
    .where(inArray(apiKeys.accountId, accountIds))
    .groupBy(apiKeys.accountId)
    .all();
  return new Map(rows.map((r) => [r.accountId, r.n]));
}

/** Counts per UTC day and endpoint from `firstDay` on, summed over the given keys. */
export function countsByDay(db: Db, keyIds: string[], firstDay: string): { day: string; endpoint: string; n: number }[] {
  if (keyIds.length === 0) return [];
  return db
    .select({ day: usageCounters.day, endpoint: usageCounters.endpoint, n: sql<number>`sum(${usageCounters.count})` })
    .from(usageCounters)
    .where(and(inArray(usageCounters.keyId, keyIds), gte(usageCounters.day, firstDay)))
    .groupBy(usageCounters.day, usageCounters.endpoint)
    .all();
}
