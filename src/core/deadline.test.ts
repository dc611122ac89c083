import { expect, test } from "bun:test";
import { RedisClient } from "bun";
import { withinDeadline } from "./deadline";

const late = () => new Error("late");
/** Another process that answers at once: the local Redis (scripts/services.sh starts it). */
const REDIS_URL = "redis://127.0.0.1:6379";
const redis = new RedisClient(REDIS_URL, { autoReconnect: false, connectionTimeout: 500 });
const reachable = await redis.connect().then(
  () => true,
  () => false,
);

test.skipIf(!reachable)("an answer that arrived while the event loop was blocked past the deadline wins over the deadline", async () => {
  const answered = withinDeadline(redis.send("PING", []), 50, late);
  // One turn of the loop hands the command to the socket (the client writes on the next turn, and a loop blocked
  // before it would never have sent it); its answer comes in while the loop is blocked below.
  await new Promise((resolve) => setImmediate(resolve));
  const until = Date.now() + 300;
  while (Date.now() < until) {
    // Blocked: Redis answers meanwhile, the deadline passes.
  }
  expect(await answered).toBe("PONG");
  redis.close();
});

test("work that does not settle rejects with the deadline's error; work that fails rejects with its own, as mapped", async () => {
  await expect(withinDeadline(new Promise(() => {}), 10, late)).rejects.toThrow("late");
  await expect(withinDeadline(Promise.reject(new Error("refused")), 1000, late, (err) => new Error(`mapped: ${(err as Error).message}`))).rejects.toThrow("mapped: refused");
});
