/** What a check answers once it holds: `check() && value` waits for the value. */
type Truthy<T> = Exclude<NonNullable<T>, false | 0 | "">;

/** Waiting on a condition instead of a fixed sleep: a busy machine makes a fixed wait either flaky or slow. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000, everyMs = 25): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}

/**
 * Until the server at `url` accepts `key`, made by another process (the CLI): it notices other processes' writes
 * at a request a second or so after its last look (db/changes.ts). Asks GET /v1/usage, which no daily quota counts;
 * the key's burst window does, so a test of a tight burst window waits on a key made after its own instead.
 */
export async function untilKeyAccepted(url: string, key: string): Promise<void> {
  await waitFor("the server to accept a key made by another process", async () => {
    const res = await fetch(`${url}/v1/usage`, { headers: { "X-API-Key": key } });
    await res.arrayBuffer();
    return res.status === 200;
  });
}
