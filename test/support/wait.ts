/** Waiting on a condition instead of a fixed sleep: a busy machine makes a fixed wait either flaky or slow. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000, everyMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}
