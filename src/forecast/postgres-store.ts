/** The forecast store (store.ts) on the shared PostgreSQL database, for several servers at once: drizzle-store.ts over Bun.sql. */
import { postgresDialect } from "../db/postgres/store-dialect";
import type { PgQueryable } from "../db/postgres/transaction";
import { drizzleForecastStore } from "./drizzle-store";

export const postgresForecastStore = (db: PgQueryable) => drizzleForecastStore(postgresDialect(db));
