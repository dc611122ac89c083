/**
 * Access control (#4): authentication forms and failures, daily quota, per-minute burst, rate-limit headers,
 * usage reporting, UTC rollover, persistence across restarts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock, startTestServer, type TestServer } from "../support/inprocess";
import { apiFetch } from "../support/http";
import { tempDir } from "../support/env";
import { cli, createKey, startServer } from "../support/binary";
import { ConsoleClient, text } from "../support/console-client";
import { untilKeyAccepted } from "../support/wait";
import { openDatabase, closeDatabase } from "../../src/db";
import { seedPlans, sqliteAccessStore } from "../../src/access/sqlite-store";
import { createAccount, setAccountDisabled, setAccountPlan, revokeKey, listKeys } from "../../src/access/accounts";
import type { RuleError } from "../../src/core/errors";
import { consoleWording } from "../../src/console/wording";
import { BurstWindow, decide, fixedRateLimitHeaders, varyingRateLimitHeaders } from "../../src/access/limiter";
import { keyFromHeaders } from "../../src/access/keys";
import { UsageMeter } from "../../src/access/meter";
import type { Principal } from "../../src/access/registry";

type ErrorBody = { error: { code: string; message: string } };
type UsageBody = { plan: string; limit: number; today: number; days: { date: string; total: number; byEndpoint: Record<string, number> }[] };

const errorCode = async (res: Response) => ((await res.json()) as ErrorBody).error.code;

describe("limiter arithmetic (pure)", () => {
  const limits = { dailyLimit: 5, minuteLimit: 3 };
  const windowAt = (...times: number[]) => {
    const w = new BurstWindow();
    for (const t of times) w.add(t);
    return w;
  };
  test("burst: at most N in the current second and the 59 before; Retry-After until the oldest second leaves", () => {
    expect(decide(limits, 0, windowAt(1000, 2000, 3000), 3500)).toEqual({ allowed: false, blockedBy: "burst", retryAfterSeconds: 58 });
    expect(decide(limits, 0, windowAt(1000, 2000, 3000), 60_999).allowed).toBe(false);
    expect(decide(limits, 0, windowAt(1000, 2000, 3000), 61_000).allowed).toBe(true);
    expect(decide(limits, 0, windowAt(1000, 1500, 3000), 3500)).toEqual({ allowed: false, blockedBy: "burst", retryAfterSeconds: 58 });
  });
  test("the window survives serialization and ignores garbage", () => {
    const w = windowAt(1000, 1200, 59_000);
    const back = BurstWindow.parse(w.serialize(59_500));
    expect(back.used(59_500)).toBe(3);
    expect(back.used(61_000)).toBe(1);
    expect(w.serialize(59_500)).toBe("[[1,2],[59,1]]");
    for (const junk of ["", "nope", "{}", "[1,2,3]", '[["a",1]]', "[[1,-5]]"]) expect(BurstWindow.parse(junk).used(1000)).toBe(0);
  });
  test("daily: blocks until the next UTC midnight, and wins over burst", () => {
    const now = Date.parse("2026-11-21T23:59:30Z");
    expect(decide(limits, 5, windowAt(now - 1, now - 2, now - 3), now)).toEqual({ allowed: false, blockedBy: "daily", retryAfterSeconds: 30 });
  });
  test("a weighted request (GET /v1/now for n spots) needs room for all n, in the quota and in the burst window", () => {
    const limits = { dailyLimit: 5, minuteLimit: 3 };
    expect(decide(limits, 2, new BurstWindow(), 1000, 3).allowed).toBe(true);
    expect(decide(limits, 3, new BurstWindow(), 1000, 3)).toMatchObject({ allowed: false, blockedBy: "daily" });
    expect(decide(limits, 0, windowAt(1000), 2000, 3)).toEqual({ allowed: false, blockedBy: "burst", retryAfterSeconds: 59 });
    expect(decide(limits, 0, windowAt(1000, 1500), 2000, 2)).toEqual({ allowed: false, blockedBy: "burst", retryAfterSeconds: 59 });
    const w = new BurstWindow();
    w.add(1000, 3);
    expect(w.used(1500)).toBe(3);
    expect(decide(limits, 0, w, 1500).allowed).toBe(false);
  });
  test("headers: spec fields and IETF draft fields", () => {
    const now = Date.parse("2026-11-21T12:00:00Z");
    const limits = { dailyLimit: 500, minuteLimit: 60 };
    expect(fixedRateLimitHeaders(limits, now)).toEqual({
      limit: "500",
      reset: "2026-11-22T00:00:00Z",
      policy: '"burst";q=60;w=60, "daily";q=500;w=86400',
    });
    expect(varyingRateLimitHeaders(limits, 88, windowAt(now - 30_000, now), now)).toEqual({
      remaining: "412",
      rateLimit: '"burst";r=58;t=60, "daily";r=412;t=43200',
    });
    expect(varyingRateLimitHeaders({ dailyLimit: 5, minuteLimit: 60 }, 9, new BurstWindow(), now).remaining).toBe("0");
  });
  test("key extraction: both forms, conflicting or malformed Authorization is refused", () => {
    const k = "sk_live_" + "a".repeat(43);
    expect(keyFromHeaders(new Headers({ "X-API-Key": k }))).toBe(k);
    expect(keyFromHeaders(new Headers({ Authorization: `Bearer ${k}` }))).toBe(k);
    expect(keyFromHeaders(new Headers({ Authorization: `bearer   ${k}` }))).toBe(k);
    expect(keyFromHeaders(new Headers({ Authorization: `Basic ${k}` }))).toBeNull();
    expect(keyFromHeaders(new Headers({ Authorization: `Bearer ${k} extra` }))).toBeNull();
    expect(keyFromHeaders(new Headers({ "X-API-Key": k, Authorization: `Bearer ${k.replace("a", "b")}` }))).toBeNull();
    expect(keyFromHeaders(new Headers())).toBeNull();
  });
});

describe("authentication over HTTP", () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await startTestServer();
    key = await s.key("starter", {}, "auth@example.com");
  });
  afterAll(() => s.close());

  test("X-API-Key and Authorization: Bearer are equivalent", async () => {
    expect((await s.get("/v1/usage", key)).status).toBe(200);
    expect((await apiFetch(s.url + "/v1/usage", { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
  });

  test("missing, malformed, unknown keys and keys in the query string → 401 invalid_key", async () => {
    const cases: [string, Record<string, string>][] = [
      ["/v1/usage", {}],
      ["/v1/usage", { "X-API-Key": "nope" }],
      ["/v1/usage", { "X-API-Key": "sk_live_" + "Z".repeat(43) }],
      ["/v1/usage", { Authorization: "Bearer" }],
      ["/v1/usage", { Authorization: `Token ${key}` }],
      [`/v1/usage?api_key=${key}`, {}],
      [`/v1/usage?key=${key}`, {}],
    ];
    for (const [path, headers] of cases) {
      const res = await apiFetch(s.url + path, { headers });
      expect(res.status).toBe(401);
      expect(await errorCode(res)).toBe("invalid_key");
      expect(res.headers.get("X-RateLimit-Limit")).toBeNull();
    }
  });

  test("auth runs before routing and validation: a bad key with bad parameters or paths is 401", async () => {
    for (const path of ["/v1/spots?q=a", "/v1/spots/nearby?lat=999", "/v1/spots/unknown-spot", "/v1/nowhere", "/v1/spots/x/forecast?days=99"]) {
      const res = await apiFetch(s.url + path, { headers: { "X-API-Key": "bad" } });
      expect(res.status).toBe(401);
    }
  });

  test("revoked key → invalid_key; disabled account → account_disabled; re-enabled works again", async () => {
    const k2 = await s.key("starter", {}, "revoke@example.com");
    const id = (await listKeys(s.app.stores.access, "revoke@example.com"))[0]!.id;
    await revokeKey(s.app.stores.access, s.clock, id);
    await s.app.keys.reload();
    const revoked = await s.get("/v1/usage", k2);
    expect(revoked.status).toBe(401);
    expect(await errorCode(revoked)).toBe("invalid_key");

    const k3 = await s.key("starter", {}, "disabled@example.com");
    await setAccountDisabled(s.app.stores.access, "disabled@example.com", true);
    await s.app.keys.reload();
    const disabled = await s.get("/v1/spots/anything", k3);
    expect(disabled.status).toBe(401);
    expect(await errorCode(disabled)).toBe("account_disabled");
    await setAccountDisabled(s.app.stores.access, "disabled@example.com", false);
    await s.app.keys.reload();
    expect((await s.get("/v1/usage", k3)).status).toBe(200);
  });

  test("CORS: any origin, rate-limit headers exposed; preflight needs no key", async () => {
    const res = await s.get("/v1/usage", key, { Origin: "https://example.org" });
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    const exposed = res.headers.get("Access-Control-Expose-Headers") ?? "";
    for (const h of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "RateLimit-Policy", "Retry-After", "ETag"]) expect(exposed).toContain(h);
    expect((await s.get("/v1/usage", key)).headers.get("Access-Control-Allow-Origin")).toBeNull(); // no Origin, no CORS bytes
    const pre = await fetch(s.url + "/v1/spots?q=ab", { method: "OPTIONS", headers: { Origin: "https://example.org", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-api-key" } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("Access-Control-Allow-Headers")).toContain("X-API-Key");
  });

  test("non-GET on /v1 → 405 in the error shape, not counted", async () => {
    const k = await s.key("starter", {}, "post@example.com");
    const res = await fetch(s.url + "/v1/spots?q=ab", { method: "POST", headers: { "X-API-Key": k } });
    expect(res.status).toBe(405);
    expect(await errorCode(res)).toBe("invalid_request");
    expect(res.headers.get("Allow")).toBe("GET, HEAD");
    expect(((await (await s.get("/v1/usage", k)).json()) as UsageBody).today).toBe(0);
  });
});

describe("quota, burst and headers", () => {
  const clock = new ManualClock(Date.parse("2026-11-21T12:00:00Z"));
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ clock });
  });
  afterAll(() => s.close());

  test("burst: the 61st request within a minute is 429 with Retry-After; it frees up after the window", async () => {
    const key = await s.key("starter");
    for (let i = 0; i < 60; i++) {
      const res = await s.get("/v1/spots/some-spot", key);
      expect(res.status).toBe(404);
    }
    const refused = await s.get("/v1/spots/some-spot", key);
    expect(refused.status).toBe(429);
    expect(await errorCode(refused)).toBe("rate_limited");
    expect(refused.headers.get("Retry-After")).toBe("60");
    expect(refused.headers.get("X-RateLimit-Remaining")).toBe("440");
    clock.advance(30_000);
    expect((await s.get("/v1/spots/some-spot", key)).headers.get("Retry-After")).toBe("30");
    clock.advance(30_001);
    expect((await s.get("/v1/spots/some-spot", key)).status).toBe(404);
  });

  test("daily quota with a small custom limit: Remaining decrements, usage does not count, 429 until midnight", async () => {
    const key = await s.key("scale", { dailyLimit: 3, minuteLimit: 100 });
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await s.get("/v1/spots?q=x", key); // 400: counted
      expect(res.status).toBe(400);
      remaining.push(res.headers.get("X-RateLimit-Remaining"));
      const usage = await s.get("/v1/usage", key);
      expect(usage.headers.get("X-RateLimit-Remaining")).toBe(String(2 - i));
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const refused = await s.get("/v1/spots/nearby?lat=0&lng=0", key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("X-RateLimit-Limit")).toBe("3");
    expect(refused.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(refused.headers.get("X-RateLimit-Reset")).toBe("2026-11-22T00:00:00Z");
    const midnight = Date.parse("2026-11-22T00:00:00Z");
    expect(Number(refused.headers.get("Retry-After"))).toBe(Math.ceil((midnight - clock.now()) / 1000));
    // usage still answers (not counted, not refused by the daily quota)
    const usage = (await (await s.get("/v1/usage", key)).json()) as UsageBody;
    expect(usage).toMatchObject({ plan: "scale", limit: 3, today: 3 });
    expect(usage.days.at(-1)!.byEndpoint["spots.search"]).toBe(3);
    expect(usage.days.at(-1)!.byEndpoint["spots.nearby"]).toBe(0);
  });

  test("UTC midnight rollover resets the quota and starts a new usage day", async () => {
    clock.set("2026-11-21T23:59:50Z");
    const key = await s.key("scale", { dailyLimit: 2, minuteLimit: 100 });
    expect((await s.get("/v1/spots/a", key)).status).toBe(404);
    expect((await s.get("/v1/spots/b", key)).status).toBe(404);
    expect((await s.get("/v1/spots/c", key)).status).toBe(429);
    clock.set("2026-11-22T00:00:01Z");
    const res = await s.get("/v1/spots/d", key);
    expect(res.status).toBe(404);
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("1");
    expect(res.headers.get("X-RateLimit-Reset")).toBe("2026-11-23T00:00:00Z");
    const usage = (await (await s.get("/v1/usage", key)).json()) as UsageBody;
    expect(usage.days).toHaveLength(30);
    expect(usage.days.at(-1)).toMatchObject({ date: "2026-11-22", total: 1 });
    expect(usage.days.at(-2)).toMatchObject({ date: "2026-11-21", total: 2 });
    expect(usage.days[0]!.date).toBe("2026-10-24");
  });

  test("usage is served from memory and equals the stored counts, across calls, flushes and the UTC midnight", async () => {
    clock.set("2026-11-26T23:59:00Z");
    const key = await s.key("scale", { minuteLimit: 1000 }, "memory@example.com");
    const paths = ["/v1/spots/x", "/v1/spots/x/tides", "/v1/spots?q=pipeline", "/v1/spots/nearby?lat=0&lng=0", "/v1/spots/x/forecast"];
    const fresh = async () => {
      // A meter built now reads only the database (and the pending counts flushed into it).
      await s.app.meter.flush();
      return new UsageMeter(s.app.stores.access, clock).report(s.app.keys.authenticate(key) as Principal);
    };
    for (let i = 0; i < 23; i++) {
      await s.get(paths[i % paths.length]!, key);
      if (i % 7 === 0) expect((await (await s.get("/v1/usage", key)).json()) as UsageBody).toEqual((await fresh()) as UsageBody);
      if (i === 11) clock.set("2026-11-27T00:00:30Z");
    }
    const served = (await (await s.get("/v1/usage", key)).json()) as UsageBody;
    expect(served).toEqual((await fresh()) as UsageBody);
    expect(served.days.at(-1)).toMatchObject({ date: "2026-11-27", total: 11 });
    expect(served.days.at(-2)).toMatchObject({ date: "2026-11-26", total: 12 });
  });

  test("usage: exactly 30 zero-filled days per key; two keys of one account are separate", async () => {
    clock.set("2026-11-25T10:00:00Z");
    const a = await s.key("growth", {}, "two-keys@example.com");
    const b = await s.key("growth", {}, "two-keys@example.com");
    await s.get("/v1/spots/x", a);
    await s.get("/v1/spots/x/tides", a);
    await s.get("/v1/spots/x/forecast", b);
    const ua = (await (await s.get("/v1/usage", a)).json()) as UsageBody;
    const ub = (await (await s.get("/v1/usage", b)).json()) as UsageBody;
    expect(ua.days).toHaveLength(30);
    expect(ua.days.at(-1)!.date).toBe("2026-11-25");
    expect(ua.today).toBe(2);
    expect(ua.days.at(-1)!.byEndpoint).toEqual({ "spots.search": 0, "spots.nearby": 0, "spots.get": 1, forecast: 0, tides: 1, now: 0, "spots.best": 0, observations: 0, verification: 0, climate: 0, embed: 0, calendar: 0 });
    expect(ub.today).toBe(1);
    expect(ub.days.at(-1)!.byEndpoint.forecast).toBe(1);
    expect(ua.days.slice(0, 29).every((d) => d.total === 0 && Object.values(d.byEndpoint).every((n) => n === 0))).toBe(true);
  });

  test("every /v1 response under a key carries the headers: 200, 400, 404, 429, 500", async () => {
    clock.set("2026-11-26T08:00:00Z");
    const key = await s.key("scale", { dailyLimit: 1, minuteLimit: 100 });
    const spots = s.app.spots;
    const getSpot = spots.get;
    spots.get = () => {
      throw new Error("injected failure");
    };
    const failed = await s.get("/v1/spots/pipeline", key).finally(() => (spots.get = getSpot));
    expect(failed.status).toBe(500);
    expect(((await failed.json()) as { error: { code: string } }).error.code).toBe("internal");
    expect(failed.headers.get("X-RateLimit-Remaining")).toBe("0");
    for (const res of [failed, ...(await Promise.all(["/v1/usage", "/v1/spots/zzz", "/v1/spots?q=a", "/v1/nope"].map((path) => s.get(path, key))))]) {
      expect(res.headers.get("X-RateLimit-Limit")).toBe("1");
      expect(res.headers.get("X-RateLimit-Reset")).toBe("2026-11-27T00:00:00Z");
      expect(res.headers.get("RateLimit-Policy")).toContain('"daily";q=1;w=86400');
      expect(res.headers.get("RateLimit")).toMatch(/^"burst";r=\d+;t=\d+, "daily";r=\d+;t=\d+$/);
    }
  });
});

describe("persistence", () => {
  test("in-process: counts and the burst window survive closing and reopening the app", async () => {
    const dir = tempDir("persist");
    const clock = new ManualClock(Date.parse("2026-11-21T12:00:00Z"));
    const first = await startTestServer({ dataDir: dir, clock });
    const key = await first.key("starter", { minuteLimit: 5 }, "persist@example.com");
    for (let i = 0; i < 5; i++) await first.get("/v1/spots/x", key);
    await first.close();
    const second = await startTestServer({ dataDir: dir, clock });
    expect((await second.get("/v1/spots/x", key)).status).toBe(429);
    clock.advance(61_000); // usage passes through the burst window too
    const usage = (await (await second.get("/v1/usage", key)).json()) as UsageBody;
    expect(usage.today).toBe(5);
    await second.close();
  });

  test("compiled binary: calls, SIGTERM, start again — usage is the same", async () => {
    const server = await startServer();
    const key = createKey(server.dataDir, "restart@example.com", "pro");
    await untilKeyAccepted(server.url, key);
    const statuses: number[] = [];
    await Promise.all(Array.from({ length: 40 }, (_, i) => apiFetch(`${server.url}/v1/spots/spot-${i}`, { headers: { "X-API-Key": key } }).then((r) => statuses.push(r.status))));
    expect(statuses.every((st) => st === 404)).toBe(true);
    const before = (await (await apiFetch(server.url + "/v1/usage", { headers: { "X-API-Key": key } })).json()) as UsageBody;
    expect(before.today).toBe(40);
    expect(await server.stop("SIGTERM")).toBe(0);

    const again = await startServer({ dataDir: server.dataDir });
    const after = (await (await apiFetch(again.url + "/v1/usage", { headers: { "X-API-Key": key } })).json()) as UsageBody;
    expect(after.today).toBe(40);
    expect(after.days.at(-1)!.byEndpoint["spots.get"]).toBe(40);
    const next = await apiFetch(again.url + "/v1/spots/x", { headers: { "X-API-Key": key } });
    expect(next.headers.get("X-RateLimit-Remaining")).toBe(String(10_000 - 41));
    expect(await again.stop("SIGTERM")).toBe(0);
    expect(cli(again.dataDir, ["accounts", "list"]).stdout).toContain("restart@example.com");
  }, 30_000); // two binary starts and a graceful stop: seconds on a busy machine
});

describe("one set of key rules (CLI and console alike)", () => {
  test("the CLI and the console give the same answer to the same key name", async () => {
    const server = await startServer();
    try {
      const link = JSON.parse(cli(server.dataDir, ["accounts", "invite", "rules@example.com", "--plan", "pro", "--json"]).stdout).url as string;
      const owner = new ConsoleClient(server.url);
      const path = new URL(link).pathname;
      await owner.get(path);
      await owner.post(path, { password: "a long enough password", confirm: "a long enough password" });
      const viaCli = (name: string) => cli(server.dataDir, ["keys", "create", "rules@example.com", "--name", name]);
      const viaConsole = async (name: string) => {
        await owner.get("/console/keys");
        const r = await owner.post("/console/keys", { name });
        return { status: r.status, text: text(r.body) };
      };
      for (const [name, refusal] of [
        ["x".repeat(65), "A key name has 1 to 64 characters."],
        ["   ", "A key name has 1 to 64 characters."],
      ] as const) {
        const c = viaCli(name);
        expect([c.code, c.stderr.trim()]).toEqual([2, `surfcast: ${refusal}`]);
        const w = await viaConsole(name);
        expect(w.status).toBe(400);
        expect(w.text).toContain(refusal);
      }
      expect(viaCli("x".repeat(64)).code).toBe(0);
      expect((await viaConsole("shop")).status).toBe(201);
      const duplicate = 'An active key named "shop" exists already. Choose another name.';
      expect(viaCli("shop").stderr.trim()).toBe(`surfcast: ${duplicate}`);
      expect((await viaConsole("shop")).text).toContain(duplicate);
      expect(viaCli(" laptop ").code).toBe(0);
      // A limit rule's refusal names the field as each adapter's people know it: a flag, a form label.
      const limit = cli(server.dataDir, ["accounts", "set-plan", "rules@example.com", "--plan", "pro", "--daily-limit", "0"]);
      expect([limit.code, limit.stderr.trim()]).toEqual([2, "surfcast: --daily-limit must be an integer from 1 to 100000000"]);
      const db = openDatabase(tempDir("rules"));
      let refusal: unknown;
      try {
        seedPlans(db);
        const store = sqliteAccessStore(db);
        await createAccount(store, new ManualClock(0), "rules@example.com", "pro");
        await setAccountPlan(store, "rules@example.com", "pro", { dailyLimit: 0 });
      } catch (err) {
        refusal = err;
      } finally {
        closeDatabase(db);
      }
      expect(consoleWording(refusal as RuleError)).toBe("The daily limit must be an integer from 1 to 100000000.");
      expect((await viaConsole("laptop")).text).toContain('An active key named "laptop" exists already.');
    } finally {
      await server.stop();
    }
  }, 60_000);
});
