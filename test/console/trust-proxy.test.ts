/**
 * SURFCAST_TRUST_PROXY: the console's per-address sign-in throttling follows X-Forwarded-For only when the TCP
 * peer is a named proxy (then the right-most untrusted address); without it a forged header changes nothing.
 * A bad value is one line and exit 2 from the compiled binary.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../support/inprocess";
import { ConsoleClient } from "../support/console-client";
import { cli } from "../support/binary";
import { tempDir } from "../support/env";
import { clientAddress, parseTrustedProxies } from "../../src/core/proxy";

let behindProxy: TestServer;
let direct: TestServer;
let attempt = 0;

beforeAll(async () => {
  behindProxy = await startTestServer({ env: { SURFCAST_TRUST_PROXY: "10.9.0.0/16, 127.0.0.1" } });
  direct = await startTestServer({ env: { SURFCAST_TRUST_PROXY: "" } });
}, 30_000);
afterAll(() => {
  behindProxy?.close();
  direct?.close();
});

/** One failed sign-in (a fresh unknown e-mail each time, so only the per-address rule can throttle). */
async function failSignIn(server: TestServer, forwardedFor?: string): Promise<number> {
  const client = new ConsoleClient(server.url);
  await client.get("/console/sign-in");
  const body = new URLSearchParams({ email: `nobody${++attempt}@example.com`, password: "wrong password here", csrf: client.csrf });
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded", Origin: server.url };
  if (forwardedFor !== undefined) headers["X-Forwarded-For"] = forwardedFor;
  return (await client.request("/console/sign-in", { method: "POST", body, headers })).status;
}

describe("console sign-in throttling per client address", () => {
  test("behind a trusted proxy it follows X-Forwarded-For's right-most untrusted address", async () => {
    for (let i = 0; i < 10; i++) expect(await failSignIn(behindProxy, "198.51.100.7")).toBe(401);
    expect(await failSignIn(behindProxy, "198.51.100.7")).toBe(429);
    // A client forging addresses on the left is still itself; hops of our own proxies on the right are skipped.
    expect(await failSignIn(behindProxy, "203.0.113.1, 198.51.100.7")).toBe(429);
    expect(await failSignIn(behindProxy, "198.51.100.7, 10.9.3.4")).toBe(429);
    // Another client behind the same proxy is not slowed by the first one's failures.
    expect(await failSignIn(behindProxy, "198.51.100.8")).toBe(401);
  });

  test("without the setting a forged X-Forwarded-For changes nothing: the socket's peer is throttled", async () => {
    const write = process.stderr.write.bind(process.stderr);
    const lines: string[] = [];
    process.stderr.write = ((chunk: string | Uint8Array) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      for (let i = 0; i < 10; i++) expect(await failSignIn(direct, `192.0.2.${i + 1}`)).toBe(401);
    } finally {
      process.stderr.write = write;
    }
    // The operator is told once which setting would make the throttle see the clients behind that proxy.
    const warnings = lines.filter((l) => l.includes("X-Forwarded-For, but"));
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toContain("SURFCAST_TRUST_PROXY=");
    expect(await failSignIn(direct, "192.0.2.200")).toBe(429);
    expect(await failSignIn(direct)).toBe(429);
  });
});

describe("clientAddress (pure)", () => {
  const trusted = parseTrustedProxies("127.0.0.1, 10.0.0.0/8, ::1, fd00::/8");
  test.each([
    ["untrusted peer: the header is ignored", "192.0.2.1", "198.51.100.1", "192.0.2.1"],
    ["trusted peer, one hop", "127.0.0.1", "198.51.100.1", "198.51.100.1"],
    ["trusted peer, proxies chained on the right", "10.1.1.1", "198.51.100.1, 10.2.2.2, 10.3.3.3", "198.51.100.1"],
    ["forged left part ignored", "127.0.0.1", "6.6.6.6, 198.51.100.1", "198.51.100.1"],
    ["IPv6 proxy, IPv4-mapped client", "::1", "::ffff:198.51.100.1", "198.51.100.1"],
    ["IPv6 range", "fd12::5", "2001:db8::1", "2001:db8::1"],
    ["IPv4-mapped trusted peer", "::ffff:127.0.0.1", "198.51.100.1", "198.51.100.1"],
    ["only proxies in the header: the left-most", "127.0.0.1", "10.0.0.5, 10.0.0.6", "10.0.0.5"],
  ])("%s", (_, peer, header, expected) => {
    expect(clientAddress(peer, header, trusted)).toBe(expected);
  });
  test("no header, or no setting: the peer", () => {
    expect(clientAddress("127.0.0.1", null, trusted)).toBe("127.0.0.1");
    expect(clientAddress("127.0.0.1", "198.51.100.1", parseTrustedProxies(undefined))).toBe("127.0.0.1");
  });
});

describe("a bad SURFCAST_TRUST_PROXY", () => {
  test.each(["localhost", "10.0.0.0/33", "1.2.3.4/8/1", "::1/129", "127.0.0.1,"])("%p: one line at start-up, exit 2", (value) => {
    const r = cli(tempDir("trust-proxy"), ["serve", "--port", "0", "--no-scheduler"], { SURFCAST_TRUST_PROXY: value });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("SURFCAST_TRUST_PROXY");
  });
});
