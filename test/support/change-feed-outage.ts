/**
 * A ChangeFeed whose PostgreSQL goes away for a while, run by test/db/postgres-changes.test.ts in a process of its
 * own: Bun writes its own LISTEN retry warnings straight to the process's stderr, where only a parent can see them.
 * The feed's connections go through a relay that is cut, a change is made meanwhile through a direct connection, then
 * the relay is restored. Prints one JSON line: whether the feed saw the change while cut, and how long after the
 * restore it noticed it.
 *
 * Usage: bun test/support/change-feed-outage.ts <database URL>
 */
import { closePostgres, openPostgres } from "../../src/db/postgres";
import { ChangeFeed, notifyChange } from "../../src/db/postgres/changes";
import { startTcpProxy } from "./tcp-proxy";

const url = process.argv[2]!;
const proxy = await startTcpProxy({ host: new URL(url).hostname, port: Number(new URL(url).port) });
const proxyUrl = url.replace(/:\d+\//, `:${proxy.port}/`);
const writer = await openPostgres(url, { max: 1 });
const behindProxy = await openPostgres(proxyUrl, { max: 2 });
const feed = await ChangeFeed.start(behindProxy, proxyUrl, { safetyNetMs: 100 });
const check = feed.changeCheck("access");
check();

proxy.cut();
await notifyChange(writer, "access");
await Bun.sleep(1500);
const seenWhileCut = check();

const restoredAt = performance.now();
const noticedMs = await new Promise<number>((resolve) => {
  const unsubscribe = feed.subscribe("access", () => {
    unsubscribe();
    resolve(performance.now() - restoredAt);
  });
  proxy.restore();
});
// Long enough for a LISTEN retry that was still scheduled to show itself.
await Bun.sleep(1000);

await feed.stop();
await closePostgres(behindProxy);
await closePostgres(writer);
await proxy.close();
console.log(JSON.stringify({ seenWhileCut, noticedMs }));
