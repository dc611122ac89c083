/** Work that must settle within a deadline: its outcome, or `late()`'s error once `ms` have passed (a late outcome is dropped). */
export function withinDeadline<T>(work: PromiseLike<T>, ms: number, late: () => Error, failed: (err: unknown) => unknown = (err) => err): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(late()), ms);
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
