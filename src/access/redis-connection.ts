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
import { connect as connectTcp, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";
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

  /** Whether the connection is open now (it may still fail the next command). */
  get connected(): boolean {
    return this.client.connected;
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

/** Redis's answers that mean the URL's credentials were refused (or are missing), across Redis versions and Valkey. */
const AUTHENTICATION_ERRORS = /^-(WRONGPASS|NOAUTH|ERR invalid password|ERR invalid username-password)/;

/** A command in Redis's wire format (RESP). */
const resp = (words: string[]) => `*${words.length}\r\n${words.map((w) => `$${Buffer.byteLength(w)}\r\n${w}\r\n`).join("")}`;

/**
 * Why Redis refused this URL's credentials, or null when it did not (or did not answer). Bun's client reports a
 * refused AUTH only as "Connection closed", so a start that could not connect asks once itself: AUTH with the URL's
 * user and password (a PING without one) on a connection of its own, and reads Redis's first answer.
 */
export function authenticationRefusal(url: string, timeoutMs = CONNECT_TIMEOUT_MS): Promise<string | null> {
  const target = new URL(url);
  const [user, password] = [target.username, target.password].map(decodeURIComponent) as [string, string];
  const command = password === "" ? ["PING"] : ["AUTH", ...(user === "" ? [] : [user]), password];
  const host = target.hostname.replace(/^\[|\]$/g, "");
  const port = Number(target.port || 6379);
  return new Promise((resolve) => {
    const tls = target.protocol === "rediss:";
    const socket: Socket = tls ? connectTls({ host, port, servername: host }) : connectTcp({ host, port });
    let answer = "";
    const done = (line: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(line !== null && AUTHENTICATION_ERRORS.test(line) ? line.slice(1, 201) : null);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.once(tls ? "secureConnect" : "connect", () => socket.write(resp(command)));
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      const end = answer.indexOf("\r\n");
      if (end >= 0) done(answer.slice(0, end));
    });
    socket.on("error", () => done(null));
    socket.on("close", () => done(null));
  });
}
