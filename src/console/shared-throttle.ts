/**
 * The sign-in throttle of several servers: the same rules as SignInThrottle (throttle.ts), with each failure log a
 * sorted set in Redis (score: the failure's time), judged and counted by one script, so an address gets its
 * `limit` failures per window whatever the number of servers it is spread over. Every key shares the `{signin}`
 * hash tag (one Redis Cluster slot: sign-ins are few) and expires a window after its last failure.
 *
 * Redis not answering rejects with RedisUnavailable: the console then says it is busy, and checks no password
 * uncounted.
 */
import type { RedisConnection } from "../access/redis-connection";
import { RedisScript } from "../access/redis-script";
import { attemptEntries, retryAfterOf, type Admission, type AttemptFrom, type Reservation, type Throttle, type ThrottleRule } from "./throttle";

const ADMIT = new RedisScript(`
-- KEYS: the first log the attempt is judged by (device or address), the account's, the account-and-address pair's.
-- ARGV: now (ms), window (ms), limit, "1" when judged by device, the attempt's member.
-- Returns 0 when admitted (counted in the first log and the account's, and the pair's unless by device), else the
-- milliseconds until the attempt may be made.
local now, window, limit, byDevice, member = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == "1", ARGV[5]
local function live(key)
  redis.call("ZREMRANGEBYSCORE", key, "-inf", now - window)
  return redis.call("ZCARD", key)
end
local function freeAt(key, lim)
  local n = live(key)
  if n < lim then return now end
  local oldest = redis.call("ZRANGE", key, n - lim, n - lim, "WITHSCORES")
  return tonumber(oldest[2]) + window
end
local free = freeAt(KEYS[1], limit)
if not byDevice and live(KEYS[2]) >= limit then free = math.max(free, freeAt(KEYS[3], 1)) end
if free > now then return free - now end
local counted = byDevice and { KEYS[1], KEYS[2] } or { KEYS[1], KEYS[2], KEYS[3] }
for _, key in ipairs(counted) do
  redis.call("ZADD", key, now, member)
  redis.call("PEXPIRE", key, window)
end
return 0
`);

const SETTLE = new RedisScript(`
-- KEYS: the logs the attempt was counted in, then the pair's. ARGV: the attempt's member, "1" to forget the pair.
for i = 1, #KEYS - 1 do redis.call("ZREM", KEYS[i], ARGV[1]) end
if ARGV[2] == "1" then redis.call("DEL", KEYS[#KEYS]) end
return 0
`);

export class SharedSignInThrottle implements Throttle {
  constructor(
    private readonly redis: RedisConnection,
    private readonly rule: ThrottleRule,
    private readonly prefix: string,
  ) {}

  private keyOf(log: string, key: string): string {
    return `${this.prefix}{signin}:${log}:${key}`;
  }

  async admit(attempt: AttemptFrom, now: number): Promise<Admission> {
    const { byDevice, entries, pair } = attemptEntries(attempt);
    const id = `${now}-${crypto.randomUUID()}`;
    const keys = [this.keyOf(entries[0]!.log, entries[0]!.key), this.keyOf("account", entries[1]!.key), this.keyOf("pair", pair)];
    const waitMs = Number(await this.redis.run(ADMIT, keys, [String(now), String(this.rule.windowMs), String(this.rule.limit), byDevice ? "1" : "0", id]));
    if (waitMs > 0) return { admitted: false, retryAfterSeconds: retryAfterOf(now + waitMs, now) };
    return { admitted: true, reservation: { entries, at: now, id, pair } };
  }

  async succeeded(reservation: Reservation): Promise<void> {
    await this.settle(reservation, true);
  }

  async withdrawn(reservation: Reservation): Promise<void> {
    await this.settle(reservation, false);
  }

  private async settle(reservation: Reservation, forgetPair: boolean): Promise<void> {
    const keys = [...reservation.entries.map(({ log, key }) => this.keyOf(log, key)), this.keyOf("pair", reservation.pair)];
    await this.redis.run(SETTLE, keys, [reservation.id, forgetPair ? "1" : "0"]);
  }
}
