/** The console store (store.ts) on the shared PostgreSQL database, for several servers at once: drizzle-store.ts over Bun.sql. */
import type { PgDb } from "../db/postgres";
import { metaOnce } from "../db/postgres/meta";
import { postgresDialect } from "../db/postgres/store-dialect";
import { drizzleConsoleStore } from "./drizzle-store";
import type { ConsoleStore } from "./store";

export const postgresConsoleStore = (db: PgDb): ConsoleStore => ({ ...drizzleConsoleStore(postgresDialect(db)), valueOnce: (name, make) => metaOnce(db, name, make) });
