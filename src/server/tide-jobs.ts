/**
 * Background tide work for a running server: at startup, load the tide database and bring the stored window up to
 * date (choosing stations for new spots); then every day just after UTC midnight, move the window one day on.
 */
import { Cron } from "croner";
import type { App } from "../app";
import { log } from "../core/log";
import { onceAmongServers, slotAt } from "./cluster";
import { HOUR_MS, MINUTE_MS } from "../core/clock";

/** 00:05 UTC: the window's days are UTC days, so it moves right after midnight. */
export const TIDE_WINDOW_CRON = "5 0 * * *";

export function startTideJobs(app: App): { stop(): void } {
  const controller = new AbortController();
  // One server moves the shared window; the others wait for it, then see the window done.
  const run = (why: string, slot: string) => {
    onceAmongServers(app, "tide-window", slot, (signal) => app.tides.maintainWindow(() => signal.aborted), controller.signal).catch((err) =>
      log.error("tide window pass failed; will retry at the next run", { why, error: String(err) }),
    );
  };
  const daily = new Cron(TIDE_WINDOW_CRON, { timezone: "UTC", protect: true }, () => run("daily", slotAt("daily", app.clock.now(), MINUTE_MS)));
  // After the server's first turn, so it is listening before the database load blocks the loop for a moment.
  const startup = setTimeout(() => run("startup", slotAt("start-up", app.clock.now(), HOUR_MS)), 0);
  return {
    stop() {
      controller.abort();
      clearTimeout(startup);
      daily.stop();
    },
  };
}
