/**
 * The servers running on this database and how recently each was heard from, for `/healthz?verbose=1`. Each server's
 * NodeHeartbeat keeps its row of `cluster.nodes` fresh; one that stops cleanly deletes its row, one that dies leaves
 * it to go stale, and a row not refreshed for an hour is forgotten. Times come from each server's own clock, which
 * every machine of a fleet keeps in step with NTP.
 */
import { hostname } from "node:os";
import { eq, gte, lt } from "drizzle-orm";
import { systemClock, type Clock } from "../../core/clock";
import { log } from "../../core/log";
import type { PgDb } from "./index";
import { outageLog } from "./outage";
import { nodes } from "./schema";

export interface NodeInfo {
  /** `host-pid`: readable in a health answer, and a restarted container (same host name, same pid) takes its old row. */
  id: string;
  host: string;
  pid: number;
  version: string;
  startedAt: number;
  /** Where this server itself listens (not the balancer's public URL), once it does; null before. */
  address: string | null;
}

export type Freshness = "fresh" | "stale";

export interface Peer extends NodeInfo {
  seenAt: number;
  ageSeconds: number;
  freshness: Freshness;
}

const BEAT_MS = 5000;
/** Three beats missed in a row: the server is gone or cut off from the database. */
const FRESH_SECONDS = 15;
const FORGET_MS = 3_600_000;

export function thisNode(version: string, address: string | null, now: number): NodeInfo {
  const host = hostname();
  return { id: `${host}-${process.pid}`, host, pid: process.pid, version, startedAt: now, address };
}

/** Whole seconds since `seenAt`; never negative, as another machine's clock may run a little ahead. */
export function ageSeconds(seenAt: number, now: number): number {
  return Math.max(0, Math.floor((now - seenAt) / 1000));
}

export function freshness(ageSeconds: number): Freshness {
  return ageSeconds <= FRESH_SECONDS ? "fresh" : "stale";
}

/** Every server heard from in the last hour, this one included, by id. */
export async function peers(db: PgDb, now: number): Promise<Peer[]> {
  const rows = await db.select().from(nodes).where(gte(nodes.seenAt, now - FORGET_MS)).orderBy(nodes.id);
  return rows.map((row) => {
    const age = ageSeconds(row.seenAt, now);
    return { ...row, ageSeconds: age, freshness: freshness(age) };
  });
}

export interface HeartbeatOptions {
  clock?: Clock;
  everyMs?: number;
}

export class NodeHeartbeat {
  private readonly outage = outageLog("heartbeat");
  private timer: ReturnType<typeof setInterval> | null = null;
  private beating: Promise<void> | null = null;

  private constructor(
    private readonly db: PgDb,
    readonly node: NodeInfo,
    private readonly clock: Clock,
  ) {}

  /** Registers `node` (failing if the database does not answer), then refreshes its row every few seconds. */
  static async start(db: PgDb, node: NodeInfo, options: HeartbeatOptions = {}): Promise<NodeHeartbeat> {
    const heartbeat = new NodeHeartbeat(db, node, options.clock ?? systemClock);
    await heartbeat.write();
    heartbeat.timer = setInterval(() => heartbeat.beat(), options.everyMs ?? BEAT_MS);
    heartbeat.timer.unref();
    return heartbeat;
  }

  /**
   * Stops beating and deletes this server's row: the others see it gone at once, not stale for an hour. Never
   * rejects: a stop goes on without the database.
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    try {
      await this.db.delete(nodes).where(eq(nodes.id, this.node.id));
    } catch (err) {
      log.warn("could not remove this server from the node list; the others will see it stale", { error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** One beat at a time: a beat waiting on an unreachable database is not doubled. */
  private beat(): void {
    this.beating ??= this.write()
      .then(
        () => this.outage.worked(),
        (err: unknown) => this.outage.failed(err),
      )
      .finally(() => {
        this.beating = null;
      });
  }

  /** Upserts the whole row, so a row forgotten during a long outage comes back, and forgets the long-gone. */
  private async write(): Promise<void> {
    const now = this.clock.now();
    const row = { ...this.node, seenAt: now };
    await this.db.insert(nodes).values(row).onConflictDoUpdate({ target: nodes.id, set: row });
    await this.db.delete(nodes).where(lt(nodes.seenAt, now - FORGET_MS));
  }
}
