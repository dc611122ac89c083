/**
 * forecast_documents access: batch writes in one transaction (readers see old or new, never a mix). A server
 * notices documents written by another process (`surfcast refresh`) through db/changes.ts.
 */
import { readMeta, writeMeta } from "../db/meta";
import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import { writeTransaction, type Db } from "../db";

export interface StoredRow {
  updatedAt: number;
  /** The document's JSON text. */
  body: string;
}

/**
 * A document as stored: brotli at quality 2 — ~9 KB instead of ~96 KB of JSON (the full catalog in ~55 MB), 0.3 ms
 * to compress and 0.14 ms to read back. Quality 4 saves 3.5 % of the bytes for 1.9× the time (a full refresh paid
 * ~4.5 s for it instead of ~2.5); the stored bytes are never sent to a client as they are (docs/forecast.md, "Storage").
 */
export function packDocument(json: string): Uint8Array {
  return brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 2, [constants.BROTLI_PARAM_SIZE_HINT]: json.length } });
}

/** The JSON text of a stored body: compressed, or text as written before documents were compressed. */
export function documentText(body: string | Uint8Array): string {
  return typeof body === "string" ? body : brotliDecompressSync(body).toString("utf8");
}

/** Upserts every document of a batch, atomically. A JSON string is compressed here; bytes are stored as given. */
export function writeDocuments(db: Db, updatedAt: number, documents: readonly { spotId: string; body: string | Uint8Array }[]): void {
  const sqlite = db.$client;
  const upsert = sqlite.prepare(
    "INSERT INTO forecast_documents (spot_id, updated_at, body) VALUES (?, ?, ?) ON CONFLICT(spot_id) DO UPDATE SET updated_at = excluded.updated_at, body = excluded.body",
  );
  const packed = documents.map((d) => ({ spotId: d.spotId, body: typeof d.body === "string" ? packDocument(d.body) : d.body }));
  writeTransaction(db, () => {
    for (const d of packed) upsert.run(d.spotId, updatedAt, d.body);
  });
}

export function readDocument(db: Db, spotId: string): StoredRow | null {
  const row = db.$client.query("SELECT updated_at AS updatedAt, body FROM forecast_documents WHERE spot_id = ?").get(spotId) as { updatedAt: number; body: string | Uint8Array } | null;
  return row ? { updatedAt: row.updatedAt, body: documentText(row.body) } : null;
}

/** spot id → updatedAt of its document, for the spots that have one. */
export function documentAges(db: Db): Map<string, number> {
  const rows = db.$client.query("SELECT spot_id AS spotId, updated_at AS updatedAt FROM forecast_documents").all() as { spotId: string; updatedAt: number }[];
  return new Map(rows.map((r) => [r.spotId, r.updatedAt]));
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

const LAST_REFRESH = "refresh.last";
const RETRY_AT = "refresh.retry_at";

export function recordRefresh(db: Db, record: RefreshRecord): void {
  writeMeta(db, LAST_REFRESH, JSON.stringify(record));
}

export function lastRefresh(db: Db): RefreshRecord | null {
  const value = readMeta(db, LAST_REFRESH);
  return value === null ? null : (JSON.parse(value) as RefreshRecord);
}

/** When the scheduler will retry what the last run missed (ISO time), or null. */
export function recordRetryAt(db: Db, at: Date | null): void {
  writeMeta(db, RETRY_AT, at?.toISOString() ?? null);
}

export function retryAt(db: Db): string | null {
  return readMeta(db, RETRY_AT);
}

/** Oldest and newest document update times (epoch ms), and how many documents there are. */
export function documentSpan(db: Db): { count: number; oldest: number | null; newest: number | null } {
  return db.$client.query("SELECT COUNT(*) AS count, MIN(updated_at) AS oldest, MAX(updated_at) AS newest FROM forecast_documents").get() as {
    count: number;
    oldest: number | null;
    newest: number | null;
  };
}

const DATA_MODE = "data.mode";

/**
 * Whether the directory holds demo data (`serve --demo`) or real forecasts, or null before its first serve.
 * A database with forecasts but no marker predates demo mode: it is real.
 */
export function dataMode(db: Db): "demo" | "real" | null {
  const value = readMeta(db, DATA_MODE);
  if (value === "demo" || value === "real") return value;
  return documentSpan(db).count > 0 ? "real" : null;
}

export function recordDataMode(db: Db, mode: "demo" | "real"): void {
  writeMeta(db, DATA_MODE, mode);
}
