/**
 * When a certificate is renewed and when a failed attempt is tried again: pure arithmetic over times in ms.
 */

export const DAY_MS = 86_400_000;
/** Renewal starts this long before expiry (Let's Encrypt's 90-day certificates: at 60 days, with 30 to spare). */
export const RENEW_BEFORE_MS = 30 * DAY_MS;
/** The first retry after a failure; each further failure doubles it, up to a day (Let's Encrypt allows 5 failed validations an hour). */
export const FIRST_RETRY_MS = 5 * 60_000;

export interface Validity {
  notBefore: number;
  notAfter: number;
}

/**
 * When a certificate is due for renewal: 30 days before expiry, or at two thirds of its life when it lives less
 * than 90 days (a short-lived certificate would otherwise be due from its first second).
 */
export function renewalAt({ notBefore, notAfter }: Validity): number {
  return notAfter - Math.min(RENEW_BEFORE_MS, (notAfter - notBefore) / 3);
}

/** Whole days left before expiry (0 on the last day, negative once expired). */
export function daysLeft(notAfter: number, now: number): number {
  return Math.floor((notAfter - now) / DAY_MS);
}

/** The wait before the next check: at renewal time, but at least once a day; after `failures` failed attempts, the backoff. */
export function nextCheckIn(validity: Validity | null, failures: number, now: number): number {
  if (failures > 0) return Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), DAY_MS);
  if (validity === null) return 0;
  return Math.max(0, Math.min(renewalAt(validity) - now, DAY_MS));
}
