/** The embed store (store.ts) on the shared PostgreSQL database, for several servers at once: drizzle-store.ts over Bun.sql. */
import type { PgDb } from "../db/postgres";
import { postgresDialect } from "../db/postgres/store-dialect";
import { drizzleEmbedStore } from "./drizzle-store";

export const postgresEmbedStore = (db: PgDb) => drizzleEmbedStore(postgresDialect(db));
