/**
 * Console secrets: one-time link tokens, session tokens and passwords. Tokens are 256 random bits; only their
 * SHA-256 is stored (the same digest as API keys). Passwords are argon2id through Bun.password.
 */
import { randomBytes } from "node:crypto";
import { hashKey } from "../access/keys";

export const MIN_PASSWORD_LENGTH = 12;
/** argon2 hashes whatever it gets; a cap keeps a megabyte "password" from costing the server. */
export const MAX_PASSWORD_LENGTH = 256;

export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

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
  if (password.length > MAX_PASSWORD_LENGTH) password = password.slice(0, MAX_PASSWORD_LENGTH);
  if (hash === null) {
    decoy ??= hashPassword(randomToken());
    await Bun.password.verify(password, await decoy);
    return false;
  }
  return Bun.password.verify(password, hash);
}
