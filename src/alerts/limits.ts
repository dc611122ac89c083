/**
 * How often an owner may make the server send something by hand — a test event, a confirmation e-mail — and how long
 * what was sent is kept. The counts are read from the delivery log (the first attempts of that kind), so servers
 * sharing a database share them.
 */
import { DAY_MS, HOUR_MS } from "../core/clock";

/** At most `max` in any `perMs`. */
export interface Limit {
  max: number;
  perMs: number;
}

/** Test events: per alert, and per account over all its alerts. */
export const TEST_LIMITS = { alert: { max: 3, perMs: HOUR_MS }, account: { max: 10, perMs: HOUR_MS } } as const satisfies Record<string, Limit>;

/** Confirmation e-mails (the first, when the alert is made, and each one sent again). */
export const CONFIRMATION_LIMITS = { alert: { max: 3, perMs: DAY_MS }, account: { max: 10, perMs: HOUR_MS } } as const satisfies Record<string, Limit>;

/**
 * Attempts of one event in all, the automatic retries and every "Send again" together: a receiver that always fails
 * cannot be made the target of a delivery without end by pressing the button.
 */
export const MAX_ATTEMPTS_PER_EVENT = 12;

/** How long a confirmation e-mail's link confirms the address. */
export const CONFIRMATION_LINK_MS = 7 * DAY_MS;

/** How long the delivery log keeps a row (then the delivery job prunes it). */
export const DELIVERY_LOG_MS = 30 * DAY_MS;

/** The longest window of these limits: the log rows a check must read. */
export const longestWindow = (limits: Record<string, Limit>) => Math.max(...Object.values(limits).map((l) => l.perMs));

/**
 * When the next one is allowed, given the times of those already sent; null when it is allowed now. The next is
 * allowed once the oldest of the last `max` leaves the window.
 */
export function nextAllowedAt(sentAt: readonly number[], limit: Limit, now: number): number | null {
  const within = sentAt.filter((t) => t > now - limit.perMs).sort((a, b) => a - b);
  if (within.length < limit.max) return null;
  return within[within.length - limit.max]! + limit.perMs;
}

/** "02:41 UTC (in 37 min)": when a refused request may be made again. */
export function whenAllowed(at: number, now: number): string {
  const minutes = Math.max(1, Math.ceil((at - now) / 60_000));
  const wait = minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
  return `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC (in ${wait})`;
}

const SENT_WORDS = { test: "test events", confirmation: "confirmation e-mails" } as const;

/** "has had 3 test events in the last hour, the most allowed": a limit reached, as the CLI and the console both say it. */
export function limitReached(sent: keyof typeof SENT_WORDS, limit: Limit): string {
  const within = limit.perMs === HOUR_MS ? "in the last hour" : `in the last ${Math.round(limit.perMs / HOUR_MS)} hours`;
  return `has had ${limit.max} ${SENT_WORDS[sent]} ${within}, the most allowed`;
}
