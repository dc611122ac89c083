/**
 * The forecast room's facts in `meta` — the last refresh, the scheduled retry, demo or real data — as both stores
 * (SQLite and PostgreSQL) keep and read them.
 */

/** The last refresh as recorded for `surfcast status` and `/healthz?verbose=1` (any process: server or console). */
export interface RefreshRecord {
  at: string;
  outcome: "complete" | "partial" | "failed";
  spots: number;
  ok: number;
  failed: number;
  durationMs: number;
  reason?: string;
}

export const FORECAST_META = {
  lastRefresh: "refresh.last",
  /** When the scheduler will retry what the last run missed (ISO time). */
  retryAt: "refresh.retry_at",
  dataMode: "data.mode",
} as const;

export function refreshRecordOf(stored: string | null): RefreshRecord | null {
  return stored === null ? null : (JSON.parse(stored) as RefreshRecord);
}

/**
 * Whether the database holds demo data (`serve --demo`) or real forecasts, or null before its first serve.
 * A database with forecasts but no marker predates demo mode: it is real.
 */
export function dataModeOf(stored: string | null, documents: number): "demo" | "real" | null {
  if (stored === "demo" || stored === "real") return stored;
  return documents > 0 ? "real" : null;
}
