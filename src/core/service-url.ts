/**
 * The URLs of the services several servers share (SURFCAST_DATABASE_URL, SURFCAST_REDIS_URL): checked once, and
 * never printed with their password, which such a URL usually carries.
 */
import { UserError } from "./errors";

/**
 * The URL with its passwords replaced by `***`, whether or not it parses (a malformed one is echoed in errors): the
 * user-info's (with or without the `//`, which a typo may drop) and any query parameter named like one
 * (`password`, `sslpassword`).
 */
export function maskPassword(url: string): string {
  // Greedy up to the last "@": a password with an unescaped "@" is masked whole.
  return url.replace(/^([a-z][a-z0-9+.-]*:(?:\/\/)?[^:@/]*):.*@/i, "$1:***@").replace(/([?&][^=&]*password=)[^&]*/gi, "$1***");
}

/** Whether each part a client decodes (user, password, database) is valid percent-encoding. */
function decodes(url: URL): boolean {
  try {
    for (const part of [url.username, url.password, url.pathname]) decodeURIComponent(part);
    return true;
  } catch {
    return false;
  }
}

/**
 * `value` checked as a URL of one of `protocols` (`"postgres:"`); `undefined` when unset or empty. A mistake is one
 * line naming the setting (`name`) and the expected form, with the password masked.
 */
export function serviceUrl(value: string | undefined, name: string, protocols: readonly string[]): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const url = value.trim();
  const expected = protocols.map((p) => `${p}//`).join(" or ");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UserError(`${name} is not a valid URL: "${maskPassword(url)}" (expected ${protocols[0]}//user:password@host:port/…; a password with @, : or / must be percent-encoded)`);
  }
  if (!protocols.includes(parsed.protocol)) throw new UserError(`${name} must be a ${expected} URL, got "${maskPassword(url)}"`);
  if (!decodes(parsed)) {
    throw new UserError(`${name} has a "%" that does not start a percent-escape in its user, password or database: "${maskPassword(url)}" (write a "%" as %25)`);
  }
  return url;
}

export const DATABASE_URL_PROTOCOLS = ["postgres:", "postgresql:"] as const;
export const REDIS_URL_PROTOCOLS = ["redis:", "rediss:"] as const;
