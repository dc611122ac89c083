/**
 * Where the PostgreSQL stores run their statements: the pool, where each statement is its own transaction, or a
 * transaction already open. Writes that belong together run in one transaction, so readers on other connections
 * see all of them or none.
 */
import { is } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import type { PgDb } from ".";

/** A transaction on the shared database, as `db.transaction` hands it to its work. */
export type PgTx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];

/** The pool or an open transaction: every store function takes either. */
export type PgQueryable = PgDb | PgTx;

/**
 * Runs `work` in one transaction. Inside one already, it joins it rather than opening a savepoint: the enclosing
 * batch is the unit that commits or fails, and a savepoint per write would cost two more round trips.
 */
export function inTransaction<T>(db: PgQueryable, work: (tx: PgTx) => Promise<T>): Promise<T> {
  return is(db, PgTransaction) ? work(db as PgTx) : db.transaction(work);
}

/** Runs `work`'s reads on one snapshot, so that they all see the same commits of every other connection. */
export function readSnapshot<T>(db: PgQueryable, work: (tx: PgTx) => Promise<T>): Promise<T> {
  return is(db, PgTransaction) ? work(db as PgTx) : db.transaction(work, { isolationLevel: "repeatable read", accessMode: "read only" });
}
