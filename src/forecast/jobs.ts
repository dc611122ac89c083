/** Background forecast work for a running server (refresh schedule). STUB — filled in by the forecast issue (#6). */
import type { App } from "../app";

export function startForecastJobs(_app: App): { stop(): void } {
  return { stop() {} };
}
