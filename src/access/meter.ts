/**
 * The usage meter: per-key daily counts and burst windows in memory, admitted or refused per request, and
 * flushed to the store (usage counts, burst windows) at least once a second and on shutdown. A graceful stop
 * loses no count; a kill -9 loses at most the counts of the last flush interval. A flush writes only what
 * changed, and each key's window is at most 60 small pairs, so its cost does not grow with traffic.
 *
 * admit(), record() and headers() read memory only, synchronously (the request path). What memory lacks of a key —
 * its stored count of the UTC day and, the first time, its burst window — ready() loads before: the request path
 * waits for it only at a key's first request of the day in this process. Loads, report builds and flushes take
 * turns (core/serial.ts), so stored counts plus pending ones count every use exactly once.
 */
import { USAGE_KEYS, type UsageKey } from "../core/endpoints";
import { integer, ref, t, type Static } from "../core/shapes";
import { DAY_MS, utcDay, type Clock } from "../core/clock";
import { Serial } from "../core/serial";
import { BurstWindow, decide, fixedRateLimitHeaders, varyingRateLimitHeaders, type Limits, type Verdict } from "./limiter";
import type { Principal } from "./registry";
import type { UsageStore } from "./store";
import { PendingCounts } from "./pending-counts";
import type { MaybePromise } from "../core/maybe-promise";
import { SharedRuns } from "../core/shared-runs";

/**
 * Endpoints reported in a key's usage but outside its daily quota and burst window: an embed's view-minutes
 * (docs/embeds.md) and an alert's calendar feed fetches (docs/alerts.md), which have allowances of their own, so
 * anonymous viewers of a public page or holders of a feed's URL can never make the owner's API calls 429. They appear in `days[].byEndpoint` and `days[].total`, not in `today` (what the quota
 * counted: `limit - today` is X-RateLimit-Remaining).
 */
export const UNMETERED = ["embed", "calendar"] as const satisfies readonly UsageKey[];
const isUnmetered = (endpoint: string) => (UNMETERED as readonly string[]).includes(endpoint);

/**
 * Every response made under a key is that key's: a shared cache must not store it for others, and any cache must
 * key it on the key headers. Routes may narrow it (forecasts: max-age; usage: no-store).
 */
const KEYED_CACHING = { "Cache-Control": "private", Vary: "X-API-Key, Authorization" };

/** The headers every keyed response carries all UTC day: the day-fixed rate-limit headers and the caching ones. */
export function dayHeaders(limits: Limits, now: number): Headers {
  const fixed = fixedRateLimitHeaders(limits, now);
  return new Headers({ "X-RateLimit-Limit": fixed.limit, "X-RateLimit-Reset": fixed.reset, "RateLimit-Policy": fixed.policy, ...KEYED_CACHING });
}

interface KeyState {
  /** UTC day number (epoch days) and its `YYYY-MM-DD`. */
  dayNumber: number;
  day: string;
  usedToday: number;
  window: BurstWindow;
  /** This day's pending-count key per endpoint (`keyId \u0000 day \u0000 endpoint`), built once, not per request. */
  pendingKeys: Map<UsageKey, string>;
  /** Header values fixed for the day and the key's limits, built once (hot path). */
  fixed: { headers: Headers; dailyLimit: number; minuteLimit: number };
}

const ENDPOINT_KEY = `^(?:${USAGE_KEYS.map((e) => e.replace(".", "\\.")).join("|")}|mcp\\.[a-z0-9_]+)$`;

export const UsageDaySchema = t.Object(
  {
    date: t.String({ format: "date", description: "UTC day." }),
    total: integer({ minimum: 0 }),
    byEndpoint: t.Unsafe<Record<string, number>>({
      type: "object",
      propertyNames: { pattern: ENDPOINT_KEY },
      additionalProperties: { type: "integer", minimum: 0 },
      description: `Request counts keyed by ${USAGE_KEYS.join(", ")} and mcp.<tool> (one key per MCP tool name).`,
    }),
  },
  { description: "One UTC day of usage." },
);

export const UsageResponseSchema = t.Object(
  {
    plan: t.String({ description: "Plan of the presented key." }),
    limit: integer({ minimum: 0, description: "Daily request limit." }),
    today: integer({ minimum: 0, description: "Requests counted against the daily quota so far today (UTC); `byEndpoint.embed` (embed view-minutes) and `byEndpoint.calendar` (alerts' calendar feed fetches) are not among them." }),
    days: t.Array(ref("UsageDay", UsageDaySchema), { minItems: 30, maxItems: 30, description: "The last 30 UTC days, oldest first, today last." }),
  },
  { description: "Usage of the presented key." },
);

export type UsageDay = Static<typeof UsageDaySchema>;
export type UsageReport = Static<typeof UsageResponseSchema>;

interface KeptReport {
  dayNumber: number;
  report: UsageReport;
  text: string | null;
}

const textOf = (kept: KeptReport) => (kept.text ??= JSON.stringify(kept.report));

/** The five rate-limit headers: the three fixed all UTC day (`shared`, never modified), the two per request (`own`). */
export interface RateLimitHeaders {
  shared: Headers;
  own: Record<string, string>;
}

/** One request's decision, with the rate-limit headers its response carries. */
export interface Metered {
  verdict: Verdict;
  headers: RateLimitHeaders;
}

/**
 * What the gate, MCP and embeds count through: UsageMeter on one box (in memory, synchronous), SharedUsageMeter on
 * several servers (Redis; a promise, rejected with an Outage when Redis does not answer).
 */
export interface Meter {
  /** What must load before a key's first admission of the day; null when nothing (the usual case). */
  ready(principal: Principal): Promise<void> | null;
  /** Admits or refuses one request, counted `weight` times; `endpoint` null passes the burst window only. */
  admit(principal: Principal, endpoint: UsageKey | null, weight?: number): MaybePromise<Metered>;
  /** Counts unmetered uses (an embed's view-minutes) in the key's usage only. */
  record(principal: Principal, endpoint: (typeof UNMETERED)[number], weight?: number): MaybePromise<void>;
  /** Writes pending counts to the database; resolves once they are stored. */
  flush(): Promise<void>;
  /** The last flush, at stop: also gives back whatever the meter holds for later (SharedUsageMeter's slices). */
  close(): Promise<void>;
  report(principal: Principal): Promise<UsageReport>;
  /** The report as JSON text; synchronously when it is at hand. */
  reportText(principal: Principal): MaybePromise<string>;
  /** Requests refused since start, by the limit that refused them (for /metrics). */
  readonly refusals: Record<"daily" | "burst", number>;
  /** Admitted calls per endpoint since start (for /metrics: MCP tool calls). */
  readonly admitted: Map<string, number>;
  /** When usage was last written to the database (epoch ms): the flush lag of /metrics. */
  readonly lastFlushAt: number;
}

export class UsageMeter implements Meter {
  private states = new Map<string, KeyState>();
  /** `keyId \u0000 day \u0000 endpoint` → count not yet written. */
  private pending = new PendingCounts();
  private dirtyWindows = new Set<string>();
  /**
   * Each key's 30-day usage report as last built, kept current by admit() (this server is the only writer of
   * usage: one serve per data dir), so GET /v1/usage reads memory, not 30 days of rows. Its JSON text is kept
   * until the next counted request of that key.
   */
  private reports = new Map<string, KeptReport>();

  /** Keys whose day is being loaded (ready()), so that concurrent first requests share one load. */
  private readonly loading = new SharedRuns();
  private readonly turns = new Serial();

  constructor(
    private readonly store: UsageStore,
    private readonly clock: Clock,
  ) {}

  /**
   * Loads what admit(), record() and headers() need of a key's current UTC day unless memory has it: null then
   * (every request but a key's first of the day in this process), else the load to wait for.
   */
  ready(principal: Principal): Promise<void> | null {
    const s = this.states.get(principal.keyId);
    if (s !== undefined && s.dayNumber === Math.floor(this.clock.now() / DAY_MS)) return null;
    return this.loading.run(principal.keyId, () => this.turns.run(() => this.loadDay(principal)));
  }

  private async loadDay(principal: Principal): Promise<void> {
    const now = this.clock.now();
    const day = utcDay(now);
    const known = this.states.get(principal.keyId);
    const [counts, window] = await Promise.all([this.store.countsByDay([principal.keyId], day), known ? null : this.store.burstWindow(principal.keyId)]);
    // What the quota counted (unmetered endpoints left out) of this very day: a clock set back finds later days too.
    const stored = counts.reduce((n, c) => (c.day === day && !isUnmetered(c.endpoint) ? n + c.count : n), 0);
    this.enterDay(principal, now, stored, BurstWindow.parse(window ?? undefined));
  }

  /** Starts the key's day at `now` with what the store holds of it; a new key starts with `window`. */
  private enterDay(principal: Principal, now: number, stored: number, window: BurstWindow): KeyState {
    const dayNumber = Math.floor(now / DAY_MS);
    const day = utcDay(now);
    const usedToday = stored + this.pendingTotal(principal.keyId, day);
    let s = this.states.get(principal.keyId);
    if (!s) {
      s = { dayNumber, day, usedToday, window, pendingKeys: new Map(), fixed: this.fixed(principal, now) };
      this.states.set(principal.keyId, s);
    } else Object.assign(s, { dayNumber, day, usedToday, pendingKeys: new Map(), fixed: this.fixed(principal, now) });
    return s;
  }

  private state(principal: Principal, now: number): KeyState {
    const s = this.states.get(principal.keyId);
    if (s === undefined) throw new Error(`usage meter: key ${principal.keyId} used before ready()`);
    if (s.dayNumber !== Math.floor(now / DAY_MS)) {
      // The UTC day turned after ready() (a request that crossed midnight). This process alone counts the key's
      // usage on its database and has counted none of the new day, so none is stored (unless the clock went back).
      return this.enterDay(principal, now, 0, s.window);
    }
    if (s.fixed.dailyLimit !== principal.dailyLimit || s.fixed.minuteLimit !== principal.minuteLimit) {
      s.fixed = this.fixed(principal, now); // the operator changed the account's limits
    }
    return s;
  }

  private fixed(principal: Principal, now: number): KeyState["fixed"] {
    return { headers: dayHeaders(principal, now), dailyLimit: principal.dailyLimit, minuteLimit: principal.minuteLimit };
  }

  private pendingTotal(keyId: string, day: string): number {
    return this.pending.ofKey(keyId, day).reduce((n, c) => (isUnmetered(c.endpoint) ? n : n + c.count), 0);
  }

  /** Requests refused since start, by the limit that refused them (for /metrics). */
  readonly refusals = { daily: 0, burst: 0 };
  /** Admitted calls per endpoint since start (for /metrics: MCP tool calls). */
  readonly admitted = new Map<string, number>();
  /** When usage was last written to the database (epoch ms): the flush lag of /metrics. */
  lastFlushAt = Date.now();

  /**
   * Admits or refuses one request of `principal`, counted `weight` times (a GET /v1/now counts once per spot).
   * `endpoint` null means "not counted" (GET /v1/usage): it still passes through the burst window but never
   * uses the daily quota.
   */
  admit(principal: Principal, endpoint: UsageKey | null, weight = 1): Metered {
    const now = this.clock.now();
    const s = this.state(principal, now);
    const verdict = decide(principal, endpoint === null ? 0 : s.usedToday, s.window, now, weight);
    if (!verdict.allowed) this.refusals[verdict.blockedBy]++;
    else {
      s.window.add(now, weight);
      this.dirtyWindows.add(principal.keyId);
      if (endpoint !== null) {
        s.usedToday += weight;
        this.count(principal, s, endpoint, weight, true);
      }
    }
    const varying = varyingRateLimitHeaders(principal, s.usedToday, s.window, now);
    return { verdict, headers: { shared: s.fixed.headers, own: { "X-RateLimit-Remaining": varying.remaining, RateLimit: varying.rateLimit } } };
  }

  /**
   * Counts `weight` uses of an unmetered endpoint (an embed's view-minute) in the key's usage, outside its daily
   * quota and its burst window: never refused, and nothing the key's own calls see changes (X-RateLimit-*, 429s).
   */
  record(principal: Principal, endpoint: (typeof UNMETERED)[number], weight = 1): void {
    this.count(principal, this.state(principal, this.clock.now()), endpoint, weight, false);
  }

  /** Adds an admitted or recorded use to the pending counts and to the key's kept report. */
  private count(principal: Principal, s: KeyState, endpoint: UsageKey, weight: number, metered: boolean): void {
    this.admitted.set(endpoint, (this.admitted.get(endpoint) ?? 0) + weight);
    let k = s.pendingKeys.get(endpoint);
    if (k === undefined) s.pendingKeys.set(endpoint, (k = PendingCounts.keyOf(principal.keyId, s.day, endpoint)));
    this.pending.add(k, weight);
    const kept = this.reports.get(principal.keyId);
    if (kept !== undefined) {
      if (kept.dayNumber === s.dayNumber) {
        const today = kept.report.days[kept.report.days.length - 1]!;
        today.total += weight;
        today.byEndpoint[endpoint] = (today.byEndpoint[endpoint] ?? 0) + weight;
        if (metered) kept.report.today += weight;
        kept.text = null;
      } else this.reports.delete(principal.keyId);
    }
  }

  /** Writes pending counts and changed windows in one transaction; resolves once they are stored. */
  /** Nothing is held for later on one box: the last flush is a flush. */
  close(): Promise<void> {
    return this.flush();
  }

  flush(): Promise<void> {
    return this.turns.run(async () => {
      const now = this.clock.now();
      if (this.pending.size === 0 && this.dirtyWindows.size === 0) {
        this.lastFlushAt = now;
        return;
      }
      const counts = this.pending.take();
      const windows = this.dirtyWindows;
      this.dirtyWindows = new Set();
      const saved = [...windows].flatMap((keyId) => {
        const s = this.states.get(keyId);
        return s ? [{ keyId, recent: s.window.serialize(now), updatedAt: now }] : [];
      });
      try {
        await this.store.saveUsage(counts, saved);
        this.lastFlushAt = now;
      } catch (err) {
        // Keep the counts for the next flush rather than lose them.
        this.pending.restore(counts);
        for (const keyId of windows) this.dirtyWindows.add(keyId);
        throw err;
      }
    });
  }

  /** Usage of one key over the last 30 UTC days, today last, zero-filled: stored counts plus unflushed ones. */
  async report(principal: Principal): Promise<UsageReport> {
    return (this.keptToday(principal) ?? (await this.keep(principal))).report;
  }

  /** The same report as JSON text, built once per change; from memory (synchronously) once kept. */
  reportText(principal: Principal): string | Promise<string> {
    const kept = this.keptToday(principal);
    return kept ? textOf(kept) : this.keep(principal).then(textOf);
  }

  /** The key's kept report when it is today's, its plan and limit brought up to date; else null. */
  private keptToday(principal: Principal): KeptReport | null {
    const kept = this.reports.get(principal.keyId);
    if (kept === undefined || kept.dayNumber !== Math.floor(this.clock.now() / DAY_MS)) return null;
    if (kept.report.plan !== principal.plan || kept.report.limit !== principal.dailyLimit) {
      Object.assign(kept.report, { plan: principal.plan, limit: principal.dailyLimit }); // the operator changed the plan
      kept.text = null;
    }
    return kept;
  }

  private keep(principal: Principal): Promise<KeptReport> {
    return this.turns.run(async () => {
      const now = this.clock.now();
      const kept: KeptReport = { dayNumber: Math.floor(now / DAY_MS), report: await this.buildReport(principal, now), text: null };
      this.reports.set(principal.keyId, kept);
      return kept;
    });
  }

  private async buildReport(principal: Principal, now: number): Promise<UsageReport> {
    const rows = await this.store.countsByDay([principal.keyId], utcDay(now - 29 * DAY_MS));
    return usageReport(principal, now, [...rows, ...this.pending.ofKey(principal.keyId)]);
  }
}

/** Counts of one UTC day and endpoint (summed when several rows name the same). */
export interface DayCount {
  day: string;
  endpoint: string;
  count: number;
}

/** A key's usage over the last 30 UTC days, today last, every endpoint zero-filled, from its counts. */
export function usageReport(principal: Pick<Principal, "plan" | "dailyLimit">, now: number, counts: Iterable<DayCount>): UsageReport {
  const today = utcDay(now);
  const days: UsageDay[] = [];
  const byDate = new Map<string, UsageDay>();
  for (let i = 29; i >= 0; i--) {
    const date = utcDay(now - i * DAY_MS);
    const byEndpoint: Record<string, number> = {};
    for (const e of USAGE_KEYS) byEndpoint[e] = 0;
    const day = { date, total: 0, byEndpoint };
    days.push(day);
    byDate.set(date, day);
  }
  for (const { day: date, endpoint, count } of counts) {
    const day = byDate.get(date);
    if (!day) continue;
    day.total += count;
    day.byEndpoint[endpoint] = (day.byEndpoint[endpoint] ?? 0) + count;
  }
  const last = byDate.get(today)!;
  const unmetered = UNMETERED.reduce((n, e) => n + (last.byEndpoint[e] ?? 0), 0);
  return { plan: principal.plan, limit: principal.dailyLimit, today: last.total - unmetered, days };
}
