/**
 * The asynchronous form of a store, read off its synchronous SQLite one: the PostgreSQL stores are typed against
 * it, so a function missing or drifting on either side fails the typecheck.
 */

/** A store's functions, each taking its connection first, over connections of type `C` and answering promises. */
export type OverConnection<C, Store> = {
  [K in keyof Store]: Store[K] extends (db: never, ...rest: infer A) => infer R ? (db: C, ...rest: A) => Promise<R> : never;
};

/** A store's functions bound to one connection, answering promises: what a service holds, whatever the database. */
export type Connected<Store> = {
  [K in keyof Store]: Store[K] extends (db: never, ...rest: infer A) => infer R ? (...rest: A) => Promise<Awaited<R>> : never;
};

/**
 * Binds every function of a store to `db`. A synchronous store (SQLite) runs at once and its answer or throw arrives
 * as a settled promise, so callers treat both databases alike.
 */
export function connect<C, Store extends Record<string, (db: C, ...rest: never[]) => unknown>>(db: C, store: Store): Connected<Store> {
  const bound = Object.entries(store).map(([name, run]) => [name, async (...rest: never[]) => run(db, ...rest)]);
  return Object.fromEntries(bound) as Connected<Store>;
}
