/**
 * The asynchronous form of a store, read off its synchronous SQLite one: the PostgreSQL stores are typed against
 * it, so a function missing or drifting on either side fails the typecheck.
 */

/** A function's asynchronous counterpart: the same parameters, a promise of the same result. */
export type Promised<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;

/** A store's functions, each taking its connection first, over connections of type `C` and answering promises. */
export type OverConnection<C, Store> = {
  [K in keyof Store]: Store[K] extends (db: never, ...rest: infer A) => infer R ? (db: C, ...rest: A) => Promise<R> : never;
};
