/** The observation store (store.ts) on SQLite: drizzle-store.ts over bun:sqlite. */
import type { Db } from "../db";
import { sqliteDialect } from "../db/store-dialect";
import { drizzleObservationStore } from "./drizzle-store";

export const sqliteObservationStore = (db: Db) => drizzleObservationStore(sqliteDialect(db));
