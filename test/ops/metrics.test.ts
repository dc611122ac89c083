/**
 * /metrics through the compiled binary: off by default, on a loopback-only port with SURFCAST_METRICS=on,
 * scraped by a real Prometheus (Debian's `prometheus` package, installed here when missing; the scrape test
 * skips, saying so, only where it cannot be installed); in process, the refresh events a Metrics listens to (its App's).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/env";
import { createKey, metricsUrlOf, startServer, type RunningServer } from "../support/binary";
import { openApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import type { RefreshSummary } from "../../src/forecast/refresh";
import { Metrics } from "../../src/ops/metrics";
import { waitFor } from "../support/wait";

function prometheusBinary(): string | null {
  if (!Bun.which("prometheus")) {
    Bun.spawnSync(["apt-get", "install", "-y", "--no-install-recommends", "prometheus"], { stdout: "ignore", stderr: "ignore", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  }
  return Bun.which("prometheus");
}

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

let server: RunningServer;
let metricsUrl: string;
let key: string;

beforeAll(async () => {
  const dataDir = tempDir("metrics");
  key = createKey(dataDir, "metrics@example.com", "starter", ["--minute-limit", "2"]);
  server = await startServer({ dataDir, env: { SURFCAST_METRICS: "on", SURFCAST_METRICS_PORT: "0" } });
  metricsUrl = await metricsUrlOf(server);
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

describe("metrics", () => {
  test("off by default: no metrics port, nothing at /metrics on the API port", async () => {
    const plain = await startServer();
    try {
      expect(plain.output()).not.toContain("metrics on");
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
    } finally {
      await plain.stop();
    }
  });

  test("requests by endpoint and status, latencies, 429s by limit, memory, forecast and flush gauges", async () => {
    for (let i = 0; i < 4; i++) await (await fetch(`${server.url}/v1/spots/supertubos`, { headers: { "X-API-Key": key } })).arrayBuffer();
    const text = await (await fetch(metricsUrl)).text();
    expect(text).toContain('surfcast_http_requests_total{endpoint="/v1/spots/{id}",status="200"} 2');
    expect(text).toContain('surfcast_http_requests_total{endpoint="/v1/spots/{id}",status="429"} 2');
    expect(text).toContain('surfcast_rate_limited_total{limit="burst"} 2');
    expect(text).toMatch(/surfcast_http_request_duration_seconds_count\{endpoint="\/v1\/spots\/\{id\}"\} 4/);
    expect(text).toMatch(/^surfcast_process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^surfcast_usage_flush_lag_seconds [\d.e-]+$/m);
    expect(text).toContain("# TYPE surfcast_refresh_runs_total counter");
    expect(text).not.toContain("supertubos"); // routes, never ids
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404); // never on the public port
  });

  test("a real Prometheus scrapes it", async () => {
    const prometheus = prometheusBinary();
    if (!prometheus) {
      console.warn("SKIPPED: Debian's prometheus package could not be installed; /metrics not scraped by a real Prometheus");
      return;
    }
    const dir = tempDir("prometheus");
    const target = new URL(metricsUrl).host;
    writeFileSync(join(dir, "prometheus.yml"), `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: surfcast\n    static_configs:\n      - targets: ["${target}"]\n`);
    const port = freePort();
    const proc = Bun.spawn([prometheus, `--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`], { stdout: "ignore", stderr: "pipe" });
    try {
      const query = async (q: string) => {
        const r = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(q)}`).catch(() => null);
        return r?.ok ? ((await r.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result : [];
      };
      const up = await waitFor("Prometheus to scrape the server", async () => {
        const found = await query('up{job="surfcast"} == 1');
        return found.length > 0 && found;
      }, 30_000, 200);
      expect(up).toHaveLength(1);
      const requests = await query('surfcast_http_requests_total{endpoint="/v1/spots/{id}",status="429"}');
      expect(requests.map((r) => r.value[1])).toEqual(["2"]);
      expect((await query("surfcast_process_resident_memory_bytes")).length).toBe(1);
    } finally {
      proc.kill();
      await proc.exited;
    }
  }, 60_000);
});

describe("refresh events", () => {
  test("the metrics count the refreshes their App tells of, not another App's, and no more once closed", async () => {
    const [app, another] = await Promise.all(["metrics-events", "metrics-events-other"].map((dir) => openApp(loadConfig({ dataDir: tempDir(dir) }))));
    const metrics = new Metrics(app!);
    const runs = () => metrics.registry.getSingleMetricAsString("surfcast_refresh_runs_total");
    const summary = { ok: 3, failed: 1, weight: 2.5, durationMs: 1200 } as RefreshSummary;
    app!.refreshEvents.emit(summary);
    another!.refreshEvents.emit(summary);
    expect(await runs()).toMatch(/^surfcast_refresh_runs_total\{outcome="partial"\} 1$/m);
    metrics.close();
    app!.refreshEvents.emit(summary);
    expect(await runs()).toMatch(/^surfcast_refresh_runs_total\{outcome="partial"\} 1$/m);
    await Promise.all([app!.close(), another!.close()]);
  });
});
