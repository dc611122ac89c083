/**
 * A Lua script run on Redis by its SHA-1 (EVALSHA), so a request sends a digest rather than the script's text.
 * A server that does not know the digest (restarted, flushed, failed over to a replica) answers NOSCRIPT: the
 * text is sent once with EVAL, which also caches it there for the next EVALSHA.
 */
import { createHash } from "node:crypto";
import type { RedisClient } from "bun";

export class RedisScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash("sha1").update(source).digest("hex");
  }

  /** Runs the script with its keys (all in one Redis Cluster slot) and arguments; Redis errors reject as they come. */
  async run(client: RedisClient, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    const params = [String(keys.length), ...keys, ...args];
    try {
      return await client.send("EVALSHA", [this.sha, ...params]);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      return client.send("EVAL", [this.source, ...params]);
    }
  }
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith("NOSCRIPT");
}
