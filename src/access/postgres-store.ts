/** The access store (store.ts) on the shared PostgreSQL database, for several servers at once: drizzle-store.ts over Bun.sql. */
import type { PgDb } from "../db/postgres";
import { plans } from "../db/postgres/schema";
import { postgresDialect } from "../db/postgres/store-dialect";
import type { PgQueryable } from "../db/postgres/transaction";
import { excludedAll } from "../db/statements";
import { drizzleAccessStore } from "./drizzle-store";
import { PLAN_DEFAULTS, PLAN_NAMES } from "./plans";

export const postgresAccessStore = (db: PgDb) => drizzleAccessStore(postgresDialect(db));

/**
 * Writes the plan table from PLAN_DEFAULTS (idempotent; run at every open). Unlike SQLite's, it writes without
 * reading first: an upsert here locks only the plan rows, not the whole database.
 */
export async function seedPostgresPlans(db: PgQueryable): Promise<void> {
  const replaced = excludedAll({ dailyLimit: plans.dailyLimit, minuteLimit: plans.minuteLimit, maxKeys: plans.maxKeys, attributionRequired: plans.attributionRequired, maxAlerts: plans.maxAlerts });
  await db
    .insert(plans)
    .values(PLAN_NAMES.map((name) => ({ name, ...PLAN_DEFAULTS[name] })))
    .onConflictDoUpdate({ target: plans.name, set: replaced });
}
