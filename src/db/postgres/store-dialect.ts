/** The store dialect (db/store-dialect.ts) of the shared PostgreSQL database. */
import { sql } from "drizzle-orm";
import type { StoreDialect, Work } from "../store-dialect";
import { chunks, insertChunks } from "./batch-rows";
import { notifyChange } from "./changes";
import * as schema from "./schema";
import { inTransaction, readSnapshot, type PgQueryable } from "./transaction";

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
    chunks: (rows, into) => (into ? insertChunks(into, rows) : chunks(rows, 1)),
  };
}
