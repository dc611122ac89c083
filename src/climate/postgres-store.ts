/** The climate store (store.ts) on the shared PostgreSQL database: drizzle-store.ts over Bun.sql. */
import type { PgDb } from "../db/postgres";
import { postgresDialect } from "../db/postgres/store-dialect";
import { drizzleClimateStore } from "./drizzle-store";

export const postgresClimateStore = (db: PgDb) => drizzleClimateStore(postgresDialect(db));
