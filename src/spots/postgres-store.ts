/**
 * The spot store (store.ts) on the shared PostgreSQL database, for several servers at once: drizzle-store.ts over
 * Bun.sql. `changed` is the change feed's check of the `spots` topic (`ChangeFeed.changeCheck("spots")`,
 * db/postgres/changes.ts), which every import announces.
 */
import type { PgDb } from "../db/postgres";
import { postgresDialect } from "../db/postgres/store-dialect";
import { drizzleCatalog } from "./drizzle-store";

export const postgresCatalog = (db: PgDb, changed: () => boolean) => drizzleCatalog(postgresDialect(db), changed);
