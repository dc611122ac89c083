/**
 * How a forecast document's JSON is kept in a database (SQLite or PostgreSQL) and read back: the forecast store
 * writes with it, and `surfcast migrate` packs the text bodies an old SQLite file still holds.
 */
import { zlib } from "../core/zlib";

/**
 * A document as stored: brotli at quality 2: several times smaller than its JSON, and cheap to
 * write and read back; a higher quality saved a few percent of the bytes for twice the time (bench/README.md). The
 * stored bytes are never sent to a client as they are (docs/forecast.md, "Storage").
 */
export function packDocument(json: string): Uint8Array {
  const { brotliCompressSync, constants } = zlib();
  return brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 2, [constants.BROTLI_PARAM_SIZE_HINT]: json.length } });
}

/** The JSON text of a stored body: compressed, or text as written before documents were compressed. */
export function documentText(body: string | Uint8Array): string {
  return typeof body === "string" ? body : zlib().brotliDecompressSync(body).toString("utf8");
}
