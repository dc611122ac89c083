/**
 * Background tide work for a running server: at startup, load the tide database and bring the stored window up to
 * date (choosing stations for new spots); then every day just after UTC midnight, move the window one day on.
 */
import { Cron } from "croner";
import type { App } from "../app";
import { log } from "../core/log";
import { onceAmongServers, slotAt } from "./cluster";
import { memoryPacer } from "../ops/memory";
import { HOUR_MS, MINUTE_MS } from "../core/clock";

/** 00:05 UTC: the window's days are UTC days, so it moves right after midnight. */
export const TIDE_WINDOW_CRON = "5 0 * * *";

/** `startup` settles when the start-up pass is over (done, failed or stopped). */
export function startTideJobs(app: App): { stop(): void; startup: Promise<void> } {
  const controller = new AbortController();
  // One server moves the shared window; the others wait for it, then see the window done.
  const run = (why: string, slot: string) =>
    onceAmongServers(app, "tide-window", slot, (signal) => app.tides.maintainWindow({ shouldStop: () => signal.aborted, pacer: memoryPacer }), controller.signal).then(
      () => undefined,
      (err) => log.error("tide window pass failed; will retry at the next run", { why, error: String(err) }),
    );
  const daily = new Cron(TIDE_WINDOW_CRON, { timezone: "UTC", protect: true }, () => void run("daily", slotAt("daily", app.clock.now(), MINUTE_MS)));
  let startupOver!: () => void;
  const startup = new Promise<void>((resolve) => (startupOver = resolve));
  // After the server's first turn, so it is listening before the pass takes the loop for a moment.
  const startupRun = setTimeout(() => void run("startup", slotAt("start-up", app.clock.now(), HOUR_MS)).finally(startupOver), 0);
  return {
    startup,
    stop() {
      controller.abort();
      clearTimeout(startupRun);
      startupOver();
      daily.stop();
    },
  };
}
