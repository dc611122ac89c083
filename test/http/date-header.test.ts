/**
 * Every answer carries the time it was made (RFC 9110 asks it of a server with a clock), HEAD answers included:
 * through the compiled binary and a raw socket, which shows each header line as sent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, startServer, type RunningServer } from "../support/binary";
import { rawRequest } from "../support/raw-http";
import { untilKeyAccepted } from "../support/wait";

let server: RunningServer;
let key = "";

beforeAll(async () => {
  server = await startServer();
  key = createKey(server.dataDir, "date@example.com");
  await untilKeyAccepted(server.url, key);
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

/** The Date lines of an answer to `method target` (with the key), and its status. */
async function dateLines(method: string, target: string): Promise<{ status: number; dates: string[] }> {
  const port = Number(new URL(server.url).port);
  const res = await rawRequest(port, `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`);
  return { status: res.status, dates: res.head.split("\r\n").filter((line) => /^date:/i.test(line)).map((line) => line.slice(5).trim()) };
}

describe("the Date header", () => {
  for (const method of ["GET", "HEAD"])
    for (const [target, status] of [["/healthz", 200], ["/v1/spots/pipeline", 200], ["/v1/usage", 200], ["/v1/spots/no-such-spot", 404], ["/console", 303]] as const)
      test(`${method} ${target}: one Date, the time of the answer`, async () => {
        const before = Math.floor(Date.now() / 1000) * 1000;
        const { status: got, dates } = await dateLines(method, target);
        expect(got).toBe(status);
        expect(dates).toHaveLength(1);
        const at = Date.parse(dates[0]!);
        // Bun refreshes the Date it sends once a second, on a timer that a busy machine may run late: a second behind.
        expect(at).toBeGreaterThanOrEqual(before - 1000);
        expect(at).toBeLessThanOrEqual(Date.now());
      });
});
