/**
 * forecast_documents access: batch writes in one transaction (readers see old or new, never a mix). A server
 * notices documents written by another process (`surfcast refresh`) through db/changes.ts.
 */
import { writeTransaction, type Db } from "../db";

export interface StoredRow {
  updatedAt: number;
  body: string;
}

/** Upserts every document of a batch, atomically. */
export function writeDocuments(db: Db, updatedAt: number, documents: readonly { spotId: string; body: string }[]): void {
  const sqlite = db.$client;
  const upsert = sqlite.prepare(
    "INSERT INTO forecast_documents (spot_id, updated_at, body) VALUES (?, ?, ?) ON CONFLICT(spot_id) DO UPDATE SET updated_at = excluded.updated_at, body = excluded.body",
  );
  writeTransaction(db, () => {
    for (const d of documents) upsert.run(d.spotId, updatedAt, d.body);
  });
}

export function readDocument(db: Db, spotId: string): StoredRow | null {
  const row = db.$client.query("SELECT updated_at AS updatedAt, body FROM forecast_documents WHERE spot_id = ?").get(spotId) as StoredRow | null;
  return row ?? null;
}

/** spot id → updatedAt of its document, for the spots that have one. */
export function documentAges(db: Db): Map<string, number> {
  const rows = db.$client.query("SELECT spot_id AS spotId, updated_at AS updatedAt FROM forecast_documents").all() as { spotId: string; updatedAt: number }[];
  return new Map(rows.map((r) => [r.spotId, r.updatedAt]));
}
