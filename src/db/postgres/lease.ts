/**
 * One run, not one per server: of the servers sharing a database, one runs a job's slot (the start-up refresh, a
 * scheduled refresh) and the others skip it. The runner holds a session-level advisory lock named after the job on a
 * connection reserved for the run. PostgreSQL itself releases it when that connection goes, so a server that dies
 * mid-run frees the job for the next one and no lock outlives its holder. `cluster.job_runs` records which slots
 * finished: a server that gets the lock after another finished the same slot skips it, and one that finds the slot
 * started but unfinished (its runner died) runs it again.
 */
import type { ReservedSQL } from "bun";
import { and, desc, eq, isNotNull, lt, ne } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { systemClock, type Clock } from "../../core/clock";
import type { PgDb } from "./index";
import { jobRuns } from "./schema";

export interface Lease {
  /** The job. The lock is per job, not per slot: two slots of one job never run at once. */
  name: string;
  /** Which run of the job: the same text on every server for the same run, such as the scheduled time in ISO form. */
  slot: string;
  /** This server's id (nodes.ts), recorded as the slot's runner. */
  node: string;
}

export type LeaseOutcome<T> =
  | { ran: true; result: T }
  /** Another server holds the job (running this slot, or still an earlier one); `by` when it is this slot's runner. */
  | { ran: false; reason: "held-elsewhere"; by?: string }
  /** Another server already finished this slot. */
  | { ran: false; reason: "done-elsewhere"; by: string }
  /** This server started the slot but lost its lease or was stopped: nothing recorded, the next holder runs it. */
  | { ran: false; reason: "interrupted" };

export interface LeaseOptions {
  /**
   * While another server holds the job, keep watching instead of answering held-elsewhere: done-elsewhere once it
   * finishes the slot, or run the slot when it dies without finishing.
   */
  follow?: boolean;
  /** Stops following, and tells the job to stop (through the job's own signal). */
  signal?: AbortSignal;
  clock?: Clock;
  /** How often the runner checks that its lease still holds, and a follower looks again. */
  checkMs?: number;
}

/** The advisory-lock key space of job leases (the two-key form), apart from the migrations' single-key lock. */
const LEASE_LOCKS = 0x5375_7266;
const CHECK_MS = 2000;
/**
 * A check still unanswered after this many intervals counts as a lost lease: a busy event loop delays an answer, a
 * connection to a vanished server never brings one.
 */
const PATIENCE = 5;
/** Finished runs are forgotten after this: only a slot still being retried needs its row. */
const KEEP_RUNS_MS = 30 * 86_400_000;
/**
 * TCP keepalive on the lease connection, in seconds: a server whose machine vanishes (no FIN, no RST) is noticed by
 * PostgreSQL within about half a minute instead of the system's default two hours, and its lock released.
 */
const KEEPALIVE = { idle: "10", interval: "5", count: "3" };

/**
 * Runs `job` for `lease.slot` if no other server runs the job now and none finished this slot; see LeaseOutcome. A
 * job that throws still finishes its slot (outcome "failed"): retrying is the runner's business, not every server's.
 * The error is rethrown. The job should stop when its signal aborts: its lease is gone or the caller stopped it.
 */
export async function runOnce<T>(db: PgDb, lease: Lease, job: (signal: AbortSignal) => Promise<T>, options: LeaseOptions = {}): Promise<LeaseOutcome<T>> {
  const checkMs = options.checkMs ?? CHECK_MS;
  for (;;) {
    const outcome = await attempt(db, lease, job, { clock: options.clock ?? systemClock, checkMs, stop: options.signal });
    if (outcome.ran || outcome.reason !== "held-elsewhere" || !options.follow) return outcome;
    if (!(await pause(checkMs, options.signal))) return outcome;
  }
}

/** When a run of the job last failed on another server than `node` (ms), or null when none did (in the runs kept). */
export async function lastFailureElsewhere(db: PgDb, name: string, node: string): Promise<number | null> {
  const [run] = await db
    .select({ finishedAt: jobRuns.finishedAt })
    .from(jobRuns)
    .where(and(eq(jobRuns.name, name), ne(jobRuns.node, node), eq(jobRuns.outcome, "failed")))
    .orderBy(desc(jobRuns.finishedAt))
    .limit(1);
  return run?.finishedAt ?? null;
}

interface Settings {
  clock: Clock;
  checkMs: number;
  stop: AbortSignal | undefined;
}

/** The connection reserved for one attempt, the same through drizzle, and whether it holds the lock or lost it. */
interface Session {
  connection: ReservedSQL;
  runs: ReturnType<typeof drizzle>;
  locked: boolean;
  lost: boolean;
}

const thisSlot = (lease: Lease) => and(eq(jobRuns.name, lease.name), eq(jobRuns.slot, lease.slot));

async function attempt<T>(db: PgDb, lease: Lease, job: (signal: AbortSignal) => Promise<T>, settings: Settings): Promise<LeaseOutcome<T>> {
  if (settings.stop?.aborted) return { ran: false, reason: "held-elsewhere" };
  const connection = await db.$client.reserve();
  const session: Session = { connection, runs: drizzle({ client: connection }), locked: false, lost: false };
  let held: LeaseOutcome<T> | { failed: unknown };
  try {
    const [lock] = await connection`SELECT pg_try_advisory_lock(${LEASE_LOCKS}, hashtext(${lease.name})) AS locked`;
    session.locked = lock.locked === true;
    const [run] = await session.runs.select().from(jobRuns).where(thisSlot(lease));
    if (run?.finishedAt != null) return { ran: false, reason: "done-elsewhere", by: run.node };
    if (!session.locked) return { ran: false, reason: "held-elsewhere", by: run?.node };
    held = await hold(session, lease, job, settings);
  } catch (err) {
    session.lost = true;
    throw err;
  } finally {
    await letGo(session, lease.name);
  }
  // A job's own error is rethrown only now, with the lock released and the connection back in the pool.
  if ("failed" in held) throw held.failed;
  return held;
}

/** Runs the job under the lock: records this server as the slot's runner, then the slot's end unless interrupted. */
async function hold<T>(session: Session, lease: Lease, job: (signal: AbortSignal) => Promise<T>, { clock, checkMs, stop }: Settings): Promise<LeaseOutcome<T> | { failed: unknown }> {
  const { connection, runs } = session;
  await connection`SELECT set_config('tcp_keepalives_idle', ${KEEPALIVE.idle}, false), set_config('tcp_keepalives_interval', ${KEEPALIVE.interval}, false), set_config('tcp_keepalives_count', ${KEEPALIVE.count}, false)`;
  const started = { node: lease.node, startedAt: clock.now() };
  await runs
    .insert(jobRuns)
    .values({ name: lease.name, slot: lease.slot, ...started })
    .onConflictDoUpdate({ target: [jobRuns.name, jobRuns.slot], set: started });

  const leaseLost = new AbortController();
  const stopWatching = watchLease(connection, checkMs, () => {
    session.lost = true;
    leaseLost.abort();
  });
  const signal = stop ? AbortSignal.any([leaseLost.signal, stop]) : leaseLost.signal;
  let finished: { outcome: "ok"; result: T } | { outcome: "failed"; error: unknown };
  try {
    finished = { outcome: "ok", result: await job(signal) };
  } catch (error) {
    finished = { outcome: "failed", error };
  } finally {
    stopWatching();
  }
  if (signal.aborted) return { ran: false, reason: "interrupted" };

  const now = clock.now();
  try {
    await runs.update(jobRuns).set({ finishedAt: now, outcome: finished.outcome }).where(thisSlot(lease));
    await runs.delete(jobRuns).where(and(eq(jobRuns.name, lease.name), isNotNull(jobRuns.finishedAt), lt(jobRuns.startedAt, now - KEEP_RUNS_MS)));
  } catch {
    session.lost = true;
    return { ran: false, reason: "interrupted" };
  }
  return finished.outcome === "ok" ? { ran: true, result: finished.result } : { failed: finished.error };
}

/**
 * Checks the lease connection every `everyMs` while the job runs; `onLost` once when a check fails or hangs (a
 * connection that hangs may already be gone on the server's side, and the lock with it).
 */
function watchLease(connection: ReservedSQL, everyMs: number, onLost: () => void): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout>;
  const check = async () => {
    const answered = await Promise.race([connection`SELECT 1`.then(() => true, () => false), Bun.sleep(everyMs * PATIENCE).then(() => false)]);
    if (stopped) return;
    if (!answered) return onLost();
    timer = setTimeout(check, everyMs);
  };
  timer = setTimeout(check, everyMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Unlocks and returns a healthy connection to the pool; closes any other, which releases a lock it may hold. */
async function letGo({ connection, locked, lost }: Session, name: string): Promise<void> {
  if (!lost) {
    try {
      if (locked) await connection`SELECT pg_advisory_unlock(${LEASE_LOCKS}, hashtext(${name}))`;
      await connection.release();
      return;
    } catch {
      /* closed below */
    }
  }
  await connection.close().catch(() => {});
}

/** Waits `ms`; false when `signal` aborts first. */
function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
