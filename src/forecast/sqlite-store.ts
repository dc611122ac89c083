/** The forecast store a service holds, on SQLite: store.ts's statements bound to one connection, answering promises. */
import { connect, type Connected } from "../db/async-store";
import type { Db } from "../db";
import * as sqliteStatements from "./store";

/** The forecast room's stored state as a service reaches it, on SQLite or PostgreSQL (postgres-store.ts). */
export type ForecastStore = Connected<typeof sqliteStatements>;

export const sqliteForecastStore = (db: Db): ForecastStore => connect(db, sqliteStatements);
