/** The climate store (store.ts) on SQLite: drizzle-store.ts over bun:sqlite. */
import type { Db } from "../db";
import { sqliteDialect } from "../db/store-dialect";
import { drizzleClimateStore } from "./drizzle-store";

export const sqliteClimateStore = (db: Db) => drizzleClimateStore(sqliteDialect(db));
