/** API key material: generation, hashing, shape check. Keys are only ever stored as SHA-256 hashes. */
import { randomBytes, createHash } from "node:crypto";

export const LIVE_KEY_PREFIX = "sk_live_";
/** 32 random bytes, base64url: 256 bits of entropy, 43 characters. */
const KEY_BODY = /^[A-Za-z0-9_-]{43}$/;

export function generateKey(): string {
  return LIVE_KEY_PREFIX + randomBytes(32).toString("base64url");
}

export function generateKeyId(): string {
  return "key_" + randomBytes(8).toString("hex");
}

/** 256 random bits, base64url: the secret of a link or a session (stored, like keys, only as its hashKey). */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

export function hashKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** True when the string has the shape of a live key; anything else is rejected without a lookup. */
export function isWellFormedKey(key: string): boolean {
  return key.startsWith(LIVE_KEY_PREFIX) && KEY_BODY.test(key.slice(LIVE_KEY_PREFIX.length));
}

/** What an operator sees of a key after creation: its prefix and four characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, LIVE_KEY_PREFIX.length + 4);
}

/**
 * Extracts the key from `X-API-Key` or `Authorization: Bearer`. Returns null when absent or malformed
 * (two different keys in the two headers is malformed, too).
 */
export function keyFromHeaders(headers: Headers): string | null {
  const direct = headers.get("x-api-key")?.trim() || null;
  const auth = headers.get("authorization");
  let bearer: string | null = null;
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) return null;
    bearer = m[1]!;
  }
  if (direct && bearer && direct !== bearer) return null;
  return direct ?? bearer;
}
