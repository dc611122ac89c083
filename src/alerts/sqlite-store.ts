/** The alert store (store.ts) on SQLite: drizzle-store.ts over bun:sqlite. */
import type { Db } from "../db";
import { sqliteDialect } from "../db/store-dialect";
import { drizzleAlertStore } from "./drizzle-store";

export const sqliteAlertStore = (db: Db) => drizzleAlertStore(sqliteDialect(db));
