/**
 * Changes made through any server, noticed by every server within moments. A write to data that servers keep in
 * memory (keys and accounts, embeds, the catalog, forecasts) calls `notifyChange` in its own transaction: that bumps
 * the topic's counter and sends a NOTIFY, which PostgreSQL delivers when the transaction commits and drops when it
 * rolls back. Each server's ChangeFeed LISTENs on a connection of its own, made again whenever it drops, and, as a
 * safety net for a notification lost while it was down, compares the counters every few seconds and each time the
 * LISTEN is made again.
 *
 * Unlike SQLite's `PRAGMA data_version` (db/changes.ts), a server hears its own changes too: its copies reload once
 * more than needed, never once less.
 */
import { SQL } from "bun";
import { sql } from "drizzle-orm";
import { log } from "../../core/log";
import type { PgDb } from "./index";
import { outageLog } from "./outage";
import { changeCounters } from "./schema";

export const CHANGE_TOPICS = ["access", "embeds", "forecasts", "spots", "tides"] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

/** The database, or a transaction on it: anything drizzle runs a statement on. */
export type PgExecutor = Pick<PgDb, "execute">;

const CHANNEL = "surfcast_changes";
const SAFETY_NET_MS = 5000;
/** The LISTEN connection is made again after a drop at once, then after waits doubling up to the last. */
const RELISTEN_MS = { first: 250, last: 30_000 };
const CONNECT_TIMEOUT_S = 10;

/**
 * Announces a change to `topic`. Call it inside the transaction that makes the change, so the announcement goes out
 * exactly when the change is visible; and last in it, since the counter's row stays locked until the commit.
 */
export async function notifyChange(db: PgExecutor, topic: ChangeTopic): Promise<void> {
  await db.execute(sql`
    WITH bumped AS (
      INSERT INTO ${changeCounters} (topic, version) VALUES (${topic}, 1)
      ON CONFLICT (topic) DO UPDATE SET version = ${changeCounters.version} + 1
      RETURNING version
    )
    SELECT pg_notify(${CHANNEL}, ${topic} || ' ' || version) FROM bumped`);
}

/** A notification's payload, `topic version`; null for what this binary does not know (a newer server's topic). */
export function parseNotice(payload: string): { topic: ChangeTopic; version: number } | null {
  const match = /^([a-z]+) (\d+)$/.exec(payload);
  if (!match || !(CHANGE_TOPICS as readonly string[]).includes(match[1]!)) return null;
  return { topic: match[1] as ChangeTopic, version: Number(match[2]) };
}

export interface ChangeFeedOptions {
  /** How often the counters are compared, for a notification lost while the LISTEN connection was down. */
  safetyNetMs?: number;
}

export class ChangeFeed {
  /** Each topic's counter as last seen, and how many changes of it were noticed since the feed started. */
  private readonly versions = new Map<ChangeTopic, number>();
  private readonly noticed = new Map<ChangeTopic, number>();
  private readonly listeners = new Map<ChangeTopic, Set<() => void>>();
  private readonly outage = outageLog("change feed");
  private checking: Promise<void> | null = null;
  /**
   * A client of the feed's own for the LISTEN connection, so that the feed hears when it closes. Bun would make it
   * again by itself, but with a warning on the console at every failed attempt; the feed retries quietly instead.
   */
  private readonly listener: SQL;
  private subscription: SQL.ListenSubscription | null = null;
  private relistenTimer: ReturnType<typeof setTimeout> | null = null;
  private relistenMs = RELISTEN_MS.first;
  private safetyNet: ReturnType<typeof setInterval> | null = null;
  private stopped = false;

  private constructor(
    private readonly db: PgDb,
    url: string,
  ) {
    this.listener = new SQL({ url, max: 1, connectionTimeout: CONNECT_TIMEOUT_S, onclose: () => this.dropped() });
  }

  /**
   * Reads where every topic stands, then listens on `url` (the URL `db` was opened with): what changes after `start`
   * resolves is noticed.
   */
  static async start(db: PgDb, url: string, options: ChangeFeedOptions = {}): Promise<ChangeFeed> {
    const feed = new ChangeFeed(db, url);
    try {
      for (const { topic, version } of await feed.readCounters()) feed.versions.set(topic, version);
      await feed.listen();
    } catch (err) {
      await feed.stop();
      throw err;
    }
    feed.safetyNet = setInterval(() => void feed.check(), options.safetyNetMs ?? SAFETY_NET_MS);
    feed.safetyNet.unref();
    return feed;
  }

  /** Calls `listener` after each change to `topic` this feed notices; returns the function that unsubscribes it. */
  subscribe(topic: ChangeTopic, listener: () => void): () => void {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * A check for one in-memory copy of `topic`, shaped like db/changes.ts's `changeCheck`: true on its first call,
   * then whenever a change to the topic has been noticed since its last call. It costs a map read.
   */
  changeCheck(topic: ChangeTopic): () => boolean {
    let seen = -1;
    return () => {
      const noticed = this.generation(topic);
      if (noticed === seen) return false;
      seen = noticed;
      return true;
    };
  }

  /** How many changes to `topic` this feed has noticed: a new number means "what you keep of it may be old". */
  generation(topic: ChangeTopic): number {
    return this.noticed.get(topic) ?? 0;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.safetyNet) clearInterval(this.safetyNet);
    if (this.relistenTimer) clearTimeout(this.relistenTimer);
    this.subscription = null;
    await this.listener.close();
    await this.checking;
  }

  private async listen(): Promise<void> {
    // `check` also runs each time the LISTEN is acknowledged: what was announced while there was none is caught up.
    this.subscription = await this.listener.listen(CHANNEL, (payload) => this.hear(payload), () => void this.check());
  }

  /** Any connection of the listener closed, which is the LISTEN connection (or the feed stopping). */
  private dropped(): void {
    if (this.stopped || this.subscription === null) return;
    // Unlistening now cancels Bun's own retry before its first attempt.
    void this.subscription.unlisten().catch(() => {});
    this.subscription = null;
    this.relisten(0);
  }

  private relisten(delayMs: number): void {
    this.relistenTimer = setTimeout(async () => {
      this.relistenTimer = null;
      try {
        await this.listen();
        this.relistenMs = RELISTEN_MS.first;
        this.outage.worked();
      } catch (err) {
        if (this.stopped) return;
        this.outage.failed(err);
        this.relisten(this.relistenMs);
        this.relistenMs = Math.min(this.relistenMs * 2, RELISTEN_MS.last);
      }
    }, delayMs);
  }

  private hear(payload: string): void {
    const notice = parseNotice(payload);
    // Older than what a check already saw: that change was noticed then.
    if (notice && notice.version > (this.versions.get(notice.topic) ?? 0)) this.advance(notice.topic, notice.version);
  }

  /** Compares the counters (one at a time: a check waiting on an unreachable database is not doubled). */
  private check(): Promise<void> {
    this.checking ??= this.readCounters()
      .then(
        (counters) => {
          this.outage.worked();
          for (const { topic, version } of counters) if (version !== this.versions.get(topic)) this.advance(topic, version);
        },
        (err: unknown) => this.outage.failed(err),
      )
      .finally(() => {
        this.checking = null;
      });
    return this.checking;
  }

  /** Every topic's counter; 0 for a topic never changed. */
  private async readCounters(): Promise<{ topic: ChangeTopic; version: number }[]> {
    const rows = await this.db.select().from(changeCounters);
    const stored = new Map(rows.map((row) => [row.topic, row.version]));
    return CHANGE_TOPICS.map((topic) => ({ topic, version: stored.get(topic) ?? 0 }));
  }

  private advance(topic: ChangeTopic, version: number): void {
    this.versions.set(topic, version);
    this.noticed.set(topic, (this.noticed.get(topic) ?? 0) + 1);
    for (const listener of this.listeners.get(topic) ?? []) {
      try {
        listener();
      } catch (err) {
        log.error("a change listener failed", { topic, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
}
