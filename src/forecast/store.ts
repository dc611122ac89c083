/**
 * The forecast room's store: the documents (forecast_documents; a batch is written at once, so readers see old or
 * new, never a mix), the computed facings (spot_facing), when spots were asked for (spot_demand) and the refresh's
 * facts in `meta`; drizzle-store.ts implements it for both databases.
 */

export interface StoredRow {
  updatedAt: number;
  /** The document's JSON text. */
  body: string;
}

export interface ForecastStore {
  /** Upserts every document of a batch, atomically. A JSON string is compressed; bytes are stored as given. */
  writeDocuments(updatedAt: number, documents: readonly { spotId: string; body: string | Uint8Array }[]): Promise<void>;
  readDocument(spotId: string): Promise<StoredRow | null>;
  /** spot id → updatedAt of its document, for the spots that have one. */
  documentAges(): Promise<Map<string, number>>;
  /** The spots whose stored facing was computed by `method` (forecast/facings.ts). */
  spotsWithFacing(method: string): Promise<Set<string>>;
  /** Stores computed facings, replacing the spots' earlier ones, in one transaction. */
  writeFacings(rows: readonly { spotId: string; facing: number | null; method: string; computedAt: number }[]): Promise<void>;
  /** Every spot's facing import override and computed facing (null when not given, not computed or unknown). */
  storedFacings(): Promise<{ id: string; override: number | null; facing: number | null }[]>;
  /** Stores when spots were last asked for (forecast/demand.ts), in one transaction. */
  writeDemand(rows: readonly { spotId: string; requestedAt: number }[]): Promise<void>;
  /** The spots last asked for at or after `since` (epoch ms). */
  demandedSince(since: number): Promise<Set<string>>;
  recordRefresh(record: RefreshRecord): Promise<void>;
  lastRefresh(): Promise<RefreshRecord | null>;
  /** When the scheduler will retry what the last run missed, or null. */
  recordRetryAt(at: Date | null): Promise<void>;
  /** That retry as an ISO time, or null. */
  retryAt(): Promise<string | null>;
  /** Oldest and newest document update times (epoch ms), and how many documents there are. */
  documentSpan(): Promise<{ count: number; oldest: number | null; newest: number | null }>;
  /** Demo data, real forecasts, or null before the first serve (see dataModeOf). */
  dataMode(): Promise<"demo" | "real" | null>;
  recordDataMode(mode: "demo" | "real"): Promise<void>;
}

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
