/**
 * The operator's view of a data directory: forecast ages, the last refresh and the next, the tide window, the
 * database size, every server on a shared database. Served by `surfcast status` and, on the metrics port
 * (127.0.0.1), `GET /status`; read from the database, so any process (the server or the console) tells the same.
 * The public port's `GET /healthz?verbose=1` serves `publicStatus`: what a load balancer and a status page need
 * (forecast ages, the last refresh without its reason, demo, how many servers answer), nothing about the machines
 * (host names, process ids, versions, the database's size) nor the last refresh's reason (an upstream's error
 * text, which may name internal hosts, proxies or what the upstream echoed back); computed at most once a second.
 */
import type { CertificateReport } from "../tls/state";
import { statSync } from "node:fs";
import type { App } from "../app";
import { databasePath } from "../db";
import { nextRefreshAt } from "../forecast/schedule";
import type { RefreshRecord } from "../forecast/store";
import { RECENT_MS, SCOPE_META, type RefreshScope } from "../forecast/demand";
import { databaseSize } from "../db/postgres";
import { peers, type Peer } from "../db/postgres/nodes";

export interface OperationalStatus {
  status: "ok";
  time: string;
  forecasts: { spots: number; withForecast: number; oldest: string | null; newest: string | null; oldestAgeHours: number | null; newestAgeHours: number | null };
  lastRefresh: RefreshRecord | null;
  /** The next scheduled refresh (from the configured cron; null when the scheduler is off), and a pending retry. */
  nextRefresh: string | null;
  refreshRetryAt: string | null;
  tideWindowEnd: string | null;
  databaseBytes: number;
  /** The directory holds synthetic demo data (serve --demo, forecast/demo.ts). */
  demo: boolean;
  /**
   * Which spots the scheduled refreshes cover (forecast/demand.ts): the last server's scope on this data directory
   * (this process's setting before any server ran), and how many spots were asked for in the last 7 days.
   */
  refreshScope: { scope: RefreshScope; requestedSpots: number };
  /** On a shared database: which server answers, and every server heard from in the last hour with its freshness. */
  cluster?: { node: string; peers: ClusterPeer[] };
}

export type ClusterPeer = Pick<Peer, "id" | "host" | "version" | "address" | "ageSeconds" | "freshness"> & { startedAt: string };

async function clusterOf(app: App, now: number): Promise<OperationalStatus["cluster"]> {
  if (app.engine.kind !== "postgres") return undefined;
  const heard = await peers(app.engine.db, now);
  return {
    node: app.engine.node.id,
    peers: heard.map((p) => ({ id: p.id, host: p.host, version: p.version, address: p.address, startedAt: new Date(p.startedAt).toISOString(), ageSeconds: p.ageSeconds, freshness: p.freshness })),
  };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const hoursSince = (ms: number | null, now: number) => (ms === null ? null : Math.round(((now - ms) / 3_600_000) * 10) / 10);

/** The database file and its WAL: what the data directory really holds. */
function databaseBytes(dataDir: string): number {
  const path = databasePath(dataDir);
  let total = 0;
  for (const file of [path, `${path}-wal`]) {
    try {
      total += statSync(file).size;
    } catch {
      /* no WAL right now */
    }
  }
  return total;
}

async function servedScope(app: App): Promise<RefreshScope> {
  const recorded = await app.stores.meta.read(SCOPE_META);
  return recorded === "all" || recorded === "requested" ? recorded : app.config.refreshScope;
}

/** What the database takes: the data directory's file, or the shared database on its server. */
function storedBytes(app: App): number | Promise<number> {
  return app.engine.kind === "sqlite" ? databaseBytes(app.config.dataDir) : databaseSize(app.engine.db);
}

function forecastAges(app: App, span: { count: number; oldest: number | null; newest: number | null }, now: number): OperationalStatus["forecasts"] {
  return {
    spots: app.spots.all().length,
    withForecast: span.count,
    oldest: iso(span.oldest),
    newest: iso(span.newest),
    oldestAgeHours: hoursSince(span.oldest, now),
    newestAgeHours: hoursSince(span.newest, now),
  };
}

const nextRefresh = (app: App, now: number) => (app.config.scheduler ? nextRefreshAt(app.config.refreshCron, new Date(now))?.toISOString() ?? null : null);

export async function operationalStatus(app: App): Promise<OperationalStatus> {
  const now = app.clock.now();
  const { forecasts } = app.stores;
  const [span, lastRefresh, refreshRetryAt, dataMode, requested, tideWindowEnd] = await Promise.all([
    forecasts.documentSpan(),
    forecasts.lastRefresh(),
    forecasts.retryAt(),
    forecasts.dataMode(),
    app.demand.requestedSince(now - RECENT_MS),
    app.tides.windowEnd(),
  ]);
  return {
    status: "ok",
    time: new Date(now).toISOString(),
    forecasts: forecastAges(app, span, now),
    lastRefresh,
    nextRefresh: nextRefresh(app, now),
    refreshRetryAt,
    tideWindowEnd: iso(tideWindowEnd),
    databaseBytes: await storedBytes(app),
    demo: dataMode === "demo",
    refreshScope: { scope: await servedScope(app), requestedSpots: requested.size },
    cluster: await clusterOf(app, now),
  };
}

/** The last refresh as anyone may see it: outcome, time and counts, never its reason. */
export type PublicRefreshRecord = Omit<RefreshRecord, "reason">;

export interface PublicStatus extends Pick<OperationalStatus, "status" | "time" | "forecasts" | "nextRefresh" | "demo"> {
  lastRefresh: PublicRefreshRecord | null;
  /** How many servers answer: 1 on SQLite; on a shared database those heard from in the last seconds. */
  nodes: number;
  /** The TLS certificate served, when this server serves one: its expiry and days left (any TLS client sees them), a failing renewal. */
  certificate?: CertificateReport;
}

const withoutReason = ({ reason: _reason, ...refresh }: RefreshRecord): PublicRefreshRecord => refresh;

/** How long `GET /healthz?verbose=1` answers the same status: probes and status pages cannot make it work harder. */
const PUBLIC_STATUS_MS = 1_000;

async function freshNodes(app: App, now: number): Promise<number> {
  return app.engine.kind === "postgres" ? (await peers(app.engine.db, now)).filter((p) => p.freshness === "fresh").length : 1;
}

async function computePublicStatus(app: App): Promise<PublicStatus> {
  const now = app.clock.now();
  const { forecasts } = app.stores;
  const [span, lastRefresh, dataMode, nodes] = await Promise.all([forecasts.documentSpan(), forecasts.lastRefresh(), forecasts.dataMode(), freshNodes(app, now)]);
  return {
    status: "ok",
    time: new Date(now).toISOString(),
    forecasts: forecastAges(app, span, now),
    lastRefresh: lastRefresh === null ? null : withoutReason(lastRefresh),
    nextRefresh: nextRefresh(app, now),
    demo: dataMode === "demo",
    nodes,
    certificate: app.certificate.report(now) ?? undefined,
  };
}

/** What `GET /healthz?verbose=1` answers, computed at most once a second (calls meanwhile share the answer). */
export function publicStatusOf(app: App): () => Promise<PublicStatus> {
  let latest: { at: number; status: Promise<PublicStatus> } | null = null;
  return () => {
    const at = performance.now();
    if (latest === null || at - latest.at >= PUBLIC_STATUS_MS) {
      const status = computePublicStatus(app);
      // A failed computation is not kept: the next call tries again.
      status.catch(() => (latest = null));
      latest = { at, status };
    }
    return latest.status;
  };
}

/** `surfcast status` in plain text. */
export function formatStatus(s: OperationalStatus): string {
  const f = s.forecasts;
  const r = s.lastRefresh;
  const age = (h: number | null) => (h === null ? "none" : `${h} h ago`);
  return [
    ...(s.demo ? [`DEMO DATA:     this ${s.cluster ? "database" : "directory"} holds synthetic forecasts (serve --demo), not real ones`] : []),
    `Forecasts:     ${f.withForecast} of ${f.spots} spots; oldest ${age(f.oldestAgeHours)}${f.oldest ? ` (${f.oldest})` : ""}, newest ${age(f.newestAgeHours)}`,
    `Last refresh:  ${r ? `${r.outcome} at ${r.at}: ${r.ok} of ${r.spots} spots in ${(r.durationMs / 1000).toFixed(1)} s${r.reason ? ` (${r.reason})` : ""}` : "never"}`,
    `Refresh scope: ${s.refreshScope.scope === "all" ? "all: every spot of the catalog" : `requested: the ${s.refreshScope.requestedSpots} ${s.refreshScope.requestedSpots === 1 ? "spot" : "spots"} asked for in the last 7 days; a spot asked for the first time is fetched at once`}`,
    `Next refresh:  ${s.nextRefresh ?? "not scheduled (scheduler off)"}${s.refreshRetryAt ? `; retry of the missed spots at ${s.refreshRetryAt}` : ""}`,
    `Tide window:   ${s.tideWindowEnd ? `until ${s.tideWindowEnd}` : "not computed yet (the server computes it at start)"}`,
    `Database:      ${(s.databaseBytes / 1_048_576).toFixed(1)} MiB`,
    ...(s.cluster ? [`Servers:       ${s.cluster.peers.length === 0 ? "none running" : s.cluster.peers.map((p) => `${p.id} (${p.freshness}, seen ${p.ageSeconds} s ago)`).join(", ")}`] : []),
  ].join("\n");
}
