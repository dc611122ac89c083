/**
 * The developer console over HTTP (#14), in-process, without a browser: pages and their headers, the owner's
 * key and usage flow against /v1, the operator's pages, and the security rules (ownership, CSRF and Origin,
 * separation of cookie and API key, disabled accounts, single-use links).
 */
import { sqliteDb } from "../support/inprocess";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../support/inprocess";
import { ConsoleClient, invitedOwner, text } from "../support/console-client";
import { issueInvitation } from "../../src/console/invitations";
import { sqliteConsoleStore } from "../../src/console/sqlite-store";
import { keyById } from "../../src/access/accounts";

const PASSWORD = "a long enough password";
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
}, 30_000);
afterAll(() => server.close());

const owner = (email: string, plan = "starter", admin = false): Promise<ConsoleClient> => invitedOwner(server.app, server.url, email, PASSWORD, plan, admin);

async function createKey(client: ConsoleClient, name: string): Promise<string> {
  await client.get("/console/keys");
  const res = await client.post("/console/keys", { name });
  expect(res.status).toBe(201);
  return /value="(sk_live_[A-Za-z0-9_-]{43})"/.exec(res.body)![1]!;
}

const keyIdOf = (body: string, name: string) => new RegExp(`<td>${name}</td><td><code>[^<]*</code></td>.*?/console/keys/(key_[0-9a-f]+)/revoke`).exec(body)?.[1];

describe("pages", () => {
  test("every answer carries the security headers; pages are not cached; signed out → sign-in", async () => {
    const client = new ConsoleClient(server.url);
    const root = await client.get("/console");
    expect(root.status).toBe(303);
    expect(root.location).toBe("/console/sign-in");
    const page = await client.get("/console/sign-in");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("content-security-policy")).not.toContain("unsafe-inline");
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.body).not.toMatch(/<script>|<script [^>]*>[^<]|\sstyle="|\son[a-z]+="/);
    expect(page.body).not.toContain("\\u"); // templates hold entities, not escapes the transpiler might write
    const css = await client.get("/console/assets/console.css");
    expect(css.headers.get("content-type")).toStartWith("text/css");
    expect((await client.get("/console/assets/console.js")).headers.get("content-type")).toStartWith("text/javascript");
    expect((await client.get("/console/overview")).location).toBe("/console/sign-in");
    expect((await client.get("/consoles")).status).toBe(404); // not the console: the API's JSON 404
  }, 30_000);

  test("--no-console / SURFCAST_CONSOLE=off: /console is the API's 404", async () => {
    const off = await startTestServer({ env: { SURFCAST_CONSOLE: "off" } });
    try {
      const res = await fetch(`${off.url}/console/sign-in`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
    } finally {
      await off.close();
    }
  }, 30_000);
});

describe("owner: keys and usage against /v1", () => {
  test("create a key, call /v1 with it, see the call on the usage page and CSV (equal to /v1/usage), revoke → 401", async () => {
    const client = await owner("flow@example.com");
    const overview = await client.get("/console/overview");
    expect(text(overview.body)).toContain("0 of 2");
    expect(overview.body).toContain("Attribution");
    expect(overview.body).toContain(`${server.app.config.publicUrl}/v1/spots?q`);
    expect(server.app.config.publicUrl).toMatch(/^http:\/\/localhost:[1-9]\d*$/);

    const key = await createKey(client, "web site");
    const keysPage = await client.get("/console/keys");
    expect(keysPage.body).not.toContain(key); // shown once, never again
    expect(text(keysPage.body)).toContain("1 of 2 active keys in use");
    const keyId = keyIdOf(keysPage.body, "web site")!;
    expect(keyId).toBeDefined();

    expect((await server.get("/v1/spots?q=pipeline", key)).status).toBe(200);
    expect((await server.get("/v1/spots/nowhere-at-all", key)).status).toBe(404);
    const usage = await client.get(`/console/usage?key=${keyId}`);
    expect(usage.status).toBe(200);
    expect(usage.body).toContain("spots.search: 1");
    expect(usage.body).toContain("spots.get: 1");
    const csv = await client.get(`/console/usage.csv?key=${keyId}`);
    expect(csv.headers.get("content-type")).toStartWith("text/csv");
    const api = (await (await server.get("/v1/usage", key)).json()) as { days: { date: string; total: number; byEndpoint: Record<string, number> }[] };
    const lines = csv.body.trim().split("\r\n");
    const columns = lines[0]!.split(",");
    expect(columns).toEqual(["date", "spots.search", "spots.get", "total"]);
    expect(lines).toHaveLength(31);
    for (const [i, day] of api.days.entries()) {
      const cells = lines[i + 1]!.split(",");
      expect(cells[0]).toBe(day.date);
      expect(Number(cells[3])).toBe(day.total);
      expect(Number(cells[1])).toBe(day.byEndpoint["spots.search"]!);
    }
    expect(text((await client.get("/console/keys")).body)).toMatch(/web site sk_live_[\w-]{4}… \d{4}-\d\d-\d\d \d{4}-\d\d-\d\d active/);

    const confirm = await client.get(`/console/keys/${keyId}/revoke`);
    expect(text(confirm.body)).toContain("Revoke web site");
    const revoked = await client.post(`/console/keys/${keyId}/revoke`, {});
    expect(revoked.location).toBe("/console/keys?notice=revoked");
    expect((await server.get("/v1/spots?q=pipeline", key)).status).toBe(401);
  }, 30_000);

  test("key names: 1..64 characters, unique among active keys; the plan's cap is named", async () => {
    const client = await owner("names@example.com");
    await client.get("/console/keys");
    for (const [name, message] of [
      ["   ", "A key name has 1 to 64 characters."],
      ["x".repeat(65), "A key name has 1 to 64 characters."],
    ]) {
      const res = await client.post("/console/keys", { name: name! });
      expect(res.status).toBe(400);
      expect(text(res.body)).toContain(message!);
    }
    await createKey(client, "x".repeat(64));
    const dup = await client.post("/console/keys", { name: "x".repeat(64) });
    expect(text(dup.body)).toContain("An active key named");
    await createKey(client, "second <b>key</b>");
    const page = await client.get("/console/keys");
    expect(page.body).toContain("second &#60;b&#62;key&#60;/b&#62;"); // escaped, not markup
    expect(text(page.body)).toContain("Your plan (starter) allows 2 active keys and you have 2");
    const over = await client.post("/console/keys", { name: "third" });
    expect(over.status).toBe(400);
    expect(text(over.body)).toContain("Your plan (starter) allows 2 active keys");
  }, 30_000);
});

describe("security", () => {
  let alice: ConsoleClient;
  let bob: ConsoleClient;
  let aliceKeyId: string;
  let aliceKey: string;
  beforeAll(async () => {
    alice = await owner("alice@example.com", "pro");
    bob = await owner("bob@example.com", "pro");
    aliceKey = await createKey(alice, "alice key");
    aliceKeyId = keyIdOf((await alice.get("/console/keys")).body, "alice key")!;
  }, 30_000);

  test("an owner can neither see nor revoke another owner's key or usage by changing an id", async () => {
    await bob.get("/console/keys");
    expect((await bob.get(`/console/keys/${aliceKeyId}/revoke`)).status).toBe(404);
    expect((await bob.post(`/console/keys/${aliceKeyId}/revoke`, {})).status).toBe(404);
    expect((await bob.get(`/console/usage?key=${aliceKeyId}`)).status).toBe(404);
    expect((await bob.get(`/console/usage.csv?key=${aliceKeyId}`)).status).toBe(404);
    expect((await bob.get("/console/keys")).body).not.toContain(aliceKeyId);
    for (const path of ["/console/admin", "/console/admin/accounts/1", `/console/admin/keys/${aliceKeyId}/revoke`]) expect((await bob.get(path)).status).toBe(404);
    expect((await bob.post(`/console/admin/keys/${aliceKeyId}/revoke`, {})).status).toBe(404);
    expect((await keyById(server.app.stores.access, aliceKeyId))!.revokedAt).toBeNull();
    expect((await server.get("/v1/usage", aliceKey)).status).toBe(200);
  }, 30_000);

  test("POSTs without the CSRF token, with another session's token, or from another origin are refused", async () => {
    await bob.get("/console/keys");
    const bobToken = bob.csrf;
    await alice.get("/console/keys");
    for (const opts of [{ csrf: null }, { csrf: "forged" }, { csrf: bobToken }, { origin: null }, { origin: "https://evil.example" }, { origin: "null" }]) {
      const res = await alice.post("/console/keys", { name: "sneaky" }, opts);
      expect(res.status).toBe(403);
      expect(text(res.body)).toContain("sent from another site");
    }
    expect((await alice.get("/console/keys")).body).not.toContain("sneaky");
    const signedOut = new ConsoleClient(server.url);
    await signedOut.get("/console/sign-in");
    expect((await signedOut.post("/console/sign-in", { email: "alice@example.com", password: PASSWORD }, { origin: "https://evil.example" })).status).toBe(403);
    expect((await signedOut.post("/console/sign-in", { email: "alice@example.com", password: PASSWORD }, { csrf: null })).status).toBe(403);
  }, 30_000);

  test("the console never takes an API key; /v1 never takes the console cookie", async () => {
    const anonymous = new ConsoleClient(server.url);
    expect((await anonymous.get("/console/overview", { "X-API-Key": aliceKey, Authorization: `Bearer ${aliceKey}` })).location).toBe("/console/sign-in");
    const withCookie = await fetch(`${server.url}/v1/usage`, { headers: { Cookie: alice.cookieHeader() } });
    expect(withCookie.status).toBe(401);
    expect(alice.cookie("surfcast_session")).toBeDefined();
  }, 30_000);

  test("sign-in: unknown e-mail and wrong password get the same answer; sign-out ends the session", async () => {
    const c = new ConsoleClient(server.url);
    await c.get("/console/sign-in");
    const unknown = await c.post("/console/sign-in", { email: "nobody@example.com", password: PASSWORD });
    const wrong = await c.post("/console/sign-in", { email: "alice@example.com", password: "not the password" });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(text(unknown.body)).toContain("The e-mail or the password is wrong.");
    expect(text(wrong.body)).toContain("The e-mail or the password is wrong.");
    const ok = await c.post("/console/sign-in", { email: "Alice@Example.com", password: PASSWORD });
    expect(ok.location).toBe("/console/overview");
    const session = c.cookieHeader();
    await c.get("/console/overview");
    expect((await c.post("/console/sign-out", {})).location).toBe("/console/sign-in?notice=signed-out");
    expect((await fetch(`${server.url}/console/overview`, { headers: { Cookie: session }, redirect: "manual" })).headers.get("location")).toBe("/console/sign-in");
  }, 30_000);

  test("a password change ends every other session and keeps this one", async () => {
    const me = await owner("changer@example.com");
    const elsewhere = new ConsoleClient(server.url);
    await elsewhere.get("/console/sign-in");
    expect((await elsewhere.post("/console/sign-in", { email: "changer@example.com", password: PASSWORD })).status).toBe(303);
    await me.get("/console/password");
    expect(text((await me.post("/console/password", { current: "wrong password!!", password: "a new long password", confirm: "a new long password" })).body)).toContain("The current password is wrong.");
    const changed = await me.post("/console/password", { current: PASSWORD, password: "a new long password", confirm: "a new long password" });
    expect(changed.location).toBe("/console/password?notice=password-changed");
    expect((await me.get("/console/overview")).status).toBe(200);
    expect((await elsewhere.get("/console/overview")).location).toBe("/console/sign-in");
  }, 30_000);

  test("an invitation link works once; unknown links say so", async () => {
    const link = (await issueInvitation(sqliteConsoleStore(sqliteDb(server.app)), server.app.clock, server.url, { email: "once@example.com", plan: "starter" })).url;
    const first = new ConsoleClient(server.url);
    await first.get(link);
    expect((await first.post(link, { password: PASSWORD, confirm: "something else!" })).status).toBe(400);
    expect((await first.post(link, { password: "short", confirm: "short" })).status).toBe(400);
    expect((await first.post(link, { password: PASSWORD, confirm: PASSWORD })).status).toBe(303);
    const second = new ConsoleClient(server.url);
    const again = await second.get(link);
    expect(again.status).toBe(410);
    expect(text(again.body)).toContain("already been used");
    const bogus = await second.get("/console/invite/not-a-token");
    expect(bogus.status).toBe(404);
    expect(text(bogus.body)).toContain("not valid");
  }, 30_000);
});

describe("operator", () => {
  test("accounts list, invite, plan and limits, disable ends sessions and sign-in, enable, revoke any key", async () => {
    const admin = await owner("ops@example.com", "early-access", true);
    const customer = await owner("customer@example.com", "starter");
    const customerKey = await createKey(customer, "shop");
    expect((await server.get("/v1/spots?q=pipeline", customerKey)).status).toBe(200);

    const list = await admin.get("/console/admin?q=customer");
    expect(list.status).toBe(200);
    expect(text(list.body)).toMatch(/customer@example\.com starter active 1 \/ 2 1 /);
    const id = /\/console\/admin\/accounts\/(\d+)">customer@example\.com/.exec(list.body)![1]!;

    const invited = await admin.post("/console/admin/invite", { email: "new-shop@example.com", plan: "growth", dailyLimit: "", minuteLimit: "", maxKeys: "7" });
    expect(invited.status).toBe(201);
    expect(invited.body).toContain(`${server.app.config.publicUrl}/console/invite/`);
    expect(text((await admin.get("/console/admin?q=new-shop")).body)).toContain("new-shop@example.com growth active 0 / 7");
    expect((await admin.post("/console/admin/invite", { email: "bad", plan: "growth" })).status).toBe(400);

    await admin.get(`/console/admin/accounts/${id}`);
    const plan = await admin.post(`/console/admin/accounts/${id}/plan`, { plan: "pro", dailyLimit: "12345", minuteLimit: "", maxKeys: "" });
    expect(plan.location).toBe(`/console/admin/accounts/${id}?notice=plan-saved`);
    const limited = await server.get("/v1/spots?q=pipeline", customerKey);
    expect(limited.headers.get("x-ratelimit-limit")).toBe("12345");
    expect((await admin.post(`/console/admin/accounts/${id}/plan`, { plan: "pro", dailyLimit: "lots" })).status).toBe(400);

    expect((await admin.post(`/console/admin/accounts/${id}/disable`, {})).status).toBe(303);
    expect((await customer.get("/console/overview")).location).toBe("/console/sign-in");
    expect((await server.get("/v1/spots?q=pipeline", customerKey)).status).toBe(401);
    const again = new ConsoleClient(server.url);
    await again.get("/console/sign-in");
    expect((await again.post("/console/sign-in", { email: "customer@example.com", password: PASSWORD })).status).toBe(401);
    await admin.get(`/console/admin/accounts/${id}`);
    expect((await admin.post(`/console/admin/accounts/${id}/enable`, {})).status).toBe(303);
    expect((await server.get("/v1/spots?q=pipeline", customerKey)).status).toBe(200);

    const detail = await admin.get(`/console/admin/accounts/${id}`);
    const keyId = /\/console\/admin\/keys\/(key_[0-9a-f]+)\/revoke/.exec(detail.body)![1]!;
    await admin.get(`/console/admin/keys/${keyId}/revoke`);
    expect((await admin.post(`/console/admin/keys/${keyId}/revoke`, {})).location).toBe(`/console/admin/accounts/${id}?notice=revoked`);
    expect((await server.get("/v1/spots?q=pipeline", customerKey)).status).toBe(401);
  }, 30_000);
});
