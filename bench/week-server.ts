/**
 * Benchmark-only: a Surfcast server (the same app, HTTP server, usage flush and memory governor as `surfcast serve`) on a simulated
 * clock, for bench/memory.ts's week. It prints "listening <port>"; each "step <ms>" line on stdin moves the clock
 * forward by <ms>, runs the scheduled work of that moment (a full forecast refresh, then the tide window pass, as
 * the scheduler does twice a day) and prints "stepped <MB> heap <MB>": its resident size after a full collection and 5 s for
 * freed pages to go back (what it holds, not garbage). A "measure" line (sent while no request is made) runs the idle
 * release — caches emptied, a full collection, freed pages handed back — and prints "measured <MB> heap <MB>" 5 s later:
 * what the server keeps of its own, the figure a leak would grow. Run from source: `bun bench/week-server.ts DATA_DIR`.
 */
import { loadConfig } from "../src/config";
import { openApp } from "../src/app";
import { startHttpServer } from "../src/server/http";
import { refreshForecasts } from "../src/server/refresh";
import type { Clock } from "../src/core/clock";
import { heapStats } from "bun:jsc";
import { memoryPacer, releaseMemory, startIdleRelease, startMemoryGovernor } from "../src/ops/memory";

let offsetMs = 0;
const clock: Clock = { now: () => Date.now() + offsetMs };
const app = await openApp(loadConfig({ dataDir: process.argv[2]!, port: 0, host: "127.0.0.1", scheduler: false }), clock);
const server = startHttpServer(app, 0, "127.0.0.1");
setInterval(() => app.meter.flush(), 500);
startMemoryGovernor(app.config.memoryTargetMb);
startIdleRelease(app.config.idleReleaseMs, () => app.activity.requests);
setTimeout(() => app.spots.warm(), 50);
console.log(`listening ${server.port}`);
process.on("SIGTERM", () => process.exit(0));

/** Resident size and live heap (with external memory), in MB, 5 s after `settle` (for freed pages to go back). */
async function report(what: string, settle: () => unknown): Promise<void> {
  await settle();
  await Bun.sleep(5_000);
  const heap = heapStats();
  console.log(`${what} ${(process.memoryUsage.rss() / 1_048_576).toFixed(1)} heap ${((heap.heapSize + heap.extraMemorySize) / 1_048_576).toFixed(1)}`);
}

for await (const line of console) {
  if (line.trim() === "measure") {
    await report("measured", releaseMemory);
    continue;
  }
  const step = /^step (\d+)$/.exec(line.trim());
  if (!step) continue;
  offsetMs += Number(step[1]);
  await refreshForecasts(app);
  await app.tides.maintainWindow({ pacer: memoryPacer });
  await report("stepped", () => Bun.gc(true));
}
