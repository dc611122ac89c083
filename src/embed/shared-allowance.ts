/**
 * The embeds' view allowance of several servers (allowance.ts's rule, counted in Redis): a view is counted once per
 * embed and UTC minute whichever server shows it, and the plan's view-minutes a day are the embed's across all of
 * them. One script per view decides it. The embed's day sits under its key's hash tag (`{keyId}`), beside the key's
 * usage (redis-limits.ts), and expires two days after its last count.
 */
import { MINUTE_MS, utcDay } from "../core/clock";
import { RedisUnavailable, type RedisConnection } from "../access/redis-connection";
import { RedisScript } from "../access/redis-script";
import type { ViewVerdict, Views } from "./allowance";

const DAY_TTL_S = 2 * 86_400;
const VERDICTS: readonly ViewVerdict[] = ["counted", "free", "spent"];

const TAKE = new RedisScript(`
-- KEYS: the embed's day. ARGV: the view's minute (epoch minutes), view-minutes a day, the key's lifetime (s).
-- Returns 0 counted (the first view of its minute), 1 free (that minute is counted already), 2 spent.
local minute, perDay = tonumber(ARGV[1]), tonumber(ARGV[2])
local state = redis.call("HMGET", KEYS[1], "minutes", "last")
local used, last = tonumber(state[1] or "0"), tonumber(state[2] or "-1")
if last == minute then return 1 end
if used >= perDay then return 2 end
redis.call("HSET", KEYS[1], "minutes", used + 1, "last", minute)
redis.call("EXPIRE", KEYS[1], ARGV[3])
return 0
`);

export class SharedViewAllowance implements Views {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
  ) {}

  async take(embedId: string, keyId: string, minutesPerDay: number, now: number): Promise<ViewVerdict> {
    const reply = await this.redis.run(TAKE, [`${this.prefix}{${keyId}}:embed:${embedId}:${utcDay(now)}`], [String(Math.floor(now / MINUTE_MS)), String(minutesPerDay), String(DAY_TTL_S)]);
    const verdict = VERDICTS[Number(reply)];
    if (verdict === undefined) throw new RedisUnavailable(`unexpected reply from the view script: ${JSON.stringify(reply)}`);
    return verdict;
  }
}
