/** The value of a call that must answer at once (a service over SQLite): a promise fails the test. */
import type { MaybePromise } from "../../src/core/maybe-promise";

export function atOnce<T>(value: MaybePromise<T>): T {
  if (value instanceof Promise) throw new Error("expected an answer at once, got a promise");
  return value;
}
