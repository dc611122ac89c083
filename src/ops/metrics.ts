/**
 * Prometheus metrics (prom-client), off unless SURFCAST_METRICS=on; then served on a separate port bound to
 * 127.0.0.1 only (SURFCAST_METRICS_PORT, default 9464), never on the public API port.
 *
 * The request path pays only a tally (a Map increment and a bucket increment, no label hashing): requests and
 * latencies are kept in plain counters and handed to prom-client at scrape time, like the gauges read from the
 * database (forecast ages, tide window), the meter (429s by limit, MCP tool calls, flush lag) and the calendar feeds.
 */
import { routeLabel } from "../core/route-label";
import { metricsMountAt, type ServeOf } from "../core/mounts";
import type { Peer } from "../core/proxy";
import client from "prom-client";
import type { Server } from "bun";
import type { App } from "../app";
import { UserError } from "../core/errors";
import { log } from "../core/log";
import { outcomeOf, type RefreshSummary } from "../forecast/refresh";
import { operationalStatus } from "./status";

/** Latency buckets (seconds): the API answers in about a millisecond; a slow forecast in tens. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const REFRESH_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1200];

/** The endpoint label of a request path: the route, never the spot id or the query. */
export function endpointLabel(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const q = url.indexOf("?", start);
  return routeLabel(start < 0 ? "/" : url.slice(start, q < 0 ? undefined : q));
}

class LatencyTally {
  readonly counts = new Float64Array(BUCKETS.length);
  count = 0;
  sum = 0;
  observe(seconds: number): void {
    this.count++;
    this.sum += seconds;
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) this.counts[i]!++;
  }
}

export class Metrics {
  readonly registry = new client.Registry();
  private readonly requests = new Map<string, number>();
  private readonly latency = new Map<string, LatencyTally>();

  constructor(readonly app: App) {
    const register = [this.registry];
    client.collectDefaultMetrics({ register: this.registry, prefix: "surfcast_" });
    const requests = this.requests;
    const latency = this.latency;
    new client.Counter({
      name: "surfcast_http_requests_total",
      help: "HTTP requests by endpoint (route) and status",
      labelNames: ["endpoint", "status"],
      registers: register,
      collect() {
        // The totals live in the tally; a counter is re-read from it at each scrape.
        this.reset();
        for (const [k, n] of requests) {
          const [endpoint, status] = k.split(" ") as [string, string];
          this.inc({ endpoint, status }, n);
        }
      },
    });
    this.registry.registerMetric({
      name: "surfcast_http_request_duration_seconds",
      help: "HTTP request latency by endpoint",
      aggregator: "sum",
      get: async () => ({
        name: "surfcast_http_request_duration_seconds",
        help: "HTTP request latency by endpoint",
        type: "histogram",
        aggregator: "sum",
        values: [...latency].flatMap(([endpoint, t]) => [
          ...BUCKETS.map((le, i) => ({ metricName: "surfcast_http_request_duration_seconds_bucket", labels: { endpoint, le }, value: t.counts[i]! })),
          { metricName: "surfcast_http_request_duration_seconds_bucket", labels: { endpoint, le: "+Inf" }, value: t.count },
          { metricName: "surfcast_http_request_duration_seconds_sum", labels: { endpoint }, value: t.sum },
          { metricName: "surfcast_http_request_duration_seconds_count", labels: { endpoint }, value: t.count },
        ]),
      }),
    } as unknown as client.Metric);
    const meter = app.meter;
    new client.Counter({
      name: "surfcast_rate_limited_total",
      help: "Requests refused with 429, by the limit that refused them (daily quota or per-minute burst)",
      labelNames: ["limit"],
      registers: register,
      collect() {
        this.reset();
        this.inc({ limit: "daily" }, meter.refusals.daily);
        this.inc({ limit: "burst" }, meter.refusals.burst);
      },
    });
    new client.Counter({
      name: "surfcast_mcp_tool_calls_total",
      help: "MCP tool calls admitted, by tool",
      labelNames: ["tool"],
      registers: register,
      collect() {
        this.reset();
        for (const [endpoint, n] of meter.admitted) if (endpoint.startsWith("mcp.")) this.inc({ tool: endpoint.slice(4) }, n);
      },
    });
    const feeds = app.calendars.tally;
    new client.Counter({
      name: "surfcast_calendar_feed_fetches_total",
      help: "Alerts' calendar feed fetches by answer: built (the forecast read and the feed written), kept (the kept text), spent (429)",
      labelNames: ["answer"],
      registers: register,
      collect() {
        this.reset();
        this.inc({ answer: "built" }, feeds.built);
        this.inc({ answer: "kept" }, feeds.kept);
        this.inc({ answer: "spent" }, feeds.spent);
      },
    });
    new client.Gauge({
      name: "surfcast_usage_flush_lag_seconds",
      help: "Seconds since usage counts were last written to the database",
      registers: register,
      collect() {
        this.set((Date.now() - meter.lastFlushAt) / 1000);
      },
    });
    new client.Gauge({
      name: "surfcast_forecast_age_seconds",
      help: "Age of the oldest and newest stored forecast document",
      labelNames: ["which"],
      registers: register,
      async collect() {
        const span = await app.stores.forecasts.documentSpan();
        const now = app.clock.now();
        if (span.oldest !== null) this.set({ which: "oldest" }, (now - span.oldest) / 1000);
        if (span.newest !== null) this.set({ which: "newest" }, (now - span.newest) / 1000);
      },
    });
    new client.Gauge({
      name: "surfcast_tls_certificate_expiry_timestamp_seconds",
      help: "Expiry of the TLS certificate served (Unix time); absent without TLS",
      registers: register,
      collect() {
        if (app.certificate.notAfter !== null) this.set(app.certificate.notAfter / 1000);
      },
    });
    new client.Gauge({
      name: "surfcast_tide_window_end_timestamp_seconds",
      help: "End of the stored tide window (Unix time)",
      registers: register,
      async collect() {
        const end = await app.tides.windowEnd();
        if (end !== null) this.set(end / 1000);
      },
    });
    const runs = new client.Counter({ name: "surfcast_refresh_runs_total", help: "Forecast refreshes by outcome (complete, partial, failed)", labelNames: ["outcome"], registers: register });
    const duration = new client.Histogram({ name: "surfcast_refresh_duration_seconds", help: "Forecast refresh duration", buckets: REFRESH_BUCKETS, registers: register });
    const weight = new client.Counter({ name: "surfcast_refresh_upstream_weight_total", help: "Open-Meteo call weight spent by refreshes", registers: register });
    this.onRefresh = (s: RefreshSummary) => {
      runs.inc({ outcome: outcomeOf(s) });
      duration.observe(s.durationMs / 1000);
      weight.inc(s.weight);
    };
    app.refreshEvents.on(this.onRefresh);
  }

  private readonly onRefresh: (s: RefreshSummary) => void;

  /** The request-path tally: called once per answered request. */
  record(url: string, status: number, seconds: number): void {
    const endpoint = endpointLabel(url);
    const k = `${endpoint} ${status}`;
    this.requests.set(k, (this.requests.get(k) ?? 0) + 1);
    let t = this.latency.get(endpoint);
    if (!t) this.latency.set(endpoint, (t = new LatencyTally()));
    t.observe(seconds);
  }

  /** Wraps the server's fetch handler with the tally. */
  instrument<R extends Response | Promise<Response>>(handler: (req: Request, peer?: Peer) => R): (req: Request, peer?: Peer) => Response | Promise<Response> {
    return (req, peer) => {
      const started = performance.now();
      const out = handler(req, peer);
      if (out instanceof Promise) {
        return out.then((res) => {
          this.record(req.url, res.status, (performance.now() - started) / 1000);
          return res;
        });
      }
      this.record(req.url, (out as Response).status, (performance.now() - started) / 1000);
      return out as Response;
    };
  }

  close(): void {
    this.app.refreshEvents.off(this.onRefresh);
  }
}

/**
 * The metrics port (127.0.0.1 only): GET /metrics in the Prometheus text format, and GET /status, the operator's
 * full status (`surfcast status --json`: with the last refresh's reason, which the public /healthz?verbose=1 leaves out).
 */
export function startMetricsServer(metrics: Metrics, port: number): Server<undefined> {
  let server: Server<undefined>;
  try {
    server = serveMetrics(metrics, port);
  } catch (err) {
    if ((err as { code?: string }).code === "EADDRINUSE") throw new UserError(`metrics port ${port} on 127.0.0.1 is already in use: choose another with SURFCAST_METRICS_PORT`);
    throw err;
  }
  log.info(`metrics on http://127.0.0.1:${server.port}/metrics`);
  return server;
}

function serveMetrics(metrics: Metrics, port: number): Server<undefined> {
  const handlers: Record<ServeOf<"metrics">, () => Promise<Response>> = {
    metrics: async () => new Response(await metrics.registry.metrics(), { headers: { "Content-Type": metrics.registry.contentType } }),
    status: async () => Response.json(await operationalStatus(metrics.app), { headers: { "Cache-Control": "no-store" } }),
  };
  return Bun.serve({
    port,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      const mount = metricsMountAt(new URL(req.url).pathname);
      return mount ? handlers[mount.serve]() : new Response("not found\n", { status: 404 });
    },
  });
}
