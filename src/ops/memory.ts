/**
 * Keeps the server's memory near what it uses. JavaScriptCore sizes its heap by the machine's RAM: on a large
 * machine it lets garbage reach a few hundred MB before collecting, and a serving burst of forecast documents
 * (each ~1 MB of parse garbage) would take the process far past what a small box has. Once a second, when the
 * resident size is above the target, a full collection runs (~10–30 ms with the server's ~40 MB of live data; at most
 * one a second, so at most a few % of one core, and only while above the target). See bench/README.md ("Memory").
 */
import { log } from "../core/log";

/** How often the resident size is compared with the target (reading it is one /proc read). */
const CHECK_EVERY_MS = 250;

export interface MemoryGovernor {
  /** Full collections forced so far. */
  collections(): number;
  stop(): void;
}

/** `targetMb`: the resident size above which garbage is collected at once (0: never; leave it to the engine). */
export function startMemoryGovernor(targetMb: number): MemoryGovernor {
  let collections = 0;
  const timer =
    targetMb > 0
      ? setInterval(() => {
          const rssMb = process.memoryUsage.rss() / 1_048_576;
          if (rssMb <= targetMb) return;
          const started = performance.now();
          Bun.gc(true);
          collections++;
          log.debug("memory above target: garbage collected", { rssMb: Math.round(rssMb), targetMb, ms: Math.round(performance.now() - started) });
        }, CHECK_EVERY_MS)
      : null;
  timer?.unref();
  return {
    collections: () => collections,
    stop: () => timer && clearInterval(timer),
  };
}
