/** The tide store (store.ts) on the shared PostgreSQL database, for several servers at once: drizzle-store.ts over Bun.sql. */
import type { PgDb } from "../db/postgres";
import { postgresDialect } from "../db/postgres/store-dialect";
import { drizzleTideStore, type OtherWrites } from "./drizzle-store";

export const postgresTideStore = (db: PgDb, others: OtherWrites) => drizzleTideStore(postgresDialect(db), others);
