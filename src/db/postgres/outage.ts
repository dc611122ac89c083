/**
 * The log of a background task that keeps calling PostgreSQL (the change feed's safety net, the heartbeat): one
 * warning when its calls start failing and one line when they work again, however many attempts fail in between,
 * so an outage of an hour is two lines, not one per retry.
 */
import { log } from "../../core/log";

export interface OutageLog {
  /** After a failed call: warns if it is the first failure since the task last worked. */
  failed(err: unknown): void;
  /** After a call that worked: says so if the calls before it had failed. */
  worked(): void;
}

export function outageLog(task: string, clock: () => number = Date.now): OutageLog {
  let failingSince: number | null = null;
  return {
    failed(err) {
      if (failingSince !== null) return;
      failingSince = clock();
      log.warn(`${task}: PostgreSQL does not answer; retrying until it does`, { error: err instanceof Error ? err.message : String(err) });
    },
    worked() {
      if (failingSince === null) return;
      log.info(`${task}: PostgreSQL answers again`, { downSeconds: Math.round((clock() - failingSince) / 1000) });
      failingSince = null;
    },
  };
}
