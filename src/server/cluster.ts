/**
 * Work that one server does for all: on a shared database a job's slot (the start-up refresh, a scheduled one, the
 * tide window's day) runs on one server under a lease (db/postgres/lease.ts) while the others wait for it to finish
 * and skip it, or take it over when its runner dies. On one box the job just runs.
 */
import type { App } from "../app";
import { log } from "../core/log";
import { lastFailureElsewhere, runOnce } from "../db/postgres/lease";
import { NodeHeartbeat } from "../db/postgres/nodes";

/** The job's result, or undefined when another server ran the slot (or this one was stopped first). */
export async function onceAmongServers<T>(app: App, name: string, slot: string, job: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (app.engine.kind === "sqlite") return job(signal);
  const outcome = await runOnce(app.engine.db, { name, slot, node: app.engine.node.id }, job, { follow: true, signal });
  if (outcome.ran) return outcome.result;
  if (outcome.reason === "done-elsewhere") log.info(`${name}: ${slot} was done by another server`, { by: outcome.by });
  return undefined;
}

/**
 * Runs `job` when no other server runs the job `name`, waiting for the turn; it is told when a run last failed on
 * another server (null when none did, and on one box), to leave a retry to that server's backoff. Each call is
 * a run of its own, not a slot shared with the other servers. Undefined when this server was stopped first or lost its
 * lease.
 */
export async function inTurnAmongServers<T>(app: App, name: string, job: (othersFailedAt: number | null) => Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (app.engine.kind === "sqlite") return job(null);
  const { db, node } = app.engine;
  const lease = { name, slot: `${new Date(app.clock.now()).toISOString()} ${node.id}`, node: node.id };
  const outcome = await runOnce(db, lease, async () => job(await lastFailureElsewhere(db, name, node.id)), { follow: true, signal, clock: app.clock });
  return outcome.ran ? outcome.result : undefined;
}

/**
 * The slot of a run asked for at `now`: the unit it falls in. A cron fires at or after its time, later on a loaded
 * server, so every server names a scheduled run by the same unit (rounding to the nearest would name the next one for
 * a server firing past the half).
 */
export function slotAt(kind: string, now: number, unitMs: number): string {
  return `${kind} ${new Date(Math.floor(now / unitMs) * unitMs).toISOString()}`;
}

/** On a shared database, this server's row in the node list, kept fresh until it stops; nothing on one box. */
export async function joinServers(app: App): Promise<{ stop(): Promise<void> }> {
  if (app.engine.kind === "sqlite") return { stop: async () => {} };
  const heartbeat = await NodeHeartbeat.start(app.engine.db, app.engine.node);
  log.info("joined the servers on the shared database", { node: app.engine.node.id });
  return heartbeat;
}
