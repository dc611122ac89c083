/**
 * Embeds, security (docs/embeds.md "Rules", "Counting", "Limits"), first through the compiled binary:
 * - origins: only `http(s)://host[:port]` is accepted, by the CLI and the console alike (one line, exit 2 / a 400
 *   page), stored and served in canonical form; the `frame-ancestors` of an answer holds nothing else, even for a
 *   row stored before the rule (a `;` once let `report-uri` into the policy);
 * - views never spend the key: a 30-a-day, 10-a-minute key whose embed was viewed 120 times (the old rule
 *   emptied it after 30, and its burst after 10) answers its own calls, with X-RateLimit-Remaining and the burst
 *   counting only them; views are `embed` in its usage once a minute;
 * - the stamp is not counted;
 * - per-account caps: active embeds per plan, 100 made in all (switched-off ones included), a revoked key's embeds
 *   switched off with it; in the console too.
 * Then in process, with a clock: an embed's own allowance of view-minutes spent (the 429 page, the same whatever
 * its key's state), the stamp kept between writes, and the key registry loading only keys that are not revoked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { cli, cliAsync, startServer, type RunningServer } from "../support/binary";
import { tempDir } from "../support/env";
import { inBatches } from "../support/raw-http";
import { ConsoleClient, text } from "../support/console-client";
import { ManualClock, startTestServer, type TestServer } from "../support/inprocess";
import { createAccount, createKey, revokeKey } from "../../src/access/accounts";
import { originOf } from "../../src/embed/origin";
import { waitFor } from "../support/wait";

const PASSWORD = "a long enough password";

/** The sources of an answer's frame-ancestors directive. */
const ancestors = (csp: string | null) => /frame-ancestors ([^;]*)$/.exec(csp ?? "")![1]!.split(" ");
/** What a frame-ancestors source may look like once canonical: nothing a policy could read as more. */
const CANONICAL = /^https?:\/\/[a-z0-9.-]+(:[1-9][0-9]{0,4})?$/;

describe("through the compiled binary", () => {
  const dataDir = tempDir("embed-security");
  let server: RunningServer;
  const run = (...args: string[]) => cli(dataDir, args, { SURFCAST_PUBLIC_URL: server.url });
  const keyOf = (email: string, plan: string, extra: string[] = []) => {
    expect(run("accounts", "create", email, "--plan", plan, ...extra).code).toBe(0);
    return (JSON.parse(run("keys", "create", email, "--name", "website", "--json").stdout) as { id: string; key: string });
  };
  const embed = (keyId: string, ...args: string[]) => run("embeds", "create", keyId, "--spots", "pipeline", "--json", ...args);
  const listed = (email: string) => JSON.parse(run("embeds", "list", email, "--json").stdout) as { id: string; origins: string[]; revokedAt: string | null }[];
  /** A key's embed rows, read from the database itself: cheaper than a `list` (a binary start) around each refusal. */
  const storedFor = (keyId: string) => {
    const db = new Database(`${dataDir}/surfcast.db`);
    try {
      return db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM embeds WHERE key_id = ?").get(keyId)!.n;
    } finally {
      db.close();
    }
  };
  /** Another process's write shows in the server within a second or so (db/changes.ts): until the embed answers `status`. */
  const untilServed = (id: string, status = 200) => waitFor(`GET /embed/${id} to answer ${status}`, async () => {
    const page = await fetch(`${server.url}/embed/${id}`);
    return page.status === status && page;
  });

  beforeAll(async () => {
    server = await startServer({ dataDir, args: ["--no-scheduler"] });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  describe("origins", () => {
    let keyId: string;
    beforeAll(() => {
      keyId = keyOf("origins@example.com", "pro").id;
    });

    const refused: [string, string[], RegExp][] = [
      ["a wildcard host", ["https://*"], /wildcards are not accepted/],
      ["a wildcard label", ["https://*.shop.example"], /wildcards are not accepted/],
      ["a semicolon (a second directive)", ["https://a;sandbox"], /letters, digits, hyphens and dots/],
      ["report-uri smuggled in, beside a good origin", ["http://a;report-uri", "http://host"], /"http:\/\/a;report-uri" is not an origin/],
      ["a comma", ["https://a,b"], /letters, digits, hyphens and dots/],
      ["quotes", ["https://a'x'"], /letters, digits, hyphens and dots/],
      ["a space", ["https://a b"], /letters, digits, hyphens and dots/],
      ["a path", ["https://shop.example/forecast"], /no path, query or fragment/],
      ["a query", ["https://shop.example?x=1"], /no path, query or fragment/],
      ["a fragment", ["https://shop.example#top"], /no path, query or fragment/],
      ["a user", ["https://user:pw@shop.example"], /no user name or password/],
      ["another scheme", ["ftp://shop.example"], /only http:\/\/ and https:\/\//],
      ["no scheme", ["shop.example"], /give the scheme and host/],
      ["an IPv6 literal", ["https://[::1]:8080"], /IPv6 addresses cannot be allowed/],
      ["a numeric last label", ["http://1.2.3"], /cannot end in a number/],
      ["a hex last label", ["http://a.0x1f"], /cannot end in a number/],
      ["an octet over 255", ["http://256.1.1.1"], /cannot end in a number/],
      ["port 0", ["https://shop.example:0"], /a port is a number from 1 to 65535/],
      ["port 65536", ["https://shop.example:65536"], /a port is a number from 1 to 65535/],
      ["a trailing dot", ["https://shop.example."], /labels of 1 to 63/],
      ["a label ending in a hyphen", ["https://shop-.example"], /labels of 1 to 63/],
      ["Unicode (give the xn-- form)", ["https://café.example"], /letters, digits, hyphens and dots/],
      ["a newline", ["https://a\nb"], /"https:\/\/a\\u000ab" is not an origin/],
      ["eleven origins", Array.from({ length: 11 }, (_, i) => `https://s${i}.example`), /at most 10 origins per embed, got 11/],
    ];
    for (const [name, origins, message] of refused) {
      test(`CLI refuses ${name}: one line, exit 2, nothing stored`, () => {
        const before = storedFor(keyId);
        const r = embed(keyId, ...origins.flatMap((o) => ["--origin", o]));
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(message);
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(storedFor(keyId)).toBe(before);
      });
    }

    test("canonical origins are stored and are all frame-ancestors holds", async () => {
      const r = embed(keyId, "--origin", "HTTPS://Shop.Example:443/", "--origin", "http://LOCALHOST:8080", "--origin", " http://192.0.2.10:80 ", "--origin", "https://xn--caf-dma.example:8443", "--origin", "https://shop.example");
      expect(r.code).toBe(0);
      const made = JSON.parse(r.stdout) as { id: string; origins: string[] };
      expect(made.origins).toEqual(["https://shop.example", "http://localhost:8080", "http://192.0.2.10", "https://xn--caf-dma.example:8443"]);
      const page = await untilServed(made.id);
      const sources = ancestors(page.headers.get("content-security-policy"));
      expect(sources).toEqual(made.origins);
      expect(sources.every((s) => CANONICAL.test(s))).toBe(true);
    });

    test("a row stored before the rule: its bad origins are never served", async () => {
      const made = JSON.parse(embed(keyId, "--origin", "https://ok.example").stdout) as { id: string };
      const db = new Database(`${dataDir}/surfcast.db`);
      db.run("UPDATE embeds SET origins = ? WHERE id = ?", [JSON.stringify(["http://a;report-uri https://evil.example/r", "https://ok.example", "https://*", "https://a,b"]), made.id]);
      db.close();
      const page = await untilServed(made.id);
      const csp = page.headers.get("content-security-policy")!;
      expect(ancestors(csp)).toEqual(["https://ok.example"]);
      expect(csp).not.toContain("report-uri");
      expect(csp.split(";")).toHaveLength(8);
    });

    test("the console refuses the same origins (a 400 page naming the mistake) and stores canonical ones", async () => {
      const invited = JSON.parse((await cliAsync(dataDir, ["accounts", "invite", "console-origins@example.com", "--plan", "pro", "--json"], { SURFCAST_PUBLIC_URL: server.url })).stdout) as { url: string };
      const owner = new ConsoleClient(server.url);
      expect((await owner.get(invited.url)).status).toBe(200);
      expect((await owner.post(invited.url, { password: PASSWORD, confirm: PASSWORD })).status).toBe(303);
      await owner.get("/console/keys");
      expect((await owner.post("/console/keys", { name: "website" })).status).toBe(201);
      const keyId = /<option value="(key_[0-9a-f]+)"/.exec((await owner.get("/console/keys")).body)![1]!;
      const form = (origins: string) => ({ key: keyId, spots: "pipeline", origins, units: "metric", theme: "light" });
      for (const [origins, message] of [
        ["http://a;report-uri\nhttp://host", '"http://a;report-uri" is not an origin'],
        ["https://*", "wildcards are not accepted"],
        ["https://a,b", "is not an origin"],
        ["https://a'x'", "is not an origin"],
        ["https://shop.example/forecast", "no path, query or fragment"],
      ] as const) {
        const res = await owner.post("/console/embeds", form(origins));
        expect([origins, res.status]).toEqual([origins, 400]);
        expect(text(res.body).replace(/&quot;|&#34;/g, '"')).toContain(message);
      }
      expect(listed("console-origins@example.com")).toHaveLength(0);
      expect((await owner.post("/console/embeds", form("HTTPS://WWW.Shop.Example:443\nhttp://localhost:8080/"))).status).toBe(303);
      const [made] = listed("console-origins@example.com");
      expect(made!.origins).toEqual(["https://www.shop.example", "http://localhost:8080"]);
      const page = await fetch(`${server.url}/embed/${made!.id}`);
      expect(ancestors(page.headers.get("content-security-policy"))).toEqual(made!.origins);
    });
  });

  test("views never spend the key: after 120 anonymous views of a 30-a-day, 10-a-minute key's embed, its own calls meet only their own limits", async () => {
    const key = keyOf("quota@example.com", "starter", ["--daily-limit", "30", "--minute-limit", "10"]);
    const made = JSON.parse(embed(key.id).stdout) as { id: string };
    await untilServed(made.id);
    const url = `${server.url}/embed/${made.id}`;
    const views = await inBatches(Array.from({ length: 120 }, (_, i) => () => fetch(i % 2 ? url : `${url}?mode=screen`).then((r) => r.status)), 12);
    expect(new Set(views)).toEqual(new Set([200]));
    for (const r of await Promise.all(Array.from({ length: 20 }, () => fetch(`${server.url}/embed/${made.id}/stamp`)))) expect(r.status).toBe(200);

    const first = await fetch(`${server.url}/v1/spots/pipeline`, { headers: { "X-API-Key": key.key } });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-remaining")).toBe("29");
    expect(first.headers.get("ratelimit")).toMatch(/"burst";r=9;.*"daily";r=29;/);
    const usage = (await (await fetch(`${server.url}/v1/usage`, { headers: { "X-API-Key": key.key } })).json()) as { limit: number; today: number; days: { total: number; byEndpoint: Record<string, number> }[] };
    const today = usage.days.at(-1)!;
    expect(usage.today).toBe(1); // what the quota counted: the call above
    expect(today.byEndpoint["spots.get"]).toBe(1);
    expect(today.byEndpoint.embed).toBeOneOf([1, 2]); // once per minute the views were made in
    expect(today.total).toBe(1 + today.byEndpoint.embed!);

    // The key's own calls: its burst (10 a minute: the call and /v1/usage above, 8 more) is its own.
    const calls: number[] = [];
    for (let i = 0; i < 8; i++) calls.push((await fetch(`${server.url}/v1/spots/pipeline`, { headers: { "X-API-Key": key.key } })).status);
    expect(calls).toEqual(Array(8).fill(200));
    expect((await fetch(`${server.url}/v1/spots/pipeline`, { headers: { "X-API-Key": key.key } })).status).toBe(429);
    // And the picture does not depend on the key's state either.
    expect((await fetch(url)).status).toBe(200);
  }, 60_000);

  describe("per-account limits", () => {
    test("starter: 5 embeds active at once; a switched-off one frees its place", () => {
      const key = keyOf("cap@example.com", "starter");
      const ids = Array.from({ length: 5 }, () => {
        const r = embed(key.id);
        expect(r.code).toBe(0);
        return (JSON.parse(r.stdout) as { id: string }).id;
      });
      const sixth = embed(key.id);
      expect(sixth.code).toBe(2);
      expect(sixth.stderr).toMatch(/account cap@example\.com already has 5 active embeds, the most its plan \(starter\) allows/);
      expect(sixth.stderr.trim().split("\n")).toHaveLength(1);
      expect(run("embeds", "revoke", ids[0]!).code).toBe(0);
      expect(embed(key.id).code).toBe(0);
    });

    test("revoking a key switches its embeds off: they leave the cap (another key of the account may make 5)", async () => {
      expect(run("accounts", "create", "rotate@example.com", "--plan", "starter").code).toBe(0);
      const newKey = () => (JSON.parse(run("keys", "create", "rotate@example.com", "--name", `k${Math.random()}`, "--json").stdout) as { id: string }).id;
      const first = newKey();
      const made = Array.from({ length: 5 }, () => (JSON.parse(embed(first).stdout) as { id: string }).id);
      await untilServed(made[0]!);
      expect(run("keys", "revoke", first).code).toBe(0);
      expect(listed("rotate@example.com").every((e) => e.revokedAt !== null)).toBe(true);
      const second = newKey();
      for (let i = 0; i < 5; i++) expect(embed(second).code).toBe(0);
      expect(embed(second).code).toBe(2);
      await untilServed(made[0]!, 404);
    });

    test("100 embeds made in all, switched-off ones included: the 101st is refused, by the CLI and the console", async () => {
      const invited = JSON.parse((await cliAsync(dataDir, ["accounts", "invite", "made@example.com", "--plan", "pro", "--json"], { SURFCAST_PUBLIC_URL: server.url })).stdout) as { url: string };
      const owner = new ConsoleClient(server.url);
      await owner.get(invited.url);
      await owner.post(invited.url, { password: PASSWORD, confirm: PASSWORD });
      await owner.get("/console/keys");
      expect((await owner.post("/console/keys", { name: "website" })).status).toBe(201);
      const keyId = /<option value="(key_[0-9a-f]+)"/.exec((await owner.get("/console/keys")).body)![1]!;
      // 98 made and switched off long ago, written straight into the database.
      const db = new Database(`${dataDir}/surfcast.db`);
      const insert = db.prepare("INSERT INTO embeds (id, key_id, spots, origins, units, theme, created_at, revoked_at) VALUES (?, ?, '[\"pipeline\"]', '[]', 'metric', 'light', ?, ?)");
      for (let i = 0; i < 98; i++) insert.run(`old${String(i).padStart(19, "0")}`, keyId, Date.now() - 1e9, Date.now() - 1e8);
      db.close();
      expect(embed(keyId).code).toBe(0); // the 99th
      expect((await owner.post("/console/embeds", { key: keyId, spots: "pipeline", origins: "", units: "metric", theme: "light" })).status).toBe(303); // the 100th
      const cliRefused = embed(keyId);
      expect(cliRefused.code).toBe(2);
      expect(cliRefused.stderr).toMatch(/account made@example\.com has made 100 embeds \(revoked ones count too\), the most one account may make/);
      const consoleRefused = await owner.post("/console/embeds", { key: keyId, spots: "pipeline", origins: "", units: "metric", theme: "light" });
      expect(consoleRefused.status).toBe(400);
      expect(text(consoleRefused.body)).toContain("Your account has made 100 forecast pictures (switched-off ones count too)");
      expect(listed("made@example.com")).toHaveLength(100);
    }, 30_000);

    test("the console refuses past the plan's active cap with the owner's words", async () => {
      const invited = JSON.parse((await cliAsync(dataDir, ["accounts", "invite", "console-cap@example.com", "--plan", "starter", "--json"], { SURFCAST_PUBLIC_URL: server.url })).stdout) as { url: string };
      const owner = new ConsoleClient(server.url);
      await owner.get(invited.url);
      await owner.post(invited.url, { password: PASSWORD, confirm: PASSWORD });
      await owner.get("/console/keys");
      expect((await owner.post("/console/keys", { name: "website" })).status).toBe(201);
      const keys = await owner.get("/console/keys");
      expect(text(keys.body)).toContain("Your plan allows 5 at once.");
      expect(text(keys.body)).toContain("up to 720 different minutes a day");
      const keyId = /<option value="(key_[0-9a-f]+)"/.exec(keys.body)![1]!;
      const form = { key: keyId, spots: "pipeline", origins: "", units: "metric", theme: "light" };
      for (let i = 0; i < 5; i++) expect((await owner.post("/console/embeds", form)).status).toBe(303);
      const refused = await owner.post("/console/embeds", form);
      expect(refused.status).toBe(400);
      expect(text(refused.body)).toContain("Your plan (starter) allows 5 forecast pictures at once and you have 5. Switch one off to create another.");
    });
  });
});

describe("in process, with a clock", () => {
  // 00:00:30 UTC: a whole day of minutes ahead.
  const clock = new ManualClock(Date.parse("2026-11-21T00:00:30Z"));
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function embedOf(plan: string, limits: { dailyLimit?: number; minuteLimit?: number } = {}) {
    const email = `clock${Math.random().toString(36).slice(2)}@example.com`;
    await createAccount(server.app.stores.access, clock, email, plan, limits);
    const key = await createKey(server.app.stores.access, clock, email, "website");
    await server.app.keys.reload();
    const made = await server.app.embeds.create(key.id, { spots: ["pipeline"], origins: ["https://shop.example"] });
    return { key, id: made.id, path: `/embed/${made.id}` };
  }
  const view = (path: string) => fetch(server.url + path);

  test("an embed's own allowance: 720 view-minutes a day on starter, then the same 429 page whatever its key's state; back at midnight", async () => {
    const fresh = await embedOf("starter");
    const spentKey = await embedOf("starter", { dailyLimit: 1 });
    expect((await server.get("/v1/spots/pipeline", spentKey.key.key)).status).toBe(200);
    expect((await server.get("/v1/spots/pipeline", spentKey.key.key)).status).toBe(429);
    for (let minute = 0; minute < 720; minute++) {
      // Three views a minute: the first is counted, the others are free.
      for (const e of [fresh, spentKey]) for (let i = 0; i < 3; i++) expect((await view(e.path)).status).toBe(200);
      clock.advance(60_000);
    }
    const a = await view(fresh.path);
    const b = await view(spentKey.path);
    expect([a.status, b.status]).toEqual([429, 429]);
    const shape = (r: Response) => [...r.headers].filter(([name]) => name !== "date").sort();
    expect(shape(a)).toEqual(shape(b));
    const body = await a.text();
    expect(body).toBe(await b.text());
    const retryAfter = (Date.parse("2026-11-22T00:00:00Z") - clock.now()) / 1000;
    expect(a.headers.get("retry-after")).toBe(String(retryAfter));
    expect(body).toContain("Forecast back at 00:00 UTC");
    expect(body).toContain(`<meta http-equiv="refresh" content="${retryAfter + 30}">`); // a shop TV comes back by itself
    expect(body).not.toMatch(/\d+ (requests|calls|views)|remaining|quota/i);
    expect([...a.headers.keys()].some((h) => /ratelimit/i.test(h))).toBe(false);
    expect(ancestors(a.headers.get("content-security-policy"))).toEqual(["https://shop.example"]);

    // 720 view-minutes in the key's usage; its quota, burst and headers untouched.
    const usage = (await (await server.get("/v1/usage", fresh.key.key)).json()) as { today: number; days: { total: number; byEndpoint: Record<string, number> }[] };
    expect(usage.days.at(-1)!.byEndpoint.embed).toBe(720);
    expect(usage.today).toBe(0);
    const call = await server.get("/v1/spots/pipeline", fresh.key.key);
    expect(call.status).toBe(200);
    expect(call.headers.get("x-ratelimit-remaining")).toBe("499");

    clock.set(Date.parse("2026-11-22T00:00:05Z"));
    expect((await view(fresh.path)).status).toBe(200);
    expect((await view(spentKey.path)).status).toBe(200);
  }, 60_000);

  test("growth and up: every minute of the day", async () => {
    const e = await embedOf("growth");
    clock.set(Date.parse("2026-11-23T00:00:30Z"));
    for (let minute = 0; minute < 1440; minute++) {
      expect((await view(e.path)).status).toBe(200);
      clock.advance(60_000);
    }
    const usage = (await (await server.get("/v1/usage", e.key.key)).json()) as { today: number; days: { byEndpoint: Record<string, number> }[] };
    expect(usage.days.at(-2)!.byEndpoint.embed).toBe(1440);
  }, 60_000);

  test("the stamp is kept per embed until a forecast or tide row is written or the hour turns", async () => {
    const e = await embedOf("pro");
    const forecasts = server.app.forecasts;
    const original = forecasts.versionOf.bind(forecasts);
    let reads = 0;
    forecasts.versionOf = (id: string) => {
      reads++;
      return original(id);
    };
    try {
      const stamps = new Set<string>();
      for (let i = 0; i < 200; i++) stamps.add(((await (await view(`${e.path}/stamp`)).json()) as { stamp: string }).stamp);
      expect(stamps.size).toBe(1);
      expect(reads).toBe(1);
      server.app.forecasts.invalidate(); // what a refresh does after writing documents
      await view(`${e.path}/stamp`);
      expect(reads).toBe(2);
      clock.advance(3_600_000);
      const next = ((await (await view(`${e.path}/stamp`)).json()) as { stamp: string }).stamp;
      expect(reads).toBe(3);
      expect(stamps.has(next)).toBe(false);
    } finally {
      forecasts.versionOf = original;
    }
  });

  test("the key registry loads only keys that are not revoked, however many were made and revoked", async () => {
    const email = `churn${Math.random().toString(36).slice(2)}@example.com`;
    await createAccount(server.app.stores.access, clock, email, "starter");
    const before = server.app.keys.loaded;
    for (let i = 0; i < 60; i++) await revokeKey(server.app.stores.access, clock, (await createKey(server.app.stores.access, clock, email, `k${i}`)).id);
    const kept = await createKey(server.app.stores.access, clock, email, "kept");
    await server.app.keys.reload();
    expect(server.app.keys.loaded).toBe(before + 1);
    expect(server.app.keys.authenticate(kept.key)).toMatchObject({ keyId: kept.id });
  });

  test("originOf: canonical forms", () => {
    expect(originOf("https://Shop.Example:443/")).toBe("https://shop.example");
    expect(originOf("http://shop.example:443")).toBe("http://shop.example:443");
    expect(originOf("https://shop.example:80")).toBe("https://shop.example:80");
    expect(originOf("http://127.0.0.1:8080")).toBe("http://127.0.0.1:8080");
    expect(originOf("http://intranet")).toBe("http://intranet");
    expect(originOf("https://123.example")).toBe("https://123.example");
    expect(() => originOf("https://shop.example:08080")).toThrow(/a port is a number/);
    expect(() => originOf(`https://${"a".repeat(64)}.example`)).toThrow(/labels of 1 to 63/);
  });
});
