/** Background tide work for a running server. STUB — filled in by the tides issue (#5). */
import type { App } from "../app";

export function startTideJobs(_app: App): { stop(): void } {
  return { stop() {} };
}
