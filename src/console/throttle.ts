/**
 * Failed sign-in throttling: pure arithmetic over an injected time, no I/O. An attempt is reserved (counted as a
 * failure) before the password is checked and settled after, so guesses sent at once are counted as they arrive,
 * not after the slow check has let all of them through.
 *
 * The rules (docs/security.md says what they mean for an attacker and for the owner):
 * - per client address (IPv6 per /64): `limit` failures per window, then refused;
 * - per account: once an account has `limit` failures in the window (under attack), an address that has already
 *   failed on it in the window is refused, while an address that has not failed gets in. Guessing is slowed
 *   (one guess per address per account per window) and the owner, from anywhere else, is never locked out;
 * - a browser that signed in to the account before (a device cookie) is counted on its own: `limit` failures per
 *   window for that device and account, whatever its address does, so a shared address (an office, a proxy the
 *   operator did not name) that is being refused does not refuse it.
 *
 * Memory: keys are fixed-size digests (a 60 KB e-mail costs what a short one does), expired entries are swept by
 * `sweep` (the caller runs it on a timer), and the number of entries is capped.
 */
import { createHash } from "node:crypto";
import { isIP } from "node:net";

export interface ThrottleRule {
  limit: number;
  windowMs: number;
}

/** ~100 bytes an entry (digest key, one array of a few numbers): a few MB at the cap. */
const MAX_TRACKED = 20_000;

/** Failure times per key, capped and swept. */
export class FailureLog {
  private failures = new Map<string, number[]>();

  constructor(private readonly windowMs: number) {}

  /** Live failure times of `key` (expired ones dropped). */
  count(key: string, now: number): number {
    const times = this.failures.get(key);
    if (!times) return 0;
    const from = now - this.windowMs;
    while (times.length > 0 && times[0]! <= from) times.shift();
    if (times.length === 0) this.failures.delete(key);
    return times.length;
  }

  /** The time at which `key` falls back below `limit` failures (or `now` when it is already below). */
  freeAt(key: string, limit: number, now: number): number {
    const n = this.count(key, now);
    if (n < limit) return now;
    const times = this.failures.get(key)!;
    return times[n - limit]! + this.windowMs;
  }

  add(key: string, now: number): void {
    let times = this.failures.get(key);
    if (!times) {
      if (this.failures.size >= MAX_TRACKED) this.failures.delete(this.failures.keys().next().value!);
      times = [];
      this.failures.set(key, times);
    }
    times.push(now);
  }

  /** Takes back one failure recorded at `time` (a reservation that turned out to be a success). */
  remove(key: string, time: number): void {
    const times = this.failures.get(key);
    if (!times) return;
    const at = times.lastIndexOf(time);
    if (at >= 0) times.splice(at, 1);
    if (times.length === 0) this.failures.delete(key);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Drops every expired entry; returns how many keys remain. */
  sweep(now: number): number {
    for (const key of [...this.failures.keys()]) this.count(key, now);
    return this.failures.size;
  }

  get size(): number {
    return this.failures.size;
  }
}

/** The address a throttle counts by: IPv4 as it is, IPv6 by its /64 (one customer's whole network). */
export function addressKey(address: string): string {
  if (isIP(address) !== 6) return address;
  if (address.toLowerCase().startsWith("::ffff:") && isIP(address.slice(7)) === 4) return address.slice(7);
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":") + "::/64";
}

const digest = (...parts: string[]) => createHash("sha256").update(parts.join("\n")).digest("base64url").slice(0, 22);

export interface AttemptFrom {
  email: string;
  address: string;
  /** Set when the browser proved an earlier sign-in to this account (a valid device cookie for it). */
  device: string | null;
}

/** The failure logs the rules read: per address, per account, per account and address, per account and device. */
export type LogName = "address" | "account" | "pair" | "device";

/** A counted attempt, to settle once the password is checked. */
export interface Reservation {
  /** The logs the attempt was counted in, with its key in each. */
  entries: { log: LogName; key: string }[];
  at: number;
  /** Tells this attempt's failure from another at the same millisecond (the shared throttle's member). */
  id: string;
  /** The account-and-address key, forgotten on success. */
  pair: string;
}

export type Admission = { admitted: true; reservation: Reservation } | { admitted: false; retryAfterSeconds: number };

/**
 * Which logs an attempt is judged by and counted in. With a device: its own log (`limit` failures). Without: the
 * address's log (`limit`), and once the account has `limit` failures the pair's (one). Both count the account.
 */
export function attemptEntries(attempt: AttemptFrom): { byDevice: boolean; entries: Reservation["entries"]; account: string; pair: string } {
  const email = attempt.email.trim().toLowerCase();
  const account = digest("account", email);
  const pair = digest("pair", email, addressKey(attempt.address));
  if (attempt.device !== null) {
    return { byDevice: true, entries: [{ log: "device", key: digest("device", email, attempt.device) }, { log: "account", key: account }], account, pair };
  }
  return { byDevice: false, entries: [{ log: "address", key: digest("address", addressKey(attempt.address)) }, { log: "account", key: account }, { log: "pair", key: pair }], account, pair };
}

/** The seconds a refused attempt waits, from the time its logs free it. */
export const retryAfterOf = (freeAt: number, now: number) => Math.max(1, Math.ceil((freeAt - now) / 1000));

/** The sign-in throttle as the console uses it: in this process's memory (one server) or in Redis (several). */
export interface Throttle {
  /** Counts the attempt as a failure now, or refuses it with the seconds until it may be made. */
  admit(attempt: AttemptFrom, now: number): Admission | Promise<Admission>;
  /** The password was right: the attempt is no failure, and this address's failures on the account are forgiven. */
  succeeded(reservation: Reservation): void | Promise<void>;
  /** The attempt was not judged (the server was too busy to check it): it is no failure either. */
  withdrawn(reservation: Reservation): void | Promise<void>;
}

/** The throttle of one server: failure times in its memory. */
export class SignInThrottle implements Throttle {
  private readonly logs: Record<LogName, FailureLog>;

  constructor(private readonly rule: ThrottleRule) {
    this.logs = { address: new FailureLog(rule.windowMs), account: new FailureLog(rule.windowMs), pair: new FailureLog(rule.windowMs), device: new FailureLog(rule.windowMs) };
  }

  admit(attempt: AttemptFrom, now: number): Admission {
    const { byDevice, entries, account, pair } = attemptEntries(attempt);
    const { limit } = this.rule;
    const first = entries[0]!;
    let freeAt = this.logs[first.log].freeAt(first.key, limit, now);
    if (!byDevice && this.logs.account.count(account, now) >= limit) freeAt = Math.max(freeAt, this.logs.pair.freeAt(pair, 1, now));
    if (freeAt > now) return { admitted: false, retryAfterSeconds: retryAfterOf(freeAt, now) };
    for (const { log, key } of entries) this.logs[log].add(key, now);
    return { admitted: true, reservation: { entries, at: now, id: String(now), pair } };
  }

  succeeded(reservation: Reservation): void {
    this.withdrawn(reservation);
    this.logs.pair.forget(reservation.pair);
  }

  withdrawn(reservation: Reservation): void {
    for (const { log, key } of reservation.entries) this.logs[log].remove(key, reservation.at);
  }

  /** Drops expired entries; returns the number of entries kept (tests and metrics). */
  sweep(now: number): number {
    return Object.values(this.logs).reduce((kept, log) => kept + log.sweep(now), 0);
  }
}

/**
 * At most `concurrent` password checks (argon2: ~150 ms of a core and tens of MB each) run at once and at most
 * `waiting` wait for a turn; beyond that a check is refused at once, so a flood of guesses can neither starve the
 * API of CPU nor grow the server's memory.
 */
export class WorkQueue {
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly concurrent: number,
    private readonly waiting: number,
  ) {}

  /** Runs `work` in its turn, or answers null at once when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T | null> {
    if (this.running >= this.concurrent) {
      if (this.queue.length >= this.waiting) return null;
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}
