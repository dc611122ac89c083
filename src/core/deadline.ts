/**
 * Work that must settle within a deadline: its outcome, or `late()`'s error once `ms` have passed (a late outcome is
 * dropped).
 *
 * The deadline is given one more turn of the event loop before it rejects: a loop that was blocked past it (a long
 * synchronous task, a collection, a loaded machine) runs due timers before the input already waiting on its
 * sockets, so an answer that arrived in time would otherwise lose to its own deadline and a busy server would report
 * Redis or PostgreSQL away when it was only late to read them.
 */
export function withinDeadline<T>(work: PromiseLike<T>, ms: number, late: () => Error, failed: (err: unknown) => unknown = (err) => err): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => setImmediate(() => reject(late())), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(failed(err));
      },
    );
  });
}
