/**
 * What an https public URL changes for the browser-facing parts, through the compiled binary serving its own
 * certificate (--tls-cert/--tls-key, made here): a real console sign-in sets its session cookie `__Host-` and
 * `Secure`, and /mcp's Origin check accepts the server's https origin and refuses a foreign one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, cli, startServer, type RunningServer } from "../support/binary";
import { ConsoleClient } from "../support/console-client";
import { freePort, tempDir } from "../support/env";
import { makeCertificate } from "../support/pebble";

const PASSWORD = "correct horse battery";
const port = freePort();
/** The public name, which the certificate covers besides localhost (where the test connects). */
const PUBLIC = `https://surf.test:${port}`;
const LOCAL = `https://localhost:${port}`;
let server: RunningServer;
let trusted: BunFetchRequestInit;

beforeAll(async () => {
  const dir = tempDir("tls-sign-in");
  const own = makeCertificate(dir, "own", ["surf.test", "localhost"]);
  trusted = { tls: { ca: await Bun.file(own.ca).text() } };
  server = await startServer({ port, args: ["--no-scheduler", "--tls-cert", own.cert, "--tls-key", own.key], env: { SURFCAST_PUBLIC_URL: PUBLIC } });
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

describe("behind the server's own TLS", () => {
  test("a real sign-in sets the session cookie __Host- and Secure, and the session works over https", async () => {
    const invited = cli(server.dataDir, ["accounts", "invite", "owner@surf.test", "--plan", "starter", "--json"]);
    expect(invited.code).toBe(0);
    const link = new URL(JSON.parse(invited.stdout).url as string);
    expect(link.origin).toBe(PUBLIC);
    const invitee = new ConsoleClient(LOCAL, trusted);
    await invitee.get(link.pathname);
    expect((await invitee.post(link.pathname, { password: PASSWORD, confirm: PASSWORD }, { origin: PUBLIC })).status).toBe(303);

    const browser = new ConsoleClient(LOCAL, trusted);
    await browser.get("/console/sign-in");
    // Only the public https origin may post a form.
    expect((await browser.post("/console/sign-in", { email: "owner@surf.test", password: PASSWORD }, { origin: `http://surf.test:${port}` })).status).toBe(403);
    const signedIn = await browser.post("/console/sign-in", { email: "owner@surf.test", password: PASSWORD }, { origin: PUBLIC });
    expect([signedIn.status, signedIn.headers.get("strict-transport-security")]).toEqual([303, "max-age=31536000"]);
    const session = signedIn.headers.getSetCookie().find((c) => c.includes("surfcast_session="));
    expect(session).toMatch(/^__Host-surfcast_session=[^;]+;/);
    expect(session).toMatch(/; Secure\b/i);
    expect(session).toMatch(/; Path=\/(;|$)/);
    expect(session).not.toMatch(/; Domain=/i);
    expect(session).toMatch(/; HttpOnly\b/i);
    const overview = await browser.get("/console/overview");
    expect(overview.status).toBe(200);
    expect(overview.body).toContain("owner@surf.test");
  }, 30_000);

  test("/mcp accepts the server's https origin and refuses a foreign one", async () => {
    const key = createKey(server.dataDir, "mcp@surf.test");
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "test", version: "1" } } };
    const mcp = (origin: string, host = `surf.test:${port}`) =>
      fetch(`${LOCAL}/mcp`, {
        ...trusted,
        method: "POST",
        headers: { Host: host, Origin: origin, "X-API-Key": key, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify(initialize),
      });
    expect((await mcp(PUBLIC)).status).toBe(200);
    for (const [origin, host] of [["https://evil.example", `surf.test:${port}`], [`https://evil.example:${port}`, `evil.example:${port}`]] as const) {
      const refused = await mcp(origin, host);
      expect(refused.status).toBe(403);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("invalid_request");
      expect(body.error.message).toContain(origin);
    }
  }, 30_000);
});
