/** The access store (store.ts) on SQLite: drizzle-store.ts over bun:sqlite. */
import { writeTransaction, type Db } from "../db";
import { plans } from "../db/schema";
import { sqliteDialect } from "../db/store-dialect";
import { drizzleAccessStore, writePlans } from "./drizzle-store";
import { PLAN_DEFAULTS, PLAN_NAMES } from "./plans";

export const sqliteAccessStore = (db: Db) => drizzleAccessStore(sqliteDialect(db));

/** Whether the stored plan table already says what PLAN_DEFAULTS says. */
function plansCurrent(db: Db): boolean {
  const stored = new Map(db.select().from(plans).all().map((row) => [row.name, row]));
  return PLAN_NAMES.every((name) => {
    const row = stored.get(name);
    const p = PLAN_DEFAULTS[name];
    return row !== undefined && row.dailyLimit === p.dailyLimit && row.minuteLimit === p.minuteLimit && row.maxKeys === p.maxKeys && row.attributionRequired === p.attributionRequired && row.maxAlerts === p.maxAlerts;
  });
}

/**
 * Writes the plan table from PLAN_DEFAULTS (idempotent; run at every open). Only when it differs: every console
 * command opens the database, and a write here would make each of them queue for the write lock.
 */
export function seedPlans(db: Db): void {
  if (plansCurrent(db)) return;
  const dialect = sqliteDialect(db);
  writeTransaction(db, () => dialect.now((tx) => writePlans(dialect.tables, tx)));
}
