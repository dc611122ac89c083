/**
 * The change feed (src/db/postgres/changes.ts) between "servers" that are separate pools on one database: a committed
 * change is heard on the others at once, a rolled-back one never; a change made while the LISTEN connection is down,
 * or while PostgreSQL is unreachable, is still noticed; an outage is logged once, however long it lasts.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { closePostgres, openPostgres, schema, type PgDb } from "../../src/db/postgres";
import { ChangeFeed, notifyChange, parseNotice, type ChangeTopic } from "../../src/db/postgres/changes";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../support/postgres";
import { ROOT } from "../support/env";
import { waitFor } from "../support/wait";

let database: TestDatabase;
let writer: PgDb;
let reader: PgDb;
const feeds: ChangeFeed[] = [];

async function feedOn(db: PgDb, safetyNetMs?: number): Promise<ChangeFeed> {
  const feed = await ChangeFeed.start(db, database.url(), { safetyNetMs });
  feeds.push(feed);
  return feed;
}

/** Resolves with the ms from now to the next change of `topic` the feed notices. */
function nextChange(feed: ChangeFeed, topic: ChangeTopic): Promise<number> {
  const start = performance.now();
  return new Promise((resolve) => {
    const unsubscribe = feed.subscribe(topic, () => {
      unsubscribe();
      resolve(performance.now() - start);
    });
  });
}

const counter = async (topic: ChangeTopic) => ((await database.sql`SELECT version::int AS v FROM cluster.change_counters WHERE topic = ${topic}`) as { v: number }[])[0]?.v ?? 0;

test("a notification's payload: a known topic and its version, anything else ignored", () => {
  const cases: [string, ReturnType<typeof parseNotice>][] = [
    ["access 1", { topic: "access", version: 1 }],
    ["forecasts 912", { topic: "forecasts", version: 912 }],
    ["tides 3", { topic: "tides", version: 3 }],
    ["alerts 3", null],
    ["access", null],
    ["access x", null],
    ["access 1 2", null],
    ["", null],
  ];
  for (const [payload, expected] of cases) expect(`${payload} -> ${JSON.stringify(parseNotice(payload))}`).toBe(`${payload} -> ${JSON.stringify(expected)}`);
});

describeWithPostgres("change feed", () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    writer = await openPostgres(database.url(), { max: 3 });
    reader = await openPostgres(database.url(), { max: 3 });
  });
  afterEach(async () => {
    while (feeds.length > 0) await feeds.pop()!.stop();
  });
  afterAll(async () => {
    await closePostgres(writer);
    await closePostgres(reader);
    await database.drop();
  });

  test("a change committed through one server is heard on another within 2 s, and its data is there when it is", async () => {
    // A safety net far away: only the notification can deliver this change in time.
    const feed = await feedOn(reader, 60_000);
    const heard = new Promise<{ ms: number; visible: string | undefined }>((resolve) => {
      const start = performance.now();
      feed.subscribe("access", () => {
        const ms = performance.now() - start;
        void reader
          .select()
          .from(schema.meta)
          .where(eq(schema.meta.key, "revoked"))
          .then((rows) => resolve({ ms, visible: rows[0]?.value }));
      });
    });
    await writer.transaction(async (tx) => {
      await tx.insert(schema.meta).values({ key: "revoked", value: "key_1" });
      await notifyChange(tx, "access");
    });
    const { ms, visible } = await heard;
    expect(ms).toBeLessThan(2000);
    expect(visible).toBe("key_1");
  });

  test("changeCheck has the shape of the SQLite one, per topic: true at first, then once per noticed change of its own topic", async () => {
    const feed = await feedOn(reader, 60_000);
    const access = feed.changeCheck("access");
    const spots = feed.changeCheck("spots");
    expect([access(), access(), spots(), spots()]).toEqual([true, false, true, false]);
    const heard = nextChange(feed, "access");
    await notifyChange(writer, "access");
    await heard;
    expect([access(), access(), spots()]).toEqual([true, false, false]);
    // A second copy of the same topic has its own memory.
    const another = feed.changeCheck("access");
    expect([another(), another()]).toEqual([true, false]);
  });

  test("a rolled-back transaction announces nothing: no listener call, no counter moved, even for the safety net", async () => {
    const feed = await feedOn(reader, 100);
    const check = feed.changeCheck("embeds");
    check();
    let calls = 0;
    feed.subscribe("embeds", () => calls++);
    const before = await counter("embeds");
    const rolledBack = await writer
      .transaction(async (tx) => {
        await tx.insert(schema.meta).values({ key: "embed", value: "e_1" });
        await notifyChange(tx, "embeds");
        throw new Error("changed my mind");
      })
      .catch((err: Error) => err.message);
    expect(rolledBack).toBe("changed my mind");
    // A change committed after it, noticed: an announcement of the rolled-back one would have come first.
    const marker = nextChange(feed, "spots");
    await notifyChange(writer, "spots");
    await marker;
    expect(calls).toBe(0);
    expect(check()).toBe(false);
    expect(await counter("embeds")).toBe(before);
  });

  test("the LISTEN connection killed: a change made right after is still noticed within 6 s, and later ones as before", async () => {
    const feed = await feedOn(reader);
    const [listening] = (await database.sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN "surfcast_changes"'`) as { pid: number }[];
    expect(listening).toBeDefined();
    await database.sql`SELECT pg_terminate_backend(${listening!.pid})`;
    const lost = nextChange(feed, "forecasts");
    await notifyChange(writer, "forecasts");
    expect(await lost).toBeLessThan(6000);

    await waitFor("the feed to LISTEN again", async () => {
      const again = (await database.sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN "surfcast_changes"'`) as { pid: number }[];
      return again.some((row) => row.pid !== listening!.pid);
    });
    const later = nextChange(feed, "spots");
    await notifyChange(writer, "spots");
    expect(await later).toBeLessThan(2000);
  });

  test("PostgreSQL unreachable for a while: one warning, the change made meanwhile noticed once it answers, one line saying so, and nothing else on stderr", async () => {
    const run = Bun.spawn([process.execPath, join(ROOT, "test/support/change-feed-outage.ts"), database.url()], { stdout: "pipe", stderr: "pipe", env: { ...process.env, SURFCAST_LOG_FORMAT: "", SURFCAST_LOG_LEVEL: "info" } });
    const [stdout, stderr, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { seenWhileCut: boolean; noticedMs: number };
    expect(result.seenWhileCut).toBe(false);
    expect(result.noticedMs).toBeLessThan(6000);
    // Bun's own LISTEN retry would add a console warning per attempt here.
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/WARN .*change feed: PostgreSQL does not answer; retrying until it does/);
    expect(lines[1]).toMatch(/INFO .*change feed: PostgreSQL answers again downSeconds=\d+/);
  });
});
