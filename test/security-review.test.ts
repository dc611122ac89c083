/**
 * Findings of a security review, through the compiled binary:
 *  - the public /healthz?verbose=1 tells the last refresh's outcome and time, never its upstream error text
 *    (that is on the metrics port's /status, 127.0.0.1 only, and in `surfcast status`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BINARY } from "./support/env";
import { startServer, type RunningServer } from "./support/binary";
import { startFakeOpenMeteo } from "./support/fake-open-meteo";

let server: RunningServer;
let metricsUrl: string;

beforeAll(async () => {
  server = await startServer({ env: { SURFCAST_METRICS: "on", SURFCAST_METRICS_PORT: "0" } });
  const deadline = Date.now() + 10_000;
  while (!/metrics on http:\/\/127\.0\.0\.1:\d+\/metrics/.test(server.output()) && Date.now() < deadline) await Bun.sleep(20);
  metricsUrl = /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(server.output())![1]!;
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

describe("/healthz?verbose=1", () => {
  test("shows the last refresh's outcome and time but not its upstream error text; the metrics port's /status does", async () => {
    const upstream = await startFakeOpenMeteo();
    const marker = "db7.internal.example:5432 UPSTREAM-ERROR-TEXT";
    try {
      upstream.inject({ status: 400, reason: marker });
      const proc = Bun.spawn([BINARY, "--data-dir", server.dataDir, "refresh", "--spots", "pipeline"], {
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, SURFCAST_OPEN_METEO_MARINE_URL: upstream.url, SURFCAST_OPEN_METEO_FORECAST_URL: upstream.url, SURFCAST_OPEN_METEO_RETRIES: "0" },
      });
      const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text(), new Response(proc.stdout).text()]);
      expect(code).not.toBe(0);
      expect(stderr).toContain("UPSTREAM-ERROR-TEXT"); // the operator's own command still says why
    } finally {
      await upstream.close();
    }

    const text = await (await fetch(`${server.url}/healthz?verbose=1`)).text();
    expect(text).not.toContain("UPSTREAM-ERROR-TEXT");
    expect(text).not.toContain("db7.internal");
    const verbose = JSON.parse(text) as { lastRefresh: Record<string, unknown> };
    expect(verbose.lastRefresh).toMatchObject({ outcome: "failed", spots: 1, ok: 0, failed: 1 });
    expect(typeof verbose.lastRefresh.at).toBe("string");
    expect(Object.keys(verbose.lastRefresh)).not.toContain("reason");

    const full = (await (await fetch(`${metricsUrl}/status`)).json()) as { lastRefresh: { reason?: string; outcome: string } };
    expect(full.lastRefresh.outcome).toBe("failed");
    expect(full.lastRefresh.reason).toContain("UPSTREAM-ERROR-TEXT");
    // The metrics listener is loopback only, and the API port has no /status.
    expect(new URL(metricsUrl).hostname).toBe("127.0.0.1");
    expect((await fetch(`${server.url}/status`)).status).toBe(404);
  }, 30_000);
});

