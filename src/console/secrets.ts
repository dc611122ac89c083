/**
 * Console secrets: one-time link tokens, session tokens and passwords. Tokens are 256 random bits; only their
 * SHA-256 is stored (the same digest as API keys). Passwords are argon2id through Bun.password.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { hashKey, randomToken } from "../access/keys";

export const MIN_PASSWORD_LENGTH = 12;
/** argon2 hashes whatever it gets; a cap keeps a megabyte "password" from costing the server. */
export const MAX_PASSWORD_LENGTH = 256;

export { randomToken };

export const hashToken: (token: string) => string = hashKey;

/** Why a chosen password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > MAX_PASSWORD_LENGTH) return `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

let decoy: Promise<string> | undefined;

/**
 * Checks a password against a stored hash. Without a hash (unknown e-mail, no password yet) it verifies
 * against a decoy hash, so every failed sign-in costs the same argon2 work and answers in the same time.
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  // No password longer than the maximum was ever set (measured in characters, as passwordProblem does): such a
  // guess costs the decoy's work and fails, and a long one is never hashed whole.
  if (password.length > MAX_PASSWORD_LENGTH && (password.length > 2 * MAX_PASSWORD_LENGTH || [...password].length > MAX_PASSWORD_LENGTH)) {
    password = "";
    hash = null;
  }
  if (hash === null) {
    decoy ??= hashPassword(randomToken());
    await Bun.password.verify(password, await decoy);
    return false;
  }
  return Bun.password.verify(password, hash);
}

/**
 * A device cookie proves that this browser signed in to an account before: a random id and an HMAC over the
 * account's e-mail and that id, under a secret kept in the database (so every server process on it agrees).
 * It relaxes sign-in throttling for that account only (console/throttle.ts); it signs nobody in.
 */
export function deviceCookie(secret: string, email: string): string {
  const id = randomBytes(16).toString("base64url");
  return `${id}.${deviceMac(secret, email, id)}`;
}

/** The device id when `cookie` was issued for `email` under `secret`, else null. */
export function deviceOf(secret: string, email: string, cookie: string | undefined): string | null {
  const [id, mac, extra] = (cookie ?? "").split(".");
  if (!id || !mac || extra !== undefined || !/^[A-Za-z0-9_-]{22}$/.test(id)) return null;
  const expected = Buffer.from(deviceMac(secret, email, id));
  const given = Buffer.from(mac);
  return expected.length === given.length && timingSafeEqual(expected, given) ? id : null;
}

function deviceMac(secret: string, email: string, id: string): string {
  return createHmac("sha256", secret).update(`device\n${email.trim().toLowerCase()}\n${id}`).digest("base64url");
}

/**
 * A value shown once after a redirect (a new alert's signing secret and feed address): sealed with AES-256-GCM under
 * a key derived from the console's secret, bound to one session (its token's hash) and to an expiry, and carried in
 * a cookie the next page clears. The server stores nothing, the browser holds only ciphertext, no URL holds it, and
 * another session's cookie, an expired one or a changed byte opens to null.
 */
export function sealForSession(secret: string, sessionTokenHash: string, value: string, expiresAt: number): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(secret), iv).setAAD(Buffer.from(sessionTokenHash));
  const sealed = Buffer.concat([cipher.update(JSON.stringify({ value, expiresAt })), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
}

/** The value `sealForSession` sealed for this session, or null (another session's, expired, altered, not ours). */
export function openForSession(secret: string, sessionTokenHash: string, sealed: string, now: number): string | null {
  const bytes = Buffer.from(sealed, "base64url");
  if (bytes.length < 29) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", sealKey(secret), bytes.subarray(0, 12)).setAAD(Buffer.from(sessionTokenHash));
    decipher.setAuthTag(bytes.subarray(12, 28));
    const opened = JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString()) as { value: string; expiresAt: number };
    return opened.expiresAt > now ? opened.value : null;
  } catch {
    return null;
  }
}

function sealKey(secret: string): Buffer {
  return createHmac("sha256", secret).update("console one-time values").digest();
}
