/**
 * Job leases (src/db/postgres/lease.ts) between "servers" that are separate pools on one database: one runs a slot
 * and the others skip it, a finished slot is not run again, a slot whose runner's connection dies is taken over, and
 * a failed or stopped run is recorded as such.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/clock";
import { closePostgres, openPostgres, type PgDb } from "../../src/db/postgres";
import { lastFailureElsewhere, runOnce, type Lease, type LeaseOutcome } from "../../src/db/postgres/lease";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../support/postgres";
import { waitFor } from "../support/wait";

const CHECK_MS = 100;
const T0 = Date.parse("2026-03-01T06:00:00Z");

let database: TestDatabase;
let nodes: PgDb[];

/** A job that runs until `finish` is called or its signal aborts, counting its starts. */
function gatedJob() {
  let starts = 0;
  let finish!: (value: string) => void;
  const finished = new Promise<string>((resolve) => (finish = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const job = (signal: AbortSignal) => {
    starts++;
    started();
    return new Promise<string>((resolve, reject) => {
      void finished.then(resolve);
      signal.addEventListener("abort", () => reject(new Error("stopped")));
    });
  };
  return { job, finish, running, starts: () => starts };
}

const slotRows = async (name: string) =>
  (await database.sql`SELECT slot, node, started_at::float8 AS "startedAt", finished_at::float8 AS "finishedAt", outcome FROM cluster.job_runs WHERE name = ${name} ORDER BY slot`) as {
    slot: string;
    node: string;
    startedAt: number;
    finishedAt: number | null;
    outcome: string | null;
  }[];

/** `db` as a server that counts its attempts at a lease (each reserves a connection of its pool, and only that). */
function counting(db: PgDb): { db: PgDb; attempts: () => number } {
  let attempts = 0;
  const client = Object.create(db.$client, { reserve: { value: () => (attempts++, db.$client.reserve()) } }) as PgDb["$client"];
  return { db: Object.create(db, { $client: { value: client } }) as PgDb, attempts: () => attempts };
}

/** The backends holding an advisory lock on the test database: the lease connections. */
const leaseHolders = async () => ((await database.sql`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`) as { pid: number }[]).map((r) => r.pid);

describeWithPostgres("job leases", () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    nodes = await Promise.all([1, 2, 3].map(() => openPostgres(database.url(), { max: 4 })));
  });
  afterAll(async () => {
    await Promise.all(nodes.map(closePostgres));
    await database.drop();
  });

  const lease = (name: string, slot: string, node: number): Lease => ({ name, slot, node: `node-${node}` });

  test("three servers at once: one runs the slot, the others hear it is held; then a late one skips the finished slot, and a new slot runs", async () => {
    const clock = new ManualClock(T0);
    const gate = gatedJob();
    let answered = 0;
    const outcomes = nodes.map((db, i) => runOnce(db, lease("refresh", "06:00", i + 1), gate.job, { clock, checkMs: CHECK_MS }).finally(() => answered++));
    await gate.running;
    await waitFor("the other two to hear it is held", () => answered === 2);
    clock.advance(60_000);
    gate.finish("done");
    const settled = await Promise.all(outcomes);

    expect(gate.starts()).toBe(1);
    const winner = settled.findIndex((o) => o.ran);
    expect(settled[winner]).toEqual({ ran: true, result: "done" });
    expect(settled.filter((o) => !o.ran).map((o) => (o as { reason: string }).reason)).toEqual(["held-elsewhere", "held-elsewhere"]);
    expect(await slotRows("refresh")).toEqual([{ slot: "06:00", node: `node-${winner + 1}`, startedAt: T0, finishedAt: T0 + 60_000, outcome: "ok" }]);
    expect(await leaseHolders()).toEqual([]);

    const late = gatedJob();
    expect(await runOnce(nodes[(winner + 1) % 3]!, lease("refresh", "06:00", 9), late.job, { clock })).toEqual({ ran: false, reason: "done-elsewhere", by: `node-${winner + 1}` });
    expect(late.starts()).toBe(0);

    const next = await runOnce(nodes[(winner + 1) % 3]!, lease("refresh", "18:00", 9), async () => "again", { clock });
    expect(next).toEqual({ ran: true, result: "again" });
    // Another job's lease is its own: the same slot name of another job runs.
    expect(await runOnce(nodes[0]!, lease("tides", "06:00", 1), async () => 1, { clock })).toEqual({ ran: true, result: 1 });
  });

  test("followers wait for the runner: done-elsewhere once it finishes, and the job ran once", async () => {
    const gate = gatedJob();
    const servers = nodes.map(counting);
    const outcomes = servers.map(({ db }, i) => runOnce(db, lease("follow", "slot", i + 1), gate.job, { follow: true, checkMs: CHECK_MS }));
    await gate.running;
    await waitFor("both followers to try again", () => servers.filter((s) => s.attempts() >= 3).length === 2);
    gate.finish("done");
    const settled = await Promise.all(outcomes);
    expect(gate.starts()).toBe(1);
    const winner = settled.findIndex((o) => o.ran);
    expect(settled.filter((o) => !o.ran)).toEqual([
      { ran: false, reason: "done-elsewhere", by: `node-${winner + 1}` },
      { ran: false, reason: "done-elsewhere", by: `node-${winner + 1}` },
    ]);
  });

  test("the runner's connection killed mid-job: its job is told to stop, nothing is recorded as finished, and a follower takes the slot over", async () => {
    const clock = new ManualClock(T0);
    const first = gatedJob();
    const holder = runOnce(nodes[0]!, lease("torn", "slot", 1), first.job, { clock, checkMs: CHECK_MS });
    await first.running;
    const second = gatedJob();
    const following = counting(nodes[1]!);
    const follower = runOnce(following.db, lease("torn", "slot", 2), second.job, { follow: true, clock, checkMs: CHECK_MS });
    await waitFor("the follower to try again", () => following.attempts() >= 3);
    expect(second.starts()).toBe(0);

    const holders = await leaseHolders();
    expect(holders).toHaveLength(1);
    clock.advance(1000);
    await database.sql`SELECT pg_terminate_backend(${holders[0]!})`;
    expect(await holder).toEqual({ ran: false, reason: "interrupted" });
    await second.running;
    expect(await slotRows("torn")).toEqual([{ slot: "slot", node: "node-2", startedAt: T0 + 1000, finishedAt: null, outcome: null }]);
    second.finish("taken over");
    expect(await follower).toEqual({ ran: true, result: "taken over" });
    expect((await slotRows("torn"))[0]).toMatchObject({ node: "node-2", finishedAt: T0 + 1000, outcome: "ok" });
  });

  test("a slot left unfinished by a dead runner is run by the next caller, without following", async () => {
    await database.sql`INSERT INTO cluster.job_runs (name, slot, node, started_at) VALUES ('orphan', 'slot', 'gone', ${T0})`;
    expect(await runOnce(nodes[2]!, lease("orphan", "slot", 3), async () => "resumed")).toEqual({ ran: true, result: "resumed" });
    expect((await slotRows("orphan"))[0]).toMatchObject({ node: "node-3", outcome: "ok" });
  });

  test("a job that throws finishes its slot as failed (no other server retries it) and the error reaches the caller", async () => {
    const failure = await runOnce(nodes[0]!, lease("failing", "slot", 1), async () => {
      throw new Error("upstream down");
    }).catch((err: unknown) => err);
    expect((failure as Error).message).toBe("upstream down");
    expect((await slotRows("failing"))[0]).toMatchObject({ node: "node-1", outcome: "failed" });
    expect(await runOnce(nodes[1]!, lease("failing", "slot", 2), async () => "retry")).toEqual({ ran: false, reason: "done-elsewhere", by: "node-1" });
    expect(await leaseHolders()).toEqual([]);
  });

  test("a job's last failure on another server: its time for the others, none for the server that failed, and later successes do not hide it", async () => {
    const clock = new ManualClock(T0);
    const fail = async () => {
      throw new Error("order refused");
    };
    await runOnce(nodes[0]!, lease("order", "first", 1), fail, { clock }).catch(() => {});
    clock.advance(1000);
    await runOnce(nodes[1]!, lease("order", "second", 2), async () => "declined", { clock });
    expect(await lastFailureElsewhere(nodes[2]!, "order", "node-3")).toBe(T0);
    expect(await lastFailureElsewhere(nodes[2]!, "order", "node-2")).toBe(T0);
    expect(await lastFailureElsewhere(nodes[2]!, "order", "node-1")).toBeNull();
    expect(await lastFailureElsewhere(nodes[2]!, "another job", "node-3")).toBeNull();
  });

  test("a caller that stops mid-job leaves the slot unfinished and the lock free: the next server runs it", async () => {
    const stop = new AbortController();
    const gate = gatedJob();
    const stopped = runOnce(nodes[0]!, lease("stopping", "slot", 1), gate.job, { signal: stop.signal });
    await gate.running;
    stop.abort();
    expect(await stopped).toEqual({ ran: false, reason: "interrupted" });
    expect((await slotRows("stopping"))[0]).toMatchObject({ finishedAt: null });
    expect(await runOnce(nodes[1]!, lease("stopping", "slot", 2), async () => "next")).toEqual({ ran: true, result: "next" });
  });

  test("a follower stopped while another server runs answers held-elsewhere", async () => {
    const gate = gatedJob();
    const holder = runOnce(nodes[0]!, lease("patient", "slot", 1), gate.job, { checkMs: CHECK_MS });
    await gate.running;
    const stop = new AbortController();
    const following = counting(nodes[1]!);
    const follower = runOnce(following.db, lease("patient", "slot", 2), async () => "never", { follow: true, signal: stop.signal, checkMs: CHECK_MS });
    await waitFor("the follower to try again", () => following.attempts() >= 3);
    stop.abort();
    const outcome: LeaseOutcome<string> = await follower;
    expect(outcome).toEqual({ ran: false, reason: "held-elsewhere", by: "node-1" });
    gate.finish("done");
    expect(await holder).toEqual({ ran: true, result: "done" });
  });

  test("finished runs older than 30 days are forgotten when the job next finishes", async () => {
    const clock = new ManualClock(T0);
    await runOnce(nodes[0]!, lease("old", "a", 1), async () => 1, { clock });
    clock.advance(20 * 86_400_000);
    await runOnce(nodes[0]!, lease("old", "b", 1), async () => 1, { clock });
    clock.advance(11 * 86_400_000);
    await runOnce(nodes[0]!, lease("old", "c", 1), async () => 1, { clock });
    expect((await slotRows("old")).map((r) => r.slot)).toEqual(["b", "c"]);
  });
});
