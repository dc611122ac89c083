/**
 * One connection to Redis (or Valkey) that fails fast and heals itself, for counters that must never be
 * skipped: a command either answers within a short deadline or rejects with RedisUnavailable (the gate's 503).
 *
 * Bun's client (`RedisClient` from "bun") gives the pieces; this file sets them so:
 *  - no offline queue: while disconnected a command rejects at once, so requests fail fast rather than pile up
 *    behind an outage and all run late;
 *  - a deadline per command, which Bun's client has no option for: a Redis that hangs (paused, swapping, a long
 *    fork) must not hold requests;
 *  - reconnection of our own. Bun's `autoReconnect` retries with a backoff but gives up for good after
 *    `maxRetries` attempts and never reconnects again, so a longer outage would leave the node answering 503 until
 *    restarted. Instead, every lost connection and every failed attempt schedules one
 *    new attempt shortly after: the node recovers within about RECONNECT_DELAY_MS once Redis is back.
 */
import { RedisClient } from "bun";
import type { RedisScript } from "./redis-script";
import { Outage } from "../core/errors";

/** Redis is unreachable, too slow or answered with an error: nothing was decided, the caller must not serve. */
export class RedisUnavailable extends Outage {
  override readonly name = "RedisUnavailable";
}

export interface RedisConnectionOptions {
  /** How long a command may take before it rejects (ms). A script on a healthy Redis takes well under 1 ms. */
  commandTimeoutMs?: number;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 500;
/** Bounds a connection attempt to a host that does not answer at all (a dropped route, a firewall). */
const CONNECT_TIMEOUT_MS = 2_000;
const RECONNECT_DELAY_MS = 500;

export class RedisConnection {
  private readonly client: RedisClient;
  private readonly commandTimeoutMs: number;
  private connecting: Promise<void> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    options: RedisConnectionOptions = {},
  ) {
    this.commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.client = new RedisClient(url, { enableOfflineQueue: false, autoReconnect: false, connectionTimeout: CONNECT_TIMEOUT_MS });
    // Runs when a connection is lost and when an attempt fails; an attempt in flight schedules its own retry.
    this.client.onclose = () => {
      if (!this.closed && !this.connecting) this.connect();
    };
    this.connect();
  }

  /** Resolves once connected (for start-up: the first requests should not be 503s), else RedisUnavailable. */
  async ready(timeoutMs = CONNECT_TIMEOUT_MS): Promise<void> {
    if (this.client.connected) return;
    await this.withDeadline(this.connect(), timeoutMs, "connect");
  }

  /** Runs a script within the command deadline; any failure is a RedisUnavailable. */
  run(script: RedisScript, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return this.withDeadline(script.run(this.client, keys, args), this.commandTimeoutMs, "run a script");
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.client.close();
  }

  private connect(): Promise<void> {
    if (this.closed) return Promise.reject(new RedisUnavailable("the Redis connection is closed"));
    if (!this.connecting) {
      const attempt = this.client.connect().finally(() => {
        this.connecting = null;
      });
      attempt.catch(() => this.retryLater());
      this.connecting = attempt;
    }
    return this.connecting;
  }

  private retryLater(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.client.connected) this.connect().catch(() => {});
    }, RECONNECT_DELAY_MS);
  }

  private withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new RedisUnavailable(`Redis at ${this.where()} did not ${what} within ${ms} ms`)), ms);
      work.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(new RedisUnavailable(`Redis at ${this.where()} could not ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
        },
      );
    });
  }

  /** The URL without its password, for messages that end up in logs. */
  private where(): string {
    try {
      const u = new URL(this.url);
      if (u.password) u.password = "***";
      return u.toString();
    } catch {
      return "(unparsable URL)";
    }
  }
}
