/** The alert store (store.ts) on the shared PostgreSQL database, for several servers at once: drizzle-store.ts over Bun.sql. */
import type { PgDb } from "../db/postgres";
import { postgresDialect } from "../db/postgres/store-dialect";
import { drizzleAlertStore } from "./drizzle-store";

export const postgresAlertStore = (db: PgDb) => drizzleAlertStore(postgresDialect(db));
