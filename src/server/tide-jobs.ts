/**
 * Background tide work for a running server: at startup, load the tide database and bring the stored window up to
 * date (choosing stations for new spots); then every day just after UTC midnight, move the window one day on.
 */
import { Cron } from "croner";
import type { App } from "../app";
import { log } from "../core/log";

/** 00:05 UTC: the window's days are UTC days, so it moves right after midnight. */
export const TIDE_WINDOW_CRON = "5 0 * * *";

export function startTideJobs(app: App): { stop(): void } {
  let stopped = false;
  const run = (why: string) => {
    app.tides.maintainWindow(() => stopped).catch((err) => log.error("tide window pass failed; will retry at the next run", { why, error: String(err) }));
  };
  const daily = new Cron(TIDE_WINDOW_CRON, { timezone: "UTC", protect: true }, () => run("daily"));
  // After the server's first turn, so it is listening before the database load blocks the loop for a moment.
  const startup = setTimeout(() => run("startup"), 0);
  return {
    stop() {
      stopped = true;
      clearTimeout(startup);
      daily.stop();
    },
  };
}
