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

/** A counted attempt, to settle once the password is checked. */
export interface Reservation {
  keys: { log: FailureLog; key: string }[];
  at: number;
  /** The account-and-address key, forgotten on success. */
  pair: string;
}

export type Admission = { admitted: true; reservation: Reservation } | { admitted: false; retryAfterSeconds: number };

export class SignInThrottle {
  private readonly byAddress: FailureLog;
  private readonly byAccount: FailureLog;
  private readonly byPair: FailureLog;
  private readonly byDevice: FailureLog;

  constructor(private readonly rule: ThrottleRule) {
    this.byAddress = new FailureLog(rule.windowMs);
    this.byAccount = new FailureLog(rule.windowMs);
    this.byPair = new FailureLog(rule.windowMs);
    this.byDevice = new FailureLog(rule.windowMs);
  }

  /** Counts the attempt as a failure now, or refuses it with the seconds until it may be made. */
  admit(attempt: AttemptFrom, now: number): Admission {
    const email = attempt.email.trim().toLowerCase();
    const account = digest("account", email);
    const pair = digest("pair", email, addressKey(attempt.address));
    const { limit } = this.rule;
    let freeAt: number;
    let keys: Reservation["keys"];
    if (attempt.device !== null) {
      const device = digest("device", email, attempt.device);
      freeAt = this.byDevice.freeAt(device, limit, now);
      keys = [{ log: this.byDevice, key: device }, { log: this.byAccount, key: account }];
    } else {
      const address = digest("address", addressKey(attempt.address));
      freeAt = this.byAddress.freeAt(address, limit, now);
      if (this.byAccount.count(account, now) >= limit) freeAt = Math.max(freeAt, this.byPair.freeAt(pair, 1, now));
      keys = [{ log: this.byAddress, key: address }, { log: this.byAccount, key: account }, { log: this.byPair, key: pair }];
    }
    if (freeAt > now) return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now) / 1000)) };
    for (const { log, key } of keys) log.add(key, now);
    return { admitted: true, reservation: { keys, at: now, pair } };
  }

  /** The password was right: the attempt is no failure, and this address's failures on the account are forgiven. */
  succeeded(reservation: Reservation): void {
    for (const { log, key } of reservation.keys) log.remove(key, reservation.at);
    this.byPair.forget(reservation.pair);
  }

  /** The attempt was not judged (the server was too busy to check it): it is no failure either. */
  withdrawn(reservation: Reservation): void {
    for (const { log, key } of reservation.keys) log.remove(key, reservation.at);
  }

  /** Drops expired entries; returns the number of entries kept (tests and metrics). */
  sweep(now: number): number {
    return this.byAddress.sweep(now) + this.byAccount.sweep(now) + this.byPair.sweep(now) + this.byDevice.sweep(now);
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
