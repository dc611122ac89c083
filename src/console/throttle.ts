/**
 * Failed sign-in throttling, pure arithmetic over an injected time: at most `limit` failures per `windowMs`
 * for each key (an e-mail, a client address). Only failures count, so a user who signs in correctly is never
 * slowed. Memory is bounded: old failures are dropped as they leave the window and the map is capped.
 */
export interface ThrottleRule {
  limit: number;
  windowMs: number;
}

const MAX_TRACKED = 50_000;

export class FailureThrottle {
  private failures = new Map<string, number[]>();

  constructor(private readonly rule: ThrottleRule) {}

  private live(key: string, now: number): number[] {
    const times = this.failures.get(key);
    if (!times) return [];
    const from = now - this.rule.windowMs;
    while (times.length > 0 && times[0]! <= from) times.shift();
    if (times.length === 0) this.failures.delete(key);
    return times;
  }

  /** Seconds until `key` may try again, or 0 when it may try now. */
  retryAfter(key: string, now: number): number {
    const times = this.live(key, now);
    if (times.length < this.rule.limit) return 0;
    return Math.max(1, Math.ceil((times[times.length - this.rule.limit]! + this.rule.windowMs - now) / 1000));
  }

  fail(key: string, now: number): void {
    const times = this.live(key, now);
    if (times.length === 0) {
      if (this.failures.size >= MAX_TRACKED) this.failures.delete(this.failures.keys().next().value!);
      this.failures.set(key, times);
    }
    times.push(now);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }
}
