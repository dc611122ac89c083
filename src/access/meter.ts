/**
 * The usage meter: per-key daily counts and burst windows in memory, admitted or refused per request, and
 * flushed to SQLite (usage_counters, rate_limit_state) at least once a second and on shutdown. A graceful stop
 * loses no count; a kill -9 loses at most the counts of the last flush interval.
 */
import { and, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../db";
import { rateLimitState, usageCounters } from "../db/schema";
import { DAY_MS, utcDay, type Clock } from "../core/clock";
import { decide, pruneWindow, rateLimitHeaders, type Verdict } from "./limiter";
import type { Principal } from "./registry";

/** The endpoint names usage is reported under. MCP tools add `mcp.<tool>`. */
export const ENDPOINTS = ["spots.search", "spots.nearby", "spots.get", "forecast", "tides"] as const;
export type EndpointName = (typeof ENDPOINTS)[number] | `mcp.${string}`;

interface KeyState {
  day: string;
  usedToday: number;
  recent: number[];
}

export interface Admission {
  verdict: Verdict;
  headers: Record<string, string>;
}

export interface UsageDay {
  date: string;
  total: number;
  byEndpoint: Record<string, number>;
}

export interface UsageReport {
  plan: string;
  limit: number;
  today: number;
  days: UsageDay[];
}

export class UsageMeter {
  private states = new Map<string, KeyState>();
  /** `keyId \u0000 day \u0000 endpoint` → count not yet written. */
  private pending = new Map<string, number>();
  private dirtyWindows = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  private state(keyId: string, now: number): KeyState {
    const day = utcDay(now);
    let s = this.states.get(keyId);
    if (!s) {
      s = { day, usedToday: this.storedTotal(keyId, day) + this.pendingTotal(keyId, day), recent: this.storedWindow(keyId) };
      this.states.set(keyId, s);
    } else if (s.day !== day) {
      s.day = day;
      s.usedToday = this.storedTotal(keyId, day) + this.pendingTotal(keyId, day);
    }
    return s;
  }

  private storedTotal(keyId: string, day: string): number {
    const row = this.db
      .select({ n: sql<number>`coalesce(sum(${usageCounters.count}), 0)` })
      .from(usageCounters)
      .where(and(eq(usageCounters.keyId, keyId), eq(usageCounters.day, day)))
      .get();
    return row?.n ?? 0;
  }

  private pendingTotal(keyId: string, day: string): number {
    let n = 0;
    const prefix = `${keyId}\u0000${day}\u0000`;
    for (const [k, v] of this.pending) if (k.startsWith(prefix)) n += v;
    return n;
  }

  private storedWindow(keyId: string): number[] {
    const row = this.db.select().from(rateLimitState).where(eq(rateLimitState.keyId, keyId)).get();
    if (!row) return [];
    try {
      const parsed = JSON.parse(row.recent);
      return Array.isArray(parsed) ? parsed.filter((t): t is number => typeof t === "number").sort((a, b) => a - b) : [];
    } catch {
      return [];
    }
  }

  /**
   * Admits or refuses one request of `principal`. `endpoint` null means "not counted" (GET /v1/usage): it
   * still passes through the burst window but never uses the daily quota.
   */
  admit(principal: Principal, endpoint: EndpointName | null): Admission {
    const now = this.clock.now();
    const s = this.state(principal.keyId, now);
    const verdict = endpoint === null ? decide({ ...principal, dailyLimit: Infinity }, 0, s.recent, now) : decide(principal, s.usedToday, s.recent, now);
    if (verdict.allowed) {
      s.recent.push(now);
      this.dirtyWindows.add(principal.keyId);
      if (endpoint !== null) {
        s.usedToday++;
        const k = `${principal.keyId}\u0000${s.day}\u0000${endpoint}`;
        this.pending.set(k, (this.pending.get(k) ?? 0) + 1);
      }
    }
    return { verdict, headers: rateLimitHeaders(principal, s.usedToday, s.recent, now) };
  }

  /** The rate-limit headers for a principal without admitting anything. */
  headers(principal: Principal): Record<string, string> {
    const now = this.clock.now();
    const s = this.state(principal.keyId, now);
    pruneWindow(s.recent, now);
    return rateLimitHeaders(principal, s.usedToday, s.recent, now);
  }

  /** Writes pending counts and changed windows in one transaction. */
  flush(): void {
    if (this.pending.size === 0 && this.dirtyWindows.size === 0) return;
    const pending = this.pending;
    const windows = this.dirtyWindows;
    this.pending = new Map();
    this.dirtyWindows = new Set();
    const now = this.clock.now();
    try {
      this.db.transaction((tx) => {
        for (const [k, n] of pending) {
          const [keyId, day, endpoint] = k.split("\u0000") as [string, string, string];
          tx.insert(usageCounters)
            .values({ keyId, day, endpoint, count: n })
            .onConflictDoUpdate({ target: [usageCounters.keyId, usageCounters.day, usageCounters.endpoint], set: { count: sql`${usageCounters.count} + ${n}` } })
            .run();
        }
        for (const keyId of windows) {
          const s = this.states.get(keyId);
          if (!s) continue;
          pruneWindow(s.recent, now);
          const recent = JSON.stringify(s.recent);
          tx.insert(rateLimitState)
            .values({ keyId, recent, updatedAt: now })
            .onConflictDoUpdate({ target: rateLimitState.keyId, set: { recent, updatedAt: now } })
            .run();
        }
      });
    } catch (err) {
      // Keep the counts for the next flush rather than lose them.
      for (const [k, n] of pending) this.pending.set(k, (this.pending.get(k) ?? 0) + n);
      for (const keyId of windows) this.dirtyWindows.add(keyId);
      throw err;
    }
  }

  /** Usage of one key over the last 30 UTC days, today last, zero-filled. */
  report(principal: Principal): UsageReport {
    this.flush();
    const now = this.clock.now();
    const today = utcDay(now);
    const first = utcDay(now - 29 * DAY_MS);
    const rows = this.db
      .select()
      .from(usageCounters)
      .where(and(eq(usageCounters.keyId, principal.keyId), gte(usageCounters.day, first)))
      .all();
    const days: UsageDay[] = [];
    const byDate = new Map<string, UsageDay>();
    for (let i = 29; i >= 0; i--) {
      const date = utcDay(now - i * DAY_MS);
      const byEndpoint: Record<string, number> = {};
      for (const e of ENDPOINTS) byEndpoint[e] = 0;
      const day = { date, total: 0, byEndpoint };
      days.push(day);
      byDate.set(date, day);
    }
    for (const row of rows) {
      const day = byDate.get(row.day);
      if (!day) continue;
      day.total += row.count;
      day.byEndpoint[row.endpoint] = (day.byEndpoint[row.endpoint] ?? 0) + row.count;
    }
    return { plan: principal.plan, limit: principal.dailyLimit, today: byDate.get(today)!.total, days };
  }
}
