/**
 * Compressed bodies for clients that accept them. Each kept body (a forecast window: ~54 KB of JSON for 7 days,
 * about 8 KB gzipped) is compressed once per encoding and kept beside it, never per request; its ETag names the
 * encoding, so a cache or client never mixes representations, and the response varies on Accept-Encoding.
 * Brotli (quality 5: most of quality 11's gain at a fraction of its time) is preferred, then gzip.
 */
import { zlib } from "../core/zlib";
import { budgetShare } from "../core/caches";
import { Lru } from "../core/lru";

export type Encoding = "br" | "gzip";

/** The encoding to send for a request's Accept-Encoding, or null for the identity body. */
export function acceptedEncoding(header: string | null): Encoding | null {
  if (header === null) return null;
  let gzip = false;
  for (const part of header.split(",")) {
    const [token = "", ...params] = part.trim().toLowerCase().split(";");
    const refused = params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p));
    if (refused) continue;
    if (token === "br") return "br";
    if (token === "gzip" || token === "*") gzip = true;
  }
  return gzip ? "gzip" : null;
}

/** The ETag of the `encoding` representation of a body whose identity ETag is `etag`. */
export function encodedEtag(etag: string, encoding: Encoding | null): string {
  return encoding === null ? etag : `${etag.slice(0, -1)}-${encoding}"`;
}

function compress(body: string, encoding: Encoding): Uint8Array {
  const { brotliCompressSync, constants, gzipSync } = zlib();
  if (encoding === "gzip") return gzipSync(body, { level: 6 });
  return brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
}

/** Compressed bodies by resource, ETag and encoding, in their share of the cache budget (a 7-day forecast is ~8 KB: ~200 at the default 16 MB). */
const kept = new Lru<Uint8Array>(budgetShare(0.1));

/**
 * `body` compressed with `encoding`, computed once per (resource, etag, encoding) while it stays in the cache. An
 * ETag only names a version of one resource (spots refreshed together share theirs), hence the resource key.
 */
export function compressedOnce(resource: string, etag: string, encoding: Encoding, body: string): Uint8Array {
  const key = `${resource}\u0000${encodedEtag(etag, encoding)}`;
  let bytes = kept.get(key);
  if (bytes === undefined) {
    bytes = compress(body, encoding);
    kept.set(key, bytes, bytes.byteLength);
  }
  return bytes;
}
