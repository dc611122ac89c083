/** The store dialect (db/store-dialect.ts) of the shared PostgreSQL database. */
import { getTableColumns, sql } from "drizzle-orm";
import { slices, type StoreDialect, type Work } from "../store-dialect";
import { notifyChange } from "./changes";
import * as schema from "./schema";
import { inTransaction, readSnapshot, type PgQueryable } from "./transaction";

/** PostgreSQL binds at most this many parameters in one statement. */
const MAX_PARAMETERS = 65_535;

/** Awaits each statement of `work` in turn. */
async function runAwaiting<T>(work: Work<T>): Promise<T> {
  let step = work.next();
  while (!step.done) step = work.next(await step.value);
  return step.value;
}

/** The store dialect of the shared database, or of a transaction open on it, which every write then joins. */
export function postgresDialect(db: PgQueryable): StoreDialect {
  return {
    db,
    tables: schema,
    direct: (work) => runAwaiting(work(db)),
    write: (work) => inTransaction(db, (tx) => runAwaiting(work(tx))),
    read: (work) => readSnapshot(db, (tx) => runAwaiting(work(tx))),
    lock: (query, strength = "update", of) => (query.for(strength, of && { of }), query),
    *exclusive(tx: PgQueryable, name) {
      yield tx.execute(sql`select pg_advisory_xact_lock(hashtext(${name}))`);
    },
    *notify(tx: PgQueryable, topic) {
      yield notifyChange(tx, topic);
    },
    binary: (column) => sql`${column} collate "C"`,
    chunks: (rows, into) => slices(rows, Math.floor(MAX_PARAMETERS / (into ? Object.keys(getTableColumns(into)).length : 1))),
  };
}
