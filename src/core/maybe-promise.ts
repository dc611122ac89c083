/**
 * A value at once when it is at hand (a cache hit), or a promise of it when a store had to be asked first: the hot
 * path answers a hit synchronously, without a turn of the event loop per layer.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next` of the value: at once for a value, after it for a promise. */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Every value, at once when none is a promise. */
export function allOf<T>(values: readonly MaybePromise<T>[]): MaybePromise<T[]> {
  return values.some((v) => v instanceof Promise) ? Promise.all(values) : (values as T[]);
}
