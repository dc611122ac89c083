/**
 * Keeps the server's memory near what it uses. JavaScriptCore sizes its heap by the machine's RAM: on a large
 * machine it lets garbage reach a few hundred MB before collecting, and a serving burst of forecast documents
 * (each ~1 MB of parse garbage) would take the process far past what a small box has. Every 250 ms, when the
 * resident size is above the target and the heap has grown HEAP_GROWTH_MB since the last collection (garbage is
 * being made), a full collection runs (~10–30 ms with the server's ~40 MB of live data). A busy server is collected
 * at every check; an idle one whose caches and live data sit above the target is not collected over and over for
 * nothing. See bench/README.md ("Memory").
 */
import { edenGC } from "bun:jsc";
import { clearCaches, MB } from "../core/caches";
import { log } from "../core/log";
import { yieldToEventLoop, type Pacer } from "../core/pacing";
import { releaseCodePages } from "./code-pages";

/** How often the resident size is compared with the target (reading it is one /proc read). */
const CHECK_EVERY_MS = 250;
/** Heap growth since the last collection that makes another one worth running. */
export const HEAP_GROWTH_MB = 8;

/** Whether to collect now: above the target, and the heap grown HEAP_GROWTH_MB since the last collection left it. */
export function shouldCollect(rssMb: number, targetMb: number, heapMb: number, heapAfterLastMb: number): boolean {
  return targetMb > 0 && rssMb > targetMb && heapMb - heapAfterLastMb >= HEAP_GROWTH_MB;
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

const PROCESS: MemoryProbe = { rssMb: () => process.memoryUsage.rss() / MB, heapMb: () => process.memoryUsage().heapUsed / MB, collect: () => Bun.gc(true) };

/** `targetMb`: the resident size above which garbage is collected (0: never; leave it to the engine). */
export function startMemoryGovernor(targetMb: number, probe: MemoryProbe = PROCESS): MemoryGovernor {
  let collections = 0;
  let heapAfterLastMb = -Infinity; // the first check above the target collects
  const timer =
    targetMb > 0
      ? setInterval(() => {
          const rssMb = probe.rssMb();
          if (rssMb <= targetMb) return;
          const heapMb = probe.heapMb();
          if (!shouldCollect(rssMb, targetMb, heapMb, heapAfterLastMb)) return;
          const started = performance.now();
          probe.collect();
          collections++;
          heapAfterLastMb = probe.heapMb();
          log.debug("memory above target: garbage collected", { rssMb: Math.round(rssMb), freedMb: Math.round(heapMb - heapAfterLastMb), targetMb, ms: Math.round(performance.now() - started) });
        }, CHECK_EVERY_MS)
      : null;
  timer?.unref();
  return {
    collections: () => collections,
    stop: () => timer && clearInterval(timer),
  };
}

/** How often the idle release looks at the request count. */
const IDLE_CHECK_MS = 1_000;

export interface IdleState {
  /** The request count at the last check, and when it last moved. */
  requests: number;
  since: number;
  /** Released since the count last moved: once per quiet spell. */
  released: boolean;
}

/** One check of the idle release: the state after it, and whether to release now (after `idleMs` without a request, once). */
export function idleStep(state: IdleState, requests: number, now: number, idleMs: number): { state: IdleState; release: boolean } {
  if (requests !== state.requests) return { state: { requests, since: now, released: false }, release: false };
  const release = idleMs > 0 && !state.released && now - state.since >= idleMs;
  return { state: release ? { ...state, released: true } : state, release };
}

/**
 * Collects, asks the engine to hand freed pages back to the system, and drops the pages of the executable's code read
 * in so far (./code-pages.ts): before a full refresh, the code of what came before it (a first start's migrations,
 * import and tide pass) is not kept resident through the refresh's peak, whose own code comes back as it runs. The
 * MB of code mappings dropped.
 */
export async function compactMemory(): Promise<number> {
  Bun.gc(true);
  Bun.shrink();
  return releaseCodePages();
}

/**
 * The process's pacing of its long jobs (the forecast refresh, the tide window pass: core/pacing.ts): a young-generation
 * collection where a job says its short-lived objects died (a few ms: little survives), a full one where it says its
 * batches' leftovers did, and a compacted process before a refresh's batches. Where and how often is the jobs' to say;
 * that it collects there is what keeps their peaks down (bench/README.md, "Memory").
 */
export const memoryPacer: Pacer = {
  pause: yieldToEventLoop,
  dropYoung: () => void edenGC(),
  dropAll: () => Bun.gc(true),
  beforeBatches: compactMemory,
};

/**
 * Drops every cache (core/caches.ts: the bounded caches, the loaded catalog with its search and spatial indexes, SQLite's
 * page caches), collects, asks the engine to hand freed pages back to the system, and drops the pages of the
 * executable's code that the busy spell read in (./code-pages.ts).
 */
export async function releaseMemory(): Promise<void> {
  const before = PROCESS.rssMb();
  const started = performance.now();
  const caches = clearCaches();
  const codeMb = await compactMemory();
  log.info("idle: caches dropped, memory handed back", { caches, rssMb: Math.round(before), afterMb: Math.round(PROCESS.rssMb()), heapMb: Math.round(PROCESS.heapMb()), codeMappedMb: Math.round(codeMb), ms: Math.round(performance.now() - started) });
}

export interface IdleRelease {
  releases(): number;
  stop(): void;
}

/**
 * An idle server gives its memory back: after `idleMs` without a request (0: never; `requests` reads the gate's count,
 * `App.activity`, in which health probes are not requests), once per quiet spell, every cache, the loaded catalog and
 * its indexes are dropped and the heap collected.
 * A cache refills at the next requests (a miss costs ~1 ms), the catalog at the next call that needs it (~50 ms), the
 * search index at the next search (~0.2–0.5 s, once); a server at rest on a small box holds little more than its code.
 * See bench/README.md ("Memory").
 */
export function startIdleRelease(idleMs: number, requests: () => number, release: () => void | Promise<void> = releaseMemory): IdleRelease {
  let releases = 0;
  let state: IdleState = { requests: requests(), since: Date.now(), released: false };
  const timer =
    idleMs > 0
      ? setInterval(() => {
          const step = idleStep(state, requests(), Date.now(), idleMs);
          state = step.state;
          if (!step.release) return;
          void (async () => {
            try {
              await release();
              releases++;
            } catch (err) {
              log.error("idle release failed; the server goes on", { error: String(err) });
            }
          })();
        }, Math.min(IDLE_CHECK_MS, idleMs))
      : null;
  timer?.unref();
  return {
    releases: () => releases,
    stop: () => timer && clearInterval(timer),
  };
}
