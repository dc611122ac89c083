/**
 * Heartbeats and peers (src/db/postgres/nodes.ts): freshness and age as plain functions; servers (separate pools, each
 * with a clock the test drives) registering, going stale, stopping cleanly, coming back after their row was lost;
 * hour-old rows forgotten; an outage logged once.
 */
import { SQL } from "bun";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { drizzle } from "drizzle-orm/bun-sql";
import { hostname } from "node:os";
import { ManualClock } from "../../src/core/clock";
import { closePostgres, openPostgres, schema, type PgDb } from "../../src/db/postgres";
import { ageSeconds, freshness, NodeHeartbeat, peers, thisNode, type NodeInfo } from "../../src/db/postgres/nodes";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../support/postgres";
import { startTcpProxy } from "../support/tcp-proxy";

const T0 = Date.parse("2026-03-01T12:00:00Z");
const BEAT_MS = 30;

test("freshness: fresh up to 15 s since the last beat, stale after", () => {
  const cases: [number, string][] = [
    [0, "fresh"],
    [5, "fresh"],
    [15, "fresh"],
    [16, "stale"],
    [3599, "stale"],
  ];
  for (const [age, expected] of cases) expect(`${age} s ${freshness(age)}`).toBe(`${age} s ${expected}`);
});

test("age: whole seconds since the last beat, never negative when the other clock runs ahead", () => {
  const cases: [number, number][] = [
    [0, 0],
    [999, 0],
    [1000, 1],
    [15_999, 15],
    [16_000, 16],
    [-2500, 0],
  ];
  for (const [elapsed, expected] of cases) expect(`${elapsed} ms ${ageSeconds(T0, T0 + elapsed)}`).toBe(`${elapsed} ms ${expected}`);
});

test("this node: host-pid as its id, with its version, start and address", () => {
  expect(thisNode("1.2.3", "https://surf.example", T0)).toEqual({ id: `${hostname()}-${process.pid}`, host: hostname(), pid: process.pid, version: "1.2.3", startedAt: T0, address: "https://surf.example" });
});

describeWithPostgres("heartbeats", () => {
  let database: TestDatabase;
  let servers: PgDb[];
  beforeAll(async () => {
    database = await createTestDatabase();
    servers = await Promise.all([1, 2].map(() => openPostgres(database.url(), { max: 2 })));
  });
  afterAll(async () => {
    await Promise.all(servers.map(closePostgres));
    await database.drop();
  });

  const node = (id: string, startedAt = T0): NodeInfo => ({ id, host: "h", pid: 1, version: "1.0.0", startedAt, address: null });
  const seenAt = async (id: string) => ((await database.sql`SELECT seen_at::float8 AS s FROM cluster.nodes WHERE id = ${id}`) as { s: number }[])[0]?.s;
  async function until(condition: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error("condition not met in time");
      await Bun.sleep(10);
    }
  }

  test("two servers beat; one whose beats stop moving goes stale; a clean stop removes its row; a lost row comes back", async () => {
    const clockA = new ManualClock(T0);
    const clockB = new ManualClock(T0);
    const a = await NodeHeartbeat.start(servers[0]!, node("a"), { clock: clockA, everyMs: BEAT_MS });
    const b = await NodeHeartbeat.start(servers[1]!, node("b"), { clock: clockB, everyMs: BEAT_MS });
    expect((await peers(servers[0]!, T0)).map((p) => `${p.id} ${p.ageSeconds} ${p.freshness}`)).toEqual(["a 0 fresh", "b 0 fresh"]);

    clockA.advance(20_000);
    await until(async () => (await seenAt("a")) === T0 + 20_000);
    expect(await peers(servers[1]!, T0 + 20_000)).toEqual([
      { ...node("a"), seenAt: T0 + 20_000, ageSeconds: 0, freshness: "fresh" },
      { ...node("b"), seenAt: T0, ageSeconds: 20, freshness: "stale" },
    ]);

    await b.stop();
    expect((await peers(servers[0]!, T0 + 20_000)).map((p) => p.id)).toEqual(["a"]);

    await database.sql`DELETE FROM cluster.nodes WHERE id = 'a'`;
    await until(async () => (await seenAt("a")) !== undefined);
    expect((await peers(servers[0]!, T0 + 20_000))[0]).toMatchObject({ id: "a", startedAt: T0 });
    await a.stop();
    expect(await peers(servers[0]!, T0 + 20_000)).toEqual([]);
  });

  test("a server not heard from for an hour is left out at once, and its row deleted at the next beat", async () => {
    await database.sql`INSERT INTO cluster.nodes (id, host, pid, version, started_at, seen_at) VALUES ('gone', 'h', 1, '0.9.0', ${T0 - 7_200_000}, ${T0 - 3_600_001}), ('recent', 'h', 2, '0.9.0', ${T0 - 7_200_000}, ${T0 - 3_599_000})`;
    expect((await peers(servers[0]!, T0)).map((p) => `${p.id} ${p.freshness}`)).toEqual(["recent stale"]);
    const beating = await NodeHeartbeat.start(servers[0]!, node("here"), { clock: new ManualClock(T0), everyMs: BEAT_MS });
    expect(await seenAt("gone")).toBeUndefined();
    expect(await seenAt("recent")).toBe(T0 - 3_599_000);
    await beating.stop();
    await database.sql`DELETE FROM cluster.nodes`;
  });

  test("PostgreSQL unreachable for a while: one warning, one line when it answers again, the row fresh again; a stop without it still stops", async () => {
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: Number(new URL(database.url()).port) });
    // A pool of its own rather than openPostgres's, which waits 10 s for a connection before it reports a failure.
    const client = new SQL({ url: database.url().replace(/:\d+\//, `:${proxy.port}/`), max: 1, connectionTimeout: 1 });
    const behindProxy = drizzle({ client, schema }) as PgDb;
    const clock = new ManualClock(T0);
    let beats = 0; // each beat reads the clock once, for the time it writes
    const counting = { now: () => (beats++, clock.now()) };
    const lines: string[] = [];
    let beforeStop = 0;
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const heartbeat = await NodeHeartbeat.start(behindProxy, node("cut"), { clock: counting, everyMs: BEAT_MS });
      proxy.cut();
      clock.advance(30_000);
      await until(async () => lines.some((line) => line.includes("heartbeat: PostgreSQL does not answer")));
      const warnedAt = beats;
      await until(async () => beats >= warnedAt + 2); // a beat begun after the warning has failed too
      expect(await seenAt("cut")).toBe(T0);
      proxy.restore();
      await until(async () => (await seenAt("cut")) === T0 + 30_000);
      // The beat that wrote the row says so right after its write.
      await until(async () => lines.some((line) => line.includes("heartbeat: PostgreSQL answers again")));
      // A stop without the database still stops; the row is left to go stale.
      beforeStop = lines.length;
      proxy.cut();
      await heartbeat.stop();
    } finally {
      process.stderr.write = write;
      await client.close();
      await proxy.close();
    }
    const said = lines.slice(0, beforeStop).filter((line) => line.includes("heartbeat"));
    expect(said).toHaveLength(2);
    expect(said[0]).toMatch(/WARN .*heartbeat: PostgreSQL does not answer; retrying until it does/);
    expect(said[1]).toMatch(/INFO .*heartbeat: PostgreSQL answers again/);
    expect(lines.slice(beforeStop).at(-1)).toMatch(/WARN .*could not remove this server from the node list/);
    expect(await seenAt("cut")).toBe(T0 + 30_000);
  });
});
