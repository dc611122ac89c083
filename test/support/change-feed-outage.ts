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
import { waitFor } from "./wait";

const url = process.argv[2]!;
const proxy = await startTcpProxy({ host: new URL(url).hostname, port: Number(new URL(url).port) });
const proxyUrl = url.replace(/:\d+\//, `:${proxy.port}/`);
const writer = await openPostgres(url, { max: 1 });
const behindProxy = await openPostgres(proxyUrl, { max: 2 });
const feed = await ChangeFeed.start(behindProxy, proxyUrl, { safetyNetMs: 100 });
const check = feed.changeCheck("access");
check();
/** The backends listening for changes on this database now. */
const listening = async () => ((await writer.$client`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN "surfcast_changes"'`) as { pid: number }[]).map((row) => row.pid);
const listeningBefore = new Set(await listening());

proxy.cut();
await notifyChange(writer, "access");
// The feed tried to reach PostgreSQL again and again (its safety net, its LISTEN's reconnection) and was refused.
const refusedAtCut = proxy.refused();
await waitFor("the feed's attempts while cut", () => proxy.refused() >= refusedAtCut + 5);
const seenWhileCut = check();

const restoredAt = performance.now();
const noticedMs = await new Promise<number>((resolve) => {
  const unsubscribe = feed.subscribe("access", () => {
    unsubscribe();
    resolve(performance.now() - restoredAt);
  });
  proxy.restore();
});
// Listening again: no LISTEN retry is still scheduled to show itself later.
await waitFor("the feed to LISTEN again", async () => (await listening()).some((pid) => !listeningBefore.has(pid)));

await feed.stop();
await closePostgres(behindProxy);
await closePostgres(writer);
await proxy.close();
console.log(JSON.stringify({ seenWhileCut, noticedMs }));
