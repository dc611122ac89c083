/**
 * Crash safety of usage accounting (#9), through the compiled binary: SIGTERM while requests are in flight
 * loses no counted request. The client counts every response it saw that is neither 429 nor /v1/usage; after a
 * restart /v1/usage reports exactly that many.
 */
import { expect, test } from "bun:test";
import { createKey, startServer } from "../support/binary";
import { tempDir } from "../support/env";
import { apiFetch } from "../support/http";

const CONCURRENCY = 16;
const PATHS = ["/v1/spots?q=pipeline", "/v1/spots/nearby?lat=21.6&lng=-158&radius=100", "/v1/spots/pipeline", "/v1/spots?q=x", "/v1/spots/pipeline/tides"];

test("SIGTERM under load: every admitted request the client saw is in /v1/usage after restart", async () => {
  const dataDir = tempDir("crash-sigterm");
  const key = createKey(dataDir, "term@example.com", "scale", ["--daily-limit", "100000000", "--minute-limit", "100000"]);
  const server = await startServer({ dataDir });
  // One request first: it builds this client's OpenAPI validator (seconds on a busy machine), so the load window
  // below measures the server.
  expect((await apiFetch(server.url + PATHS[0]!, { headers: { "X-API-Key": key } })).status).toBe(200);
  let seen = 1;
  let refused = 0;
  let sent = 0;
  let stopping = false;
  const worker = async () => {
    while (true) {
      const path = PATHS[sent++ % PATHS.length]!;
      try {
        const res = await apiFetch(server.url + path, { headers: { "X-API-Key": key } });
        await res.arrayBuffer();
        expect(res.status).toBeLessThan(500);
        if (res.status !== 429) seen++;
      } catch (err) {
        if (String(err).includes("does not match")) throw err; // an OpenAPI mismatch is a failure, not a shutdown
        // Connection refused or closed: the server is going away. Stop once it has been told to.
        refused++;
        if (stopping) return;
      }
    }
  };
  const workers = Array.from({ length: CONCURRENCY }, worker);
  // Stopped once requests are flowing in numbers (a busy machine takes longer to get there; the ceiling is generous).
  const deadline = Date.now() + 30_000;
  while (seen < 100 && Date.now() < deadline) await Bun.sleep(20);
  stopping = true;
  const exitCode = await server.stop("SIGTERM");
  await Promise.all(workers);
  expect(exitCode).toBe(0);
  expect(seen).toBeGreaterThanOrEqual(100);

  const again = await startServer({ dataDir });
  try {
    const usage = (await (await apiFetch(`${again.url}/v1/usage`, { headers: { "X-API-Key": key } })).json()) as { today: number };
    expect({ counted: usage.today, refusedConnections: refused > 0 }).toEqual({ counted: seen, refusedConnections: true });
  } finally {
    await again.stop();
  }
}, 60_000);
