/**
 * What a room's store needs of its database, so that one drizzle implementation (<room>/drizzle-store.ts) serves
 * SQLite and PostgreSQL. It is written against the PostgreSQL tables' types, whose SQLite twins are declared with them
 * (db/tables.ts); the statements it builds run on either dialect. A statement
 * outside a transaction is awaited. A transaction's work is a generator that yields its statements one by one
 * (`yield* run(…)`): SQLite runs each at once, so read, check and write share one BEGIN IMMEDIATE with no await
 * between them; PostgreSQL awaits each in its transaction.
 */
import { eq, sql, type SQL, type SQLWrapper, type Table } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { ChangeTopic } from "./postgres/changes";
import type { PgQueryable } from "./postgres/transaction";
import type { Tables } from "./tables";
import { readTransaction, schema, writeTransaction, type Db } from ".";

export type { Tables };

/** A transaction's work: each statement yielded, its rows sent back. */
export type Work<T> = Generator<PromiseLike<unknown>, T, unknown>;

/** Inside a Work: runs `statement` and answers what awaiting it would. */
export function* run<T>(statement: PromiseLike<T>): Work<T> {
  return (yield statement) as T;
}

/** The `meta` table's value under `key`, or null. */
export function* readMeta({ meta }: Tables, tx: PgQueryable, key: string): Work<string | null> {
  const [row] = yield* run(tx.select({ value: meta.value }).from(meta).where(eq(meta.key, key)));
  return row?.value ?? null;
}

/** Stores `value` under `key` in `meta`; null removes the key. */
export function* writeMeta({ meta }: Tables, tx: PgQueryable, key: string, value: string | null): Work<void> {
  if (value === null) yield* run(tx.delete(meta).where(eq(meta.key, key)));
  else yield* run(tx.insert(meta).values({ key, value }).onConflictDoUpdate({ target: meta.key, set: { value } }));
}

/** The `meta` table's small facts, each statement on its own. */
export function metaStore({ tables, direct }: StoreDialect) {
  return {
    read: (key: string) => direct((tx) => readMeta(tables, tx, key)),
    write: (key: string, value: string | null) => direct((tx) => writeMeta(tables, tx, key, value)),
    /** The value stored under `key`, storing `make()`'s first when there is none (the first writer wins a race). */
    once: (key: string, make: () => string) =>
      direct(function* (tx) {
        const stored = yield* readMeta(tables, tx, key);
        if (stored !== null) return stored;
        yield* run(tx.insert(tables.meta).values({ key, value: make() }).onConflictDoNothing());
        return (yield* readMeta(tables, tx, key))!;
      }),
  };
}

/** A select that can lock the rows it reads (PostgreSQL's `for update`). */
interface Lockable {
  for(strength: "update" | "key share", config?: { of: PgTable }): unknown;
}

export interface StoreDialect {
  db: PgQueryable;
  tables: Tables;
  /** Runs `work`'s statements on the connection, each one on its own. */
  direct<T>(work: (db: PgQueryable) => Work<T>): Promise<T>;
  /** Runs `work` in one write transaction. */
  write<T>(work: (tx: PgQueryable) => Work<T>): Promise<T>;
  /** Runs `work`'s reads on one snapshot. */
  read<T>(work: (tx: PgQueryable) => Work<T>): Promise<T>;
  /** The select, locking what it reads until the transaction ends (a no-op where the write transaction holds the whole database). */
  lock<Q extends Lockable>(query: Q, strength?: "update" | "key share", of?: PgTable): Q;
  /** Takes the lock named `name` until the transaction ends (nothing to do where the write transaction holds the whole database). */
  exclusive(tx: PgQueryable, name: string): Work<void>;
  /** Announces a change to the servers that keep a copy of `topic` (nothing to do for SQLite: one server). */
  notify(tx: PgQueryable, topic: ChangeTopic): Work<void>;
  /** `column` compared in code-point order, as SQLite's binary collation does, whatever the database's collation. */
  binary(column: SQLWrapper): SQL;
  /** `rows` split into statements that bind at most what the database allows: each row binds one parameter, or one per column of `into`. */
  chunks<T>(rows: readonly T[], into?: Table): T[][];
}

/** Reads answered at once, where the database answers synchronously (SQLite). */
export interface SyncReads {
  now<T>(work: (db: PgQueryable) => Work<T>): T;
  /** `work`'s reads in one transaction. */
  readNow<T>(work: (db: PgQueryable) => Work<T>): T;
}

/** `rows` in slices of `size`. */
export function slices<T>(rows: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < rows.length; i += size) result.push(rows.slice(i, i + size));
  return result;
}

/**
 * The rows of a multi-row upsert: the last row of each key, as row-by-row upserts keep (PostgreSQL refuses to update
 * one row twice in a statement), in key order, so that concurrent batches lock shared rows in the same order and
 * wait for each other instead of deadlocking.
 */
export function upsertRows<T>(rows: readonly T[], key: (row: T) => string): T[] {
  const last = new Map<string, T>();
  for (const row of rows) last.set(key(row), row);
  return [...last.keys()].sort().map((k) => last.get(k)!);
}

/** Rows per statement on SQLite: well under its limit of bound variables for any of the tables. */
const SQLITE_ROWS = 500;

/** Runs every statement of `work` at once, in the current turn: bun:sqlite answers synchronously. */
function runNow<T>(work: Work<T>): T {
  let step = work.next();
  while (!step.done) step = work.next((step.value as unknown as { all(): unknown }).all());
  return step.value;
}

/**
 * The store dialect of a SQLite database. The dialect boundary's cast: the SQLite connection and tables seen as
 * PostgreSQL's, declared with them (db/tables.ts); a statement only PostgreSQL has goes through `lock`, `exclusive`,
 * `notify` or `binary` instead, and `runNow` runs each statement through bun:sqlite's synchronous `all()`.
 */
export function sqliteDialect(db: Db): StoreDialect & SyncReads {
  const view = db as unknown as PgQueryable;
  return {
    now: (work) => runNow(work(view)),
    readNow: (work) => readTransaction(db, () => runNow(work(view))),
    db: view,
    tables: schema as unknown as Tables,
    direct: async (work) => runNow(work(view)),
    write: async (work) => writeTransaction(db, () => runNow(work(view))),
    read: async (work) => readTransaction(db, () => runNow(work(view))),
    lock: (query) => query,
    *exclusive() {},
    *notify() {},
    binary: (column) => sql`${column}`,
    chunks: (rows) => slices(rows, SQLITE_ROWS),
  };
}
