/**
 * Console accounts (#14), below HTTP: invitation links, passwords, sessions, sign-in throttling, and the CLI
 * (`accounts invite`, `admins create`) through the compiled binary, with e-mail to a local SMTP sink.
 */
import { sqliteDb } from "../support/inprocess";
import { afterAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config";
import { openApp, type App } from "../../src/app";
import { ManualClock } from "../../src/core/clock";
import { createAccount, setAccountDisabled } from "../../src/access/accounts";
import { inspectLink, issueInvitation, redeemLink } from "../../src/console/invitations";
import { sqliteConsoleStore } from "../../src/console/sqlite-store";
import { findSession, startSession, IDLE_MS, ABSOLUTE_MS } from "../../src/console/sessions";
import { addressKey, SignInThrottle, WorkQueue, type Throttle } from "../../src/console/throttle";
import { SharedSignInThrottle } from "../../src/console/shared-throttle";
import { RedisConnection } from "../../src/access/redis-connection";
import { answersPing, LOCAL_REDIS_URL } from "../support/redis";
import { ConsoleService } from "../../src/console/service";
import { cli, cliAsync } from "../support/binary";
import { tempDir } from "../support/env";
import { startSmtpSink } from "../support/smtp-sink";

const PASSWORD = "correct horse battery";
const tokenOf = (url: string) => url.slice(url.lastIndexOf("/") + 1);
const at = (address: string) => ({ address, deviceCookie: undefined });

const redisAvailable = await answersPing(LOCAL_REDIS_URL);
const rule = { limit: 3, windowMs: 60_000 };
type Step = [email: string, address: string, device: string | null, at: number, outcome: "ok" | "fail" | number];

/** Runs attempts in order: "fail" and "ok" must be admitted (and settle so), a number is the refusal's seconds. */
async function runSteps(t: Throttle, steps: Step[]): Promise<void> {
  for (const [email, address, device, at, outcome] of steps) {
    const admission = await t.admit({ email, address, device }, at);
    if (typeof outcome === "number") {
      expect(admission).toEqual({ admitted: false, retryAfterSeconds: outcome });
      continue;
    }
    if (!admission.admitted) throw new Error(`refused at ${at}: ${email} from ${address}`);
    if (outcome === "ok") await t.succeeded(admission.reservation);
  }
}

/** The throttle's rules, table-tested: on one server (memory) and on several (Redis) they must agree. */
const THROTTLE_CASES: [string, Step[]][] = [
    ["an address may fail `limit` times, then waits for its oldest failure to leave the window",
      [["a@x", "1.1.1.1", null, 0, "fail"], ["b@x", "1.1.1.1", null, 1000, "fail"], ["c@x", "1.1.1.1", null, 2000, "fail"], ["d@x", "1.1.1.1", null, 2000, 58], ["d@x", "1.1.1.1", null, 60_001, "ok"]]],
    ["failures spread out count only inside the window",
      [["a@x", "1.1.1.1", null, 0, "fail"], ["a@x", "1.1.1.1", null, 30_000, "fail"], ["a@x", "1.1.1.1", null, 61_000, "fail"], ["a@x", "1.1.1.1", null, 61_500, "fail"]]],
    ["an account under attack refuses the failing addresses and lets a clean one in",
      [["v@x", "6.6.6.1", null, 0, "fail"], ["v@x", "6.6.6.2", null, 0, "fail"], ["v@x", "6.6.6.3", null, 0, "fail"], ["v@x", "6.6.6.1", null, 1000, 59], ["v@x", "9.9.9.9", null, 1000, "ok"]]],
    ["under attack a clean address gets one guess, then waits",
      [["v@x", "6.6.6.1", null, 0, "fail"], ["v@x", "6.6.6.2", null, 0, "fail"], ["v@x", "6.6.6.3", null, 0, "fail"], ["v@x", "6.6.6.4", null, 0, "fail"], ["v@x", "6.6.6.4", null, 0, 60]]],
    ["the e-mail is compared without case or spaces",
      [["V@x", "6.6.6.1", null, 0, "fail"], [" v@X", "6.6.6.2", null, 0, "fail"], ["v@x", "6.6.6.3", null, 0, "fail"], ["v@x ", "6.6.6.1", null, 0, 60]]],
    ["a success takes its attempt back and forgives that address on the account",
      [["v@x", "1.1.1.1", null, 0, "fail"], ["v@x", "1.1.1.1", null, 0, "fail"], ["v@x", "1.1.1.1", null, 0, "ok"], ["w@x", "1.1.1.1", null, 0, "fail"], ["w@x", "1.1.1.1", null, 0, 60]]],
    ["a device of the account is counted on its own, not by its refused address",
      [["a@x", "5.5.5.5", null, 0, "fail"], ["b@x", "5.5.5.5", null, 0, "fail"], ["c@x", "5.5.5.5", null, 0, "fail"], ["v@x", "5.5.5.5", null, 0, 60], ["v@x", "5.5.5.5", "dev1", 0, "fail"], ["v@x", "5.5.5.5", "dev1", 0, "fail"], ["v@x", "5.5.5.5", "dev1", 0, "fail"], ["v@x", "5.5.5.5", "dev1", 0, 60], ["v@x", "5.5.5.5", "dev2", 0, "ok"]]],
    ["IPv6 addresses count per /64",
      [["a@x", "2001:db8:1:2::1", null, 0, "fail"], ["b@x", "2001:db8:1:2:ffff::9", null, 0, "fail"], ["c@x", "2001:0db8:0001:0002:0:0:0:7", null, 0, "fail"], ["d@x", "2001:db8:1:2::abcd", null, 0, 60], ["d@x", "2001:db8:1:3::1", null, 0, "ok"]]],
];

describe.skipIf(!redisAvailable)("sign-in throttle in Redis (several servers): the same rules", () => {
  const redis = new RedisConnection(LOCAL_REDIS_URL);
  afterAll(() => redis.close());
  test.each(THROTTLE_CASES)("%s", async (_, steps) => {
    await redis.ready();
    await runSteps(new SharedSignInThrottle(redis, rule, `surfcast-test:${crypto.randomUUID()}:`), steps);
  });
});

describe("sign-in throttle (pure)", () => {
  test.each(THROTTLE_CASES)("%s", (_, steps) => runSteps(new SignInThrottle(rule), steps));

  test.each([
    ["192.0.2.7", "192.0.2.7"],
    ["::ffff:192.0.2.7", "192.0.2.7"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["2001:DB8:0:0:1::", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["unknown", "unknown"],
  ])("addressKey(%p) is %p", (address, key) => expect(addressKey(address)).toBe(key));

  test("a 60 KB e-mail costs an entry of the same size as a short one, and expired entries are swept", () => {
    const t = new SignInThrottle(rule);
    for (let i = 0; i < 100; i++) t.admit({ email: `${i}${"x".repeat(60_000)}@x`, address: `10.0.${i}.1`, device: null }, 0);
    expect(t.sweep(1000)).toBe(300); // address, account and account-and-address entries
    expect(t.sweep(rule.windowMs + 1)).toBe(0);
  });

  test("the work queue runs one check at a time, lets a few wait and refuses the rest at once", async () => {
    const queue = new WorkQueue(1, 2);
    let running = 0;
    let most = 0;
    const work = async () => {
      most = Math.max(most, ++running);
      await Bun.sleep(20);
      running--;
      return "done";
    };
    const results = await Promise.all(Array.from({ length: 5 }, () => queue.run(work)));
    expect(results).toEqual(["done", "done", "done", null, null]);
    expect(most).toBe(1);
    expect(await queue.run(work)).toBe("done");
  });
});

describe("invitations, passwords, sessions", async () => {
  const clock = new ManualClock(Date.parse("2026-11-20T10:00:00Z"));
  const app: App = await openApp(loadConfig({ dataDir: tempDir("console-access") }, {}), clock);
  const service = new ConsoleService(app);
  const store = sqliteConsoleStore(sqliteDb(app));
  afterAll(() => app.close());

  test("an invitation creates the account, works once, and the password is stored as argon2id", async () => {
    const inv = await issueInvitation(store, clock, "http://x", { email: "New@Example.com", plan: "starter" });
    expect(inv.created).toBe(true);
    expect(inv.kind).toBe("invitation");
    expect(inv.url).toStartWith("http://x/console/invite/");
    const token = tokenOf(inv.url);
    expect(await inspectLink(store, clock, token)).toMatchObject({ ok: true, email: "new@example.com", hasPassword: false });
    expect(await redeemLink(store, clock, token, "short")).toEqual({ problem: "Choose a password of at least 12 characters." });
    const redeemed = await redeemLink(store, clock, token, PASSWORD);
    expect(redeemed).toEqual({ accountId: inv.account.id });
    expect(await redeemLink(store, clock, token, PASSWORD)).toEqual({ problem: "used" });
    const stored = sqliteDb(app).$client.query("select password_hash from accounts where id = ?").get(inv.account.id) as { password_hash: string };
    expect(stored.password_hash).toStartWith("$argon2id$");
    expect(sqliteDb(app).$client.query("select count(*) n from invitations where token_hash = ?").get(token)).toEqual({ n: 0 });
    expect(await inspectLink(store, clock, "nonsense")).toEqual({ ok: false, problem: "unknown" });
  }, 30_000);

  test("an existing account gets a set-password link; a newer link replaces older ones; links expire after 7 days", async () => {
    await createAccount(app.stores.access, clock, "old@example.com", "pro");
    const first = await issueInvitation(store, clock, "http://x", { email: "old@example.com" });
    expect(first.created).toBe(false);
    const second = await issueInvitation(store, clock, "http://x", { email: "old@example.com" });
    expect(await inspectLink(store, clock, tokenOf(first.url))).toEqual({ ok: false, problem: "used" });
    clock.advance(7 * 86_400_000);
    expect(await inspectLink(store, clock, tokenOf(second.url))).toEqual({ ok: false, problem: "expired" });
    await expect(issueInvitation(store, clock, "http://x", { email: "nobody@example.com" })).rejects.toThrow("plan is required for a new account");
  }, 30_000);

  test("sign-in: unknown e-mail and wrong password answer alike; success starts a session", async () => {
    expect(await service.signIn("nobody@example.com", PASSWORD, at("10.0.0.1"))).toEqual({ problem: "invalid" });
    expect(await service.signIn("new@example.com", "wrong password!", at("10.0.0.1"))).toEqual({ problem: "invalid" });
    const ok = await service.signIn(" NEW@example.com ", PASSWORD, at("10.0.0.1"));
    expect("token" in ok && (await findSession(store, clock, ok.token))?.email).toBe("new@example.com");
  }, 30_000);

  test("sign-in: failing addresses are throttled; the owner from a clean address still gets in", async () => {
    for (let i = 0; i < 10; i++) await service.signIn("new@example.com", "wrong password!", at(`10.1.0.${i}`));
    expect(await service.signIn("new@example.com", PASSWORD, at("10.1.0.3"))).toMatchObject({ problem: "throttled" });
    expect(await service.signIn("new@example.com", PASSWORD, at("10.2.0.1"))).toHaveProperty("token");
    for (let i = 0; i < 10; i++) await service.signIn(`x${i}@example.com`, "wrong password!", at("10.3.0.1"));
    expect(await service.signIn("old@example.com", PASSWORD, at("10.3.0.1"))).toMatchObject({ problem: "throttled" });
    clock.advance(15 * 60_000 + 1);
    expect(await service.signIn("new@example.com", PASSWORD, at("10.1.0.3"))).toHaveProperty("token");
  }, 30_000);

  test("sessions end after 7 idle days, after 30 days, on a password change and on disable", async () => {
    const id = (await service.signIn("new@example.com", PASSWORD, at("10.9.0.1"))) as { accountId: number };
    const s = () => startSession(store, clock, id.accountId);
    const idle = await s();
    clock.advance(IDLE_MS - 1000);
    expect(await findSession(store, clock, idle)).not.toBeNull();
    clock.advance(IDLE_MS - 1000);
    expect(await findSession(store, clock, idle)).not.toBeNull(); // used a week ago: still alive
    clock.advance(IDLE_MS);
    expect(await findSession(store, clock, idle)).toBeNull();

    const busy = await s();
    for (let day = 0; day < 29; day++) {
      clock.advance(86_400_000);
      expect(await findSession(store, clock, busy)).not.toBeNull();
    }
    clock.advance(ABSOLUTE_MS - 29 * 86_400_000);
    expect(await findSession(store, clock, busy)).toBeNull();

    const beforeChange = await s();
    const link = await issueInvitation(store, clock, "http://x", { email: "new@example.com" });
    expect(link.kind).toBe("set-password");
    await redeemLink(store, clock, tokenOf(link.url), "another long password");
    expect(await findSession(store, clock, beforeChange)).toBeNull();

    const beforeDisable = await s();
    await setAccountDisabled(app.stores.access, "new@example.com", true);
    expect(await findSession(store, clock, beforeDisable)).toBeNull();
    expect(await service.signIn("new@example.com", "another long password", at("10.9.0.2"))).toEqual({ problem: "invalid" });
    expect(await inspectLink(store, clock, tokenOf((await issueInvitation(store, clock, "http://x", { email: "new@example.com" })).url))).toEqual({ ok: false, problem: "disabled" });
    await setAccountDisabled(app.stores.access, "new@example.com", false);
  }, 30_000);
});

describe("CLI: accounts invite, admins create (compiled binary)", () => {
  test("prints the link under SURFCAST_PUBLIC_URL, --json, e-mails it through SMTP, and explains mistakes in one line", async () => {
    const dir = tempDir("console-cli");
    const sink = await startSmtpSink();
    try {
      const env = { SURFCAST_PUBLIC_URL: "https://surf.example.com/", SURFCAST_SMTP_URL: sink.url, SURFCAST_SMTP_FROM: "Surf <ops@example.com>" };
      const text = await cliAsync(dir, ["accounts", "invite", "shop@example.com", "--plan", "growth", "--max-keys", "3"], env);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^invitation for shop@example\.com \(new growth account\), valid until .*\nhttps:\/\/surf\.example\.com\/console\/invite\/[A-Za-z0-9_-]{43}\ne-mailed to shop@example\.com\n$/);
      const link = text.stdout.split("\n")[1]!;
      expect(sink.messages).toHaveLength(1);
      expect(sink.messages[0]!.to).toEqual(["shop@example.com"]);
      expect(sink.messages[0]!.raw.replace(/=\r?\n/g, "")).toContain(link);

      const json = cli(dir, ["accounts", "invite", "shop@example.com", "--json"], { SURFCAST_PUBLIC_URL: "http://127.0.0.1:9999" });
      const parsed = JSON.parse(json.stdout);
      expect(parsed).toMatchObject({ created: false, kind: "invitation", emailed: false, account: { email: "shop@example.com", plan: "growth", maxKeys: 3 } });
      expect(parsed.url).toStartWith("http://127.0.0.1:9999/console/invite/");

      const admin = cli(dir, ["admins", "create", "ops@example.com", "--json"]);
      expect(JSON.parse(admin.stdout)).toMatchObject({ created: true, account: { admin: true, plan: "early-access" } });

      for (const [args, message] of [
        [["accounts", "invite", "new@example.com"], "--plan is required"],
        [["accounts", "invite", "not-an-email", "--plan", "starter"], "is not a valid e-mail address"],
        [["accounts", "invite", "x@example.com", "--plan", "gold"], 'unknown plan "gold"'],
      ] as const) {
        const r = cli(dir, [...args]);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(message);
        expect(r.stderr).not.toContain("    at ");
      }
      const badUrl = cli(dir, ["accounts", "invite", "shop@example.com"], { SURFCAST_PUBLIC_URL: "surf.example.com" });
      expect(badUrl.code).toBe(2);
      expect(badUrl.stderr).toContain("SURFCAST_PUBLIC_URL must be an http(s) URL");
    } finally {
      await sink.close();
    }
  }, 30_000);
});
