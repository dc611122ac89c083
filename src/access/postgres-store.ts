/** The access store (store.ts) on the shared PostgreSQL database, for several servers at once: drizzle-store.ts over Bun.sql. */
import type { PgDb } from "../db/postgres";
import { postgresDialect } from "../db/postgres/store-dialect";
import type { PgQueryable } from "../db/postgres/transaction";
import { drizzleAccessStore, writePlans } from "./drizzle-store";

export const postgresAccessStore = (db: PgDb) => drizzleAccessStore(postgresDialect(db));

/**
 * Writes the plan table from PLAN_DEFAULTS (idempotent; run at every open). Unlike SQLite's, it writes without
 * reading first: an upsert here locks only the plan rows, not the whole database.
 */
export async function seedPostgresPlans(db: PgQueryable): Promise<void> {
  const dialect = postgresDialect(db);
  await dialect.direct((tx) => writePlans(dialect.tables, tx));
}
