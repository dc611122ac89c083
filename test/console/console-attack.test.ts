/**
 * The console's sign-in under attack, through the compiled binary: guesses sent at once on raw sockets with one
 * CSRF token, a victim locked out by others' failures, oversized e-mails, floods of refused POSTs, secrets in the
 * log, and the smaller findings (the admin page's page number, the invite form, the Origin behind TLS, the
 * __Host- cookie, long passwords, links outliving a password change).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cli, createKey, startServer, type RunningServer } from "../support/binary";
import { ConsoleClient, text } from "../support/console-client";
import { tempDir } from "../support/env";
import { rawRequest } from "../support/raw-http";

const PASSWORD = "correct horse battery staple";

/** Secrets this file made: the log of every server it ran must contain none of them. */
const secrets: string[] = [];

function invite(server: RunningServer, email: string, extra: string[] = []): string {
  const r = cli(server.dataDir, ["accounts", "invite", email, ...extra, "--json"]);
  if (r.code !== 0) throw new Error(r.stderr);
  const url = new URL(JSON.parse(r.stdout).url as string);
  const token = url.pathname.split("/").at(-1)!;
  secrets.push(token);
  return url.pathname;
}

async function owner(server: RunningServer, email: string, password = PASSWORD, extra = ["--plan", "starter"]): Promise<ConsoleClient> {
  const link = invite(server, email, extra);
  const client = new ConsoleClient(server.url);
  await client.get(link);
  const set = await client.post(link, { password, confirm: password });
  if (set.status !== 303) throw new Error(`setting the password failed: ${set.status} ${text(set.body)}`);
  secrets.push(password);
  return client;
}

/** Signs in as a browser behind the trusted proxy, from `address`. */
async function signIn(client: ConsoleClient, email: string, password: string, address: string) {
  await client.get("/console/sign-in", { "X-Forwarded-For": address });
  const body = new URLSearchParams({ email, password, csrf: client.csrf });
  return client.request("/console/sign-in", {
    method: "POST",
    body,
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(client.base).origin, "X-Forwarded-For": address },
  });
}

function rssMb(pid: number): number {
  const status = require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

describe("the console under attack (compiled binary)", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ env: { SURFCAST_TRUST_PROXY: "127.0.0.1" } });
  });
  afterAll(async () => {
    await server.stop();
    const log = server.output();
    for (const secret of secrets) expect(log).not.toContain(secret);
  });

  test("guesses sent at once on raw sockets with one CSRF token: at most 10 are checked, the API keeps answering", async () => {
    await owner(server, "target@example.com");
    const key = createKey(server.dataDir, "api@example.com", "scale");
    secrets.push(key);
    const attacker = new ConsoleClient(server.url);
    await attacker.get("/console/sign-in");
    const port = Number(new URL(server.url).port);
    const body = new URLSearchParams({ email: "target@example.com", password: "wrong password guess", csrf: attacker.csrf }).toString();
    const request = [
      "POST /console/sign-in HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      `Origin: ${server.url}`,
      `Cookie: ${attacker.cookieHeader()}`,
      "Content-Type: application/x-www-form-urlencoded",
      `Content-Length: ${Buffer.byteLength(body)}`,
      "Connection: close",
      "",
      body,
    ].join("\r\n");
    const guesses = Array.from({ length: 120 }, () => rawRequest(port, request, 30_000));
    const api = await fetch(`${server.url}/v1/spots?q=pipe`, { headers: { "X-API-Key": key } });
    expect(api.status).toBe(200);
    const statuses = (await Promise.all(guesses)).map((r) => r.status);
    const checked = statuses.filter((s) => s === 401).length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(10);
    expect(statuses.every((s) => s === 401 || s === 429 || s === 503)).toBe(true);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(120 - 10 - 16);
  }, 60_000);

  test("others' failures do not lock the owner out: the victim signs in from another address", async () => {
    await owner(server, "victim@example.com");
    for (let i = 1; i <= 12; i++) await signIn(new ConsoleClient(server.url), "victim@example.com", "not the password", `203.0.113.${i}`);
    const again = await signIn(new ConsoleClient(server.url), "victim@example.com", "not the password", "203.0.113.5");
    expect(again.status).toBe(429);
    expect(again.headers.get("retry-after")).toMatch(/^\d+$/);
    const victim = new ConsoleClient(server.url);
    const signedIn = await signIn(victim, "victim@example.com", PASSWORD, "198.51.100.7");
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe("/console/overview");
    expect(victim.cookie("surfcast_device")).toBeDefined();
  }, 60_000);

  test("a browser that signed in before gets in from an address others have made fail", async () => {
    await owner(server, "office@example.com");
    const colleague = new ConsoleClient(server.url);
    expect((await signIn(colleague, "office@example.com", PASSWORD, "192.0.2.50")).status).toBe(303);
    for (let i = 0; i < 10; i++) await signIn(new ConsoleClient(server.url), `nobody${i}@example.com`, "not the password", "192.0.2.50");
    expect((await signIn(new ConsoleClient(server.url), "office@example.com", PASSWORD, "192.0.2.50")).status).toBe(429);
    await colleague.get("/console/overview");
    await colleague.post("/console/sign-out", {});
    expect((await signIn(colleague, "office@example.com", PASSWORD, "192.0.2.50")).status).toBe(303);
  }, 60_000);

  test("oversized e-mails are refused before any work and leave no memory behind", async () => {
    const client = new ConsoleClient(server.url);
    await client.get("/console/sign-in");
    const before = rssMb(server.proc.pid);
    const email = `${"x".repeat(60_000)}@example.com`;
    let refused = 0;
    for (let i = 0; i < 40; i++) {
      const batch = await Promise.all(
        Array.from({ length: 25 }, () => client.request("/console/sign-in", { method: "POST", body: new URLSearchParams({ email, password: "whatever it is", csrf: client.csrf }), headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.url } })),
      );
      refused += batch.filter((r) => r.status === 400 && text(r.body).includes("at most 254 characters")).length;
    }
    expect(refused).toBe(1000);
    expect(rssMb(server.proc.pid) - before).toBeLessThan(40);
  }, 60_000);

  test("refused POSTs are tallied, never logged one by one, and never with the link they were sent to", async () => {
    const link = invite(server, "invitee@example.com", ["--plan", "starter"]);
    const before = server.output().split("\n").length;
    const long = "/console/" + "a".repeat(990);
    for (let i = 0; i < 200; i++) {
      const path = i === 0 ? link : long;
      const r = await fetch(server.url + path, { method: "POST", headers: { Origin: "https://evil.example", "Content-Type": "application/x-www-form-urlencoded" }, body: "password=x&confirm=x" });
      expect(r.status).toBe(403);
    }
    const lines = server.output().split("\n").slice(before);
    expect(lines.length).toBeLessThan(5);
    expect(lines.join("\n")).not.toContain("aaaaaaaaaa");
  }, 60_000);

  test("an X-Forwarded-For from an untrusted peer is warned about once, naming SURFCAST_TRUST_PROXY", async () => {
    const plain = await startServer();
    try {
      for (let i = 0; i < 5; i++) await fetch(`${plain.url}/console/sign-in`, { headers: { "X-Forwarded-For": `198.51.100.${i}` } });
      // The server's log reaches us through a pipe: wait for the line, then a moment for any second one.
      const warningsNow = () => plain.output().split("\n").filter((l) => l.includes("SURFCAST_TRUST_PROXY"));
      for (const deadline = Date.now() + 5_000; warningsNow().length === 0 && Date.now() < deadline; ) await Bun.sleep(50);
      await Bun.sleep(300);
      const warnings = warningsNow();
      expect(warnings.length).toBe(1);
      expect(warnings[0]).toContain("WARN");
    } finally {
      await plain.stop();
    }
  }, 60_000);

  test("the admin page takes any page number, and the invite form refuses a 5,000-character e-mail", async () => {
    cli(server.dataDir, ["admins", "create", "boss@example.com"]);
    const admin = await owner(server, "boss@example.com", PASSWORD, []);
    for (const page of ["1e308", "99999999999999999999", "-1", "2.5", "abc", "7"]) {
      const r = await admin.get(`/console/admin?page=${page}`);
      expect(r.status).toBe(200);
    }
    const long = await admin.post("/console/admin/invite", { email: `${"y".repeat(5000)}@example.com`, plan: "starter" });
    expect(long.status).toBe(400);
    expect(text(long.body)).toContain("at most 254 characters");
    expect(cli(server.dataDir, ["accounts", "list", "--json"]).stdout).not.toContain("yyyy");
  }, 60_000);

  test("a password of 130 emoji can be set and used; a password change uses up earlier set-password links", async () => {
    const emoji = "🌊".repeat(130);
    const client = await owner(server, "emoji@example.com", emoji);
    const earlier = invite(server, "emoji@example.com");
    await client.get("/console/overview");
    await client.post("/console/sign-out", {});
    expect((await signIn(client, "emoji@example.com", emoji, "192.0.2.80")).status).toBe(303);
    await client.get("/console/password");
    const changed = await client.post("/console/password", { current: emoji, password: PASSWORD, confirm: PASSWORD });
    expect(changed.status).toBe(303);
    const stale = await new ConsoleClient(server.url).get(earlier);
    expect(stale.status).toBe(410);
  }, 60_000);
});

describe("behind TLS (public URL https)", () => {
  test("only the public origin may POST, and the cookies carry the __Host- prefix", async () => {
    const dataDir = tempDir("console-tls");
    const server = await startServer({ dataDir, env: { SURFCAST_PUBLIC_URL: "https://surf.example.com" } });
    try {
      const client = new ConsoleClient(server.url);
      const page = await client.get("/console/sign-in");
      const setCookie = page.headers.getSetCookie().join("\n");
      expect(setCookie).toMatch(/__Host-surfcast_csrf=[^;]+; Path=\/;/);
      expect(setCookie).toContain("Secure");
      const form = { email: "someone@example.com", password: "not the password" };
      // The browser reached us through a TLS proxy: the request says http://<Host>, no https page sends that.
      expect((await client.post("/console/sign-in", form, { origin: server.url })).status).toBe(403);
      expect((await client.post("/console/sign-in", form, { origin: "https://surf.example.com" })).status).toBe(401);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
