/**
 * Keeps the server's memory near what it uses. JavaScriptCore sizes its heap by the machine's RAM: on a large
 * machine it lets garbage reach a few hundred MB before collecting, and a serving burst of forecast documents
 * (each ~1 MB of parse garbage) would take the process far past what a small box has. Every 250 ms, when the
 * resident size is above the target, a full collection runs (~10–30 ms with the server's ~40 MB of live data).
 * When a collection cannot bring the process under the target (its live data and caches are above it), the next
 * waits until the resident size has grown GROWTH_MB past where that one left it, or RETRY_MS have passed (freed
 * pages reach the system some time after a collection): not four collections a second at idle for nothing.
 * See bench/README.md ("Memory").
 */
import { log } from "../core/log";

/** How often the resident size is compared with the target (reading it is one /proc read). */
const CHECK_EVERY_MS = 250;
/** Above the target, growth past the last collection's result that calls for another one at once. */
export const GROWTH_MB = 16;
/** Above the target without that growth, the time after which another collection is tried. */
export const RETRY_MS = 2_000;

/**
 * Whether to collect now: above the target, and — after a collection that left the process above it, at
 * `settledMb` (0 when the last one reached the target) — grown GROWTH_MB since, or RETRY_MS later.
 */
export function shouldCollect(rssMb: number, targetMb: number, settledMb: number, sinceLastMs: number): boolean {
  if (targetMb <= 0 || rssMb <= targetMb) return false;
  return settledMb === 0 || rssMb > settledMb + GROWTH_MB || sinceLastMs >= RETRY_MS;
}

export interface MemoryGovernor {
  /** Full collections forced so far. */
  collections(): number;
  stop(): void;
}

export interface MemoryProbe {
  rssMb(): number;
  collect(): void;
}

const PROCESS: MemoryProbe = { rssMb: () => process.memoryUsage.rss() / 1_048_576, collect: () => Bun.gc(true) };

/** `targetMb`: the resident size above which garbage is collected (0: never; leave it to the engine). */
export function startMemoryGovernor(targetMb: number, probe: MemoryProbe = PROCESS): MemoryGovernor {
  let collections = 0;
  let settledMb = 0;
  let lastAt = 0;
  const timer =
    targetMb > 0
      ? setInterval(() => {
          const rssMb = probe.rssMb();
          if (rssMb <= targetMb) settledMb = 0;
          const started = performance.now();
          if (!shouldCollect(rssMb, targetMb, settledMb, started - lastAt)) return;
          lastAt = started;
          probe.collect();
          collections++;
          const afterMb = probe.rssMb();
          settledMb = afterMb > targetMb ? afterMb : 0;
          log.debug("memory above target: garbage collected", { rssMb: Math.round(rssMb), afterMb: Math.round(afterMb), targetMb, ms: Math.round(performance.now() - started) });
        }, CHECK_EVERY_MS)
      : null;
  timer?.unref();
  return {
    collections: () => collections,
    stop: () => timer && clearInterval(timer),
  };
}
