/** The embed store (store.ts) on SQLite: drizzle-store.ts over bun:sqlite. */
import type { Db } from "../db";
import { sqliteDialect } from "../db/store-dialect";
import { drizzleEmbedStore } from "./drizzle-store";

export const sqliteEmbedStore = (db: Db) => drizzleEmbedStore(sqliteDialect(db));
