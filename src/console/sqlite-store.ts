/** The console store (store.ts) on SQLite: drizzle-store.ts over bun:sqlite. */
import type { Db } from "../db";
import { metaOnce } from "../db/meta";
import { sqliteDialect } from "../db/store-dialect";
import { drizzleConsoleStore } from "./drizzle-store";
import type { ConsoleStore } from "./store";

export const sqliteConsoleStore = (db: Db): ConsoleStore => ({ ...drizzleConsoleStore(sqliteDialect(db)), valueOnce: async (name, make) => metaOnce(db, name, make) });
