/** Startup: from exec of `surfcast serve` to the first 200 from /healthz, on a fresh and on an existing data dir. */
import { BINARY, tempDir } from "../test/support/env";
import { fmt, type Section } from "./report";

const TARGET_MS = 500;

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

async function timeToHealthy(dataDir: string): Promise<number> {
  const port = freePort();
  const started = performance.now();
  const proc = Bun.spawn([BINARY, "--data-dir", dataDir, "serve", "--port", String(port), "--host", "127.0.0.1", "--no-scheduler"], {
    stdout: "ignore",
    stderr: "ignore",
    env: { ...process.env, SURFCAST_LOG_LEVEL: "warn" },
  });
  try {
    while (performance.now() - started < 20_000) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (res.status === 200) return performance.now() - started;
      } catch {
        /* not listening yet */
      }
      if (proc.exitCode !== null) throw new Error(`surfcast serve exited with ${proc.exitCode} before /healthz answered`);
      await Bun.sleep(1);
    }
    throw new Error("/healthz did not answer 200 within 20 s");
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

export async function startupSection(runs: number): Promise<Section> {
  const dir = tempDir("bench-startup");
  const cold = await timeToHealthy(dir);
  const warm: number[] = [];
  for (let i = 0; i < runs; i++) warm.push(await timeToHealthy(dir));
  warm.sort((a, b) => a - b);
  const median = warm[Math.floor(warm.length / 2)]!;
  const worst = warm[warm.length - 1]!;
  return {
    title: "Startup: exec to first /healthz 200",
    intro: "Polled every millisecond from the moment `surfcast serve` is spawned. First start = empty data dir (migrations and catalog import included).",
    header: ["case", "ms", "target", "verdict"],
    rows: [
      ["first start (empty data dir)", fmt.ms(cold), "—", "—"],
      [`restart, median of ${runs}`, fmt.ms(median), `< ${TARGET_MS}`, fmt.verdict(median < TARGET_MS)],
      [`restart, worst of ${runs}`, fmt.ms(worst), `< ${TARGET_MS}`, fmt.verdict(worst < TARGET_MS)],
    ],
  };
}
