/**
 * Daily quotas, burst windows and usage counts kept in Redis, so that several servers count one key exactly
 * once between them. The arithmetic is limiter.ts's (decide, BurstWindow), run as a Lua script: one round trip
 * decides a request, counts it, and returns the numbers its rate-limit headers need.
 *
 * Time is the calling server's clock (`now`), not Redis's TIME: the quota day and the burst window are the ones
 * the server's headers announce, and tests can drive them. So the servers' clocks must agree (NTP): a node
 * whose clock is off counts its requests in the seconds, and around midnight in the UTC day, its clock says.
 *
 * Per API key, with `{keyId}` as a Redis Cluster hash tag so a script's keys share one slot:
 *   <prefix>{keyId}:quota:<YYYY-MM-DD>  what the quota counted that UTC day
 *   <prefix>{keyId}:window              the burst window: epoch second → count, one second per slot of 60
 *   <prefix>{keyId}:usage:<YYYY-MM-DD>  endpoint → count that UTC day, unmetered uses (embed views) included
 * Every key expires on its own; no count is ever read after its key could have expired (see the lifetimes).
 */
import { DAY_MS, utcDay } from "../core/clock";
import { dailyRefusal, type Limits, type Verdict } from "./limiter";
import type { UNMETERED } from "./meter";
import type { UsageKey } from "../core/endpoints";
import { RedisUnavailable, type RedisConnection } from "./redis-connection";
import { RedisScript } from "./redis-script";
import { NO_SLICE, type SliceRule } from "./quota-lease";

export const DEFAULT_PREFIX = "surfcast:";

/**
 * Lifetimes (seconds) from each key's last write. A day's quota counter is read only during its day (two days
 * leave room for clocks that disagree around midnight). The window is read for 60 s after its newest second;
 * the second minute is margin for servers whose clocks run apart from Redis's. Usage is reported for 30 days.
 */
const QUOTA_TTL_S = 2 * 86_400;
const WINDOW_TTL_S = 120;
const USAGE_TTL_S = 32 * 86_400;

const ADMIT = new RedisScript(`
-- One request of a key, decided and counted at once, as limiter.ts's decide() and BurstWindow do it.
-- KEYS: the day's quota counter, the burst window, the day's usage.
-- ARGV: now (epoch ms), weight, daily limit, minute limit, endpoint ("" = passes the window, never uses the
-- quota), the three keys' lifetimes, and the slice rule (quota-lease.ts; a largest slice of 0 asks for none).
-- Returns, as they stand after the call: verdict (0 allowed, 1 daily, 2 burst), the burst's Retry-After,
-- used today, the window's count, the seconds until the window is empty, and the slice reserved beside the
-- request (counted in the quota and the window like admitted requests).
local now, weight = tonumber(ARGV[1]), tonumber(ARGV[2])
local dailyLimit, minuteLimit, endpoint = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local second = math.floor(now / 1000)
local usedToday = tonumber(redis.call("GET", KEYS[1]) or "0")

-- BurstWindow's ring: a slot per second % 60, live while its second is the current one or one of the 59 before.
local used, newest, live, replaced = 0, nil, {}, nil
local fields = redis.call("HGETALL", KEYS[2])
for i = 1, #fields, 2 do
  local s, n = tonumber(fields[i]), tonumber(fields[i + 1])
  if s > second - 60 and s <= second then
    used = used + n
    live[#live + 1] = { s, n }
    if newest == nil or s > newest then newest = s end
  elseif s % 60 == second % 60 then
    replaced = fields[i]
  end
end

local function emptiesIn(newestSecond)
  if newestSecond == nil then return 0 end
  return math.max(0, math.ceil(((newestSecond + 60) * 1000 - now) / 1000))
end

local quotaUsed = usedToday
if endpoint == "" then quotaUsed = 0 end
if quotaUsed + weight > dailyLimit then
  return { 1, 0, usedToday, used, emptiesIn(newest), 0 }
end
if used + weight > minuteLimit then
  -- Room for weight requests is room for one under a limit weight - 1 lower: wait for the oldest to leave.
  table.sort(live, function(a, b) return a[1] < b[1] end)
  local excess, retry = used - math.max(1, minuteLimit - weight + 1) + 1, 1
  for _, slot in ipairs(live) do
    excess = excess - slot[2]
    if excess <= 0 then
      retry = math.max(1, math.ceil(((slot[1] + 60) * 1000 - now) / 1000))
      break
    end
  end
  return { 2, retry, usedToday, used, emptiesIn(newest), 0 }
end

-- A slice only far from both limits, a share of what each leaves, so that several servers' slices together stay
-- a small part of it and a key near a limit is decided here, one request at a time.
local slice = 0
local largest, dailyShare, burstShare = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local smallest, dailyFloor, burstFloor = tonumber(ARGV[12]), tonumber(ARGV[13]), tonumber(ARGV[14])
if endpoint ~= "" and largest > 0 then
  local dailyLeft, burstLeft = dailyLimit - usedToday - weight, minuteLimit - used - weight
  if dailyLeft >= dailyFloor and burstLeft >= burstFloor then
    slice = math.min(largest, math.floor(dailyLeft / dailyShare), math.floor(burstLeft / burstShare))
    if slice < smallest then slice = 0 end
  end
end

if replaced then redis.call("HDEL", KEYS[2], replaced) end
redis.call("HINCRBY", KEYS[2], string.format("%d", second), weight + slice)
redis.call("EXPIRE", KEYS[2], ARGV[7])
if endpoint ~= "" then
  usedToday = redis.call("INCRBY", KEYS[1], weight + slice)
  redis.call("EXPIRE", KEYS[1], ARGV[6])
  redis.call("HINCRBY", KEYS[3], endpoint, weight)
  redis.call("EXPIRE", KEYS[3], ARGV[8])
end
return { 0, 0, usedToday, used + weight + slice, emptiesIn(second), slice }
`);

const RECORD = new RedisScript(`
-- KEYS: the day's usage. ARGV: endpoint, weight, the key's lifetime.
redis.call("HINCRBY", KEYS[1], ARGV[1], ARGV[2])
redis.call("EXPIRE", KEYS[1], ARGV[3])
return 0
`);

const SETTLE = new RedisScript(`
-- What a server admitted from its slices, and what it gives back of a slice it no longer uses.
-- KEYS: the day's quota counter, the burst window, the day's usage.
-- ARGV: units given back, the second the slice was counted in, the usage's lifetime, then endpoint and count pairs.
local back = tonumber(ARGV[1])
if back > 0 then
  local quota = tonumber(redis.call("GET", KEYS[1]) or "0")
  if quota > 0 then redis.call("DECRBY", KEYS[1], math.min(back, quota)) end
  local counted = tonumber(redis.call("HGET", KEYS[2], ARGV[2]) or "0")
  if counted > 0 then redis.call("HINCRBY", KEYS[2], ARGV[2], -math.min(back, counted)) end
end
for i = 4, #ARGV, 2 do redis.call("HINCRBY", KEYS[3], ARGV[i], ARGV[i + 1]) end
if #ARGV > 3 then redis.call("EXPIRE", KEYS[3], ARGV[3]) end
return 0
`);

const USAGE = new RedisScript(`
-- KEYS: usage hashes. Returns each one's fields and counts, flat, in the order asked.
local days = {}
for i, key in ipairs(KEYS) do days[i] = redis.call("HGETALL", key) end
return days
`);

/** What one admission decided, with the counts the per-request rate-limit headers are built from (varyingHeadersOfCounts). */
export interface Admission {
  verdict: Verdict;
  /** What the quota counted of the key's UTC day, this request included if it was admitted with an endpoint. */
  usedToday: number;
  /** Requests in the burst window at `now`, this one included if it was admitted. */
  windowUsed: number;
  /** Seconds until the burst window is empty (BurstWindow.resetSeconds). */
  burstResetSeconds: number;
  /** Units reserved beside an admitted request for the server to admit on its own (quota-lease.ts); 0 for none. */
  slice: number;
}

/** One UTC day of a key's usage: every use counted, metered or not. */
export interface UsageCounts {
  date: string;
  byEndpoint: Record<string, number>;
}

/** The Redis keys of one API key on one UTC day. */
export function limitKeys(prefix: string, keyId: string, day: string): { quota: string; window: string; usage: string } {
  const base = `${prefix}{${keyId}}`;
  return { quota: `${base}:quota:${day}`, window: `${base}:window`, usage: `${base}:usage:${day}` };
}

/** The admit script's reply as an Admission; any other reply is a fault (RedisUnavailable), never an admission. */
export function admissionOf(reply: unknown, now: number): Admission {
  if (!Array.isArray(reply) || reply.length !== 6 || !reply.every((n) => Number.isInteger(n))) {
    throw new RedisUnavailable(`unexpected reply from the admit script: ${JSON.stringify(reply)}`);
  }
  const [code, retryAfterSeconds, usedToday, windowUsed, burstResetSeconds, slice] = reply as [number, number, number, number, number, number];
  const counts = { usedToday, windowUsed, burstResetSeconds, slice };
  if (code === 0) return { verdict: { allowed: true }, ...counts };
  if (code === 1) return { verdict: dailyRefusal(now), ...counts };
  if (code === 2) return { verdict: { allowed: false, blockedBy: "burst", retryAfterSeconds }, ...counts };
  throw new RedisUnavailable(`unexpected verdict from the admit script: ${code}`);
}

/** The UTC days `days` long ending with today's, oldest first. */
export function lastDays(days: number, now: number): string[] {
  return Array.from({ length: days }, (_, i) => utcDay(now - (days - 1 - i) * DAY_MS));
}

/** The usage script's reply (per day, a flat list of endpoint and count) as counts per endpoint. */
export function usageOf(reply: unknown, dates: readonly string[]): UsageCounts[] {
  if (!Array.isArray(reply) || reply.length !== dates.length || !reply.every(Array.isArray)) {
    throw new RedisUnavailable(`unexpected reply from the usage script: ${JSON.stringify(reply)}`);
  }
  return dates.map((date, i) => {
    const flat = reply[i] as unknown[];
    const byEndpoint: Record<string, number> = {};
    for (let j = 0; j + 1 < flat.length; j += 2) byEndpoint[String(flat[j])] = Number(flat[j + 1]);
    return { date, byEndpoint };
  });
}

export class RedisLimits {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix = DEFAULT_PREFIX,
  ) {}

  /** Whether Redis is connected now: slices are used only then, so a Redis that went away refuses as at once. */
  get connected(): boolean {
    return this.redis.connected;
  }

  /**
   * Decides one request of `keyId` at `now`, counted `weight` times (a GET /v1/now counts once per spot), and
   * counts it when admitted. `endpoint` null passes the burst window but never uses the daily quota (GET
   * /v1/usage). Rejects with RedisUnavailable when Redis cannot decide: the request must then not be served.
   */
  async admit(keyId: string, limits: Limits, endpoint: UsageKey | null, weight: number, now: number, slice: SliceRule = NO_SLICE): Promise<Admission> {
    const keys = limitKeys(this.prefix, keyId, utcDay(now));
    const reply = await this.redis.run(
      ADMIT,
      [keys.quota, keys.window, keys.usage],
      [
        String(now), String(weight), String(limits.dailyLimit), String(limits.minuteLimit), endpoint ?? "",
        String(QUOTA_TTL_S), String(WINDOW_TTL_S), String(USAGE_TTL_S),
        String(slice.largest), String(slice.dailyShare), String(slice.burstShare), String(slice.smallest), String(slice.dailyFloor), String(slice.burstFloor),
      ],
    );
    return admissionOf(reply, now);
  }

  /** Adds what a server admitted from its slices to the key's usage of `day`, and gives `back` units of a slice counted at `second`. */
  async settle(keyId: string, day: string, back: number, second: number, uses: Iterable<[string, number]>): Promise<void> {
    const keys = limitKeys(this.prefix, keyId, day);
    await this.redis.run(SETTLE, [keys.quota, keys.window, keys.usage], [String(back), String(second), String(USAGE_TTL_S), ...[...uses].flatMap(([endpoint, n]) => [endpoint, String(n)])]);
  }

  /** Counts unmetered uses (an embed's view-minutes) in the key's usage only: never in its quota or window. */
  async record(keyId: string, endpoint: (typeof UNMETERED)[number], weight: number, now: number): Promise<void> {
    await this.redis.run(RECORD, [limitKeys(this.prefix, keyId, utcDay(now)).usage], [endpoint, String(weight), String(USAGE_TTL_S)]);
  }

  /** Every use of the key per endpoint over the `days` UTC days ending today, oldest first. */
  async usage(keyId: string, days: number, now: number): Promise<UsageCounts[]> {
    const dates = lastDays(days, now);
    const reply = await this.redis.run(
      USAGE,
      dates.map((day) => limitKeys(this.prefix, keyId, day).usage),
      [],
    );
    return usageOf(reply, dates);
  }
}
