/** The console store (store.ts) on SQLite: drizzle-store.ts over bun:sqlite. */
import type { Db } from "../db";
import { sqliteDialect } from "../db/store-dialect";
import { drizzleConsoleStore } from "./drizzle-store";

export const sqliteConsoleStore = (db: Db) => drizzleConsoleStore(sqliteDialect(db));
