/**
 * Work that one server does for all: on a shared database a job's slot (the start-up refresh, a scheduled one, the
 * tide window's day) runs on one server under a lease (db/postgres/lease.ts) while the others wait for it to finish
 * and skip it, or take it over when its runner dies. On one box the job just runs.
 */
import { createHash } from "node:crypto";
import type { App } from "../app";
import type { Config } from "../config";
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

/**
 * The settings every server of one database must share (README, "Several servers"), each as a digest: the record
 * in the database names none of their values (an SMTP URL holds a password).
 */
export function sharedSettings(config: Config): Record<string, string> {
  const digest = (value: unknown) => createHash("sha256").update(JSON.stringify(value ?? null)).digest("base64url").slice(0, 16);
  return {
    SURFCAST_PUBLIC_URL: digest(config.publicUrlSet ? config.publicUrl : null),
    SURFCAST_SMTP_URL: digest(config.smtpUrl),
    SURFCAST_SMTP_FROM: digest(config.smtpFrom),
    SURFCAST_WEBHOOK_ALLOWED_NETWORKS: digest(config.webhookAllowedNetworks),
    SURFCAST_WAVE_MODELS: digest(config.openMeteo.waveModels),
    SURFCAST_REFRESH_SCOPE: digest(config.refreshScope),
    SURFCAST_REFRESH_CRON: digest(config.refreshCron),
    SURFCAST_TRUST_PROXY: digest(config.trustProxy),
  };
}

/** The meta key of the shared settings the last server to start ran with. */
export const SHARED_SETTINGS_META = "serve.shared_settings";

/** The settings whose digests differ between two records (a setting one of them lacks differs). */
export function differingSettings(mine: Record<string, string>, theirs: Record<string, string>): string[] {
  return Object.keys({ ...mine, ...theirs }).filter((name) => mine[name] !== theirs[name]);
}

/** Warns when this server's shared settings differ from those of the server that started before it; records its own. */
async function compareSharedSettings(app: App, node: string): Promise<void> {
  const mine = sharedSettings(app.config);
  const recorded = await app.stores.meta.read(SHARED_SETTINGS_META);
  if (recorded !== null) {
    const before = JSON.parse(recorded) as { node: string; settings: Record<string, string> };
    const differing = differingSettings(mine, before.settings);
    if (differing.length > 0) {
      const verb = differing.length === 1 ? "differs from that" : "differ from those";
      log.warn(`this server's ${differing.join(", ")} ${verb} of server ${before.node}, which started before it: give every server (and the host of the CLI commands) the same settings (README, "Several servers")`, { node });
    }
  }
  await app.stores.meta.write(SHARED_SETTINGS_META, JSON.stringify({ node, settings: mine }));
}

/**
 * On a shared database, this server's row in the node list, kept fresh until it stops (with where it listens, once
 * it does: the next beat writes it), after a check of the settings every server must share; nothing on one box.
 */
export async function joinServers(app: App): Promise<{ listening(address: string): void; stop(): Promise<void> }> {
  if (app.engine.kind === "sqlite") return { listening: () => {}, stop: async () => {} };
  const { node } = app.engine;
  await compareSharedSettings(app, node.id);
  if (app.config.smtpUrl === undefined) log.warn("SURFCAST_SMTP_URL is not set on this server: it leaves alert e-mails to the servers that have it (none sends them if no server has it)", { node: node.id });
  const heartbeat = await NodeHeartbeat.start(app.engine.db, node);
  log.info("joined the servers on the shared database", { node: node.id });
  return {
    listening: (address) => void (node.address = address),
    stop: () => heartbeat.stop(),
  };
}
