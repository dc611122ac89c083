/**
 * Keeps the server's memory near what it uses. JavaScriptCore sizes its heap by the machine's RAM: on a large
 * machine it lets garbage reach a few hundred MB before collecting, and a serving burst of forecast documents
 * (each ~1 MB of parse garbage) would take the process far past what a small box has. Every 250 ms, when the
 * resident size is above the target, a full collection runs (~10–30 ms with the server's ~40 MB of live data).
 * A collection that frees little (under FREED_MB) while the process stays above the target means its live data
 * and caches are above it, not garbage: the next waits QUIET_MS, so an idle server in that state does not run four
 * full collections a second for nothing, and a busy one keeps collecting at full pace. See bench/README.md ("Memory").
 */
import { log } from "../core/log";

/** How often the resident size is compared with the target (reading it is one /proc read). */
const CHECK_EVERY_MS = 250;
/** A collection that frees less than this (MB of heap) is not keeping up with garbage: there is little to collect. */
export const FREED_MB = 4;
/** The pause after such a collection while the process stays above the target. */
export const QUIET_MS = 2_000;

/**
 * Until when the governor waits after a collection: QUIET_MS more when it freed under FREED_MB and left the
 * process above the target, else no wait (`now`).
 */
export function quietUntil(now: number, freedMb: number, rssAfterMb: number, targetMb: number): number {
  return freedMb < FREED_MB && rssAfterMb > targetMb ? now + QUIET_MS : now;
}

export interface MemoryGovernor {
  /** Full collections forced so far. */
  collections(): number;
  stop(): void;
}

export interface MemoryProbe {
  rssMb(): number;
  heapMb(): number;
  collect(): void;
}

const MB = 1_048_576;
const PROCESS: MemoryProbe = { rssMb: () => process.memoryUsage.rss() / MB, heapMb: () => process.memoryUsage().heapUsed / MB, collect: () => Bun.gc(true) };

/** `targetMb`: the resident size above which garbage is collected (0: never; leave it to the engine). */
export function startMemoryGovernor(targetMb: number, probe: MemoryProbe = PROCESS): MemoryGovernor {
  let collections = 0;
  let waitUntil = 0;
  const timer =
    targetMb > 0
      ? setInterval(() => {
          const started = performance.now();
          const rssMb = probe.rssMb();
          if (rssMb <= targetMb || started < waitUntil) return;
          const heapBefore = probe.heapMb();
          probe.collect();
          collections++;
          const freedMb = heapBefore - probe.heapMb();
          const afterMb = probe.rssMb();
          waitUntil = quietUntil(performance.now(), freedMb, afterMb, targetMb);
          log.debug("memory above target: garbage collected", { rssMb: Math.round(rssMb), afterMb: Math.round(afterMb), freedMb: Math.round(freedMb), targetMb, ms: Math.round(performance.now() - started) });
        }, CHECK_EVERY_MS)
      : null;
  timer?.unref();
  return {
    collections: () => collections,
    stop: () => timer && clearInterval(timer),
  };
}
