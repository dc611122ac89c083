/** Redis for the tests: whether one answers at a URL. */
import { RedisClient } from "bun";

/** Local Redis (scripts/services.sh starts it); tests count under key prefixes of their own. */
export const LOCAL_REDIS_URL = "redis://127.0.0.1:6379";

export async function answersPing(url: string): Promise<boolean> {
  const client = new RedisClient(url, { connectionTimeout: 500, autoReconnect: false });
  try {
    return (await client.send("PING", [])) === "PONG";
  } catch {
    return false;
  } finally {
    client.close();
  }
}
