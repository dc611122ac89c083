/**
 * /embed end to end (in-process server, injected clock, fake Open-Meteo): the page, its CSP and headers, counting
 * as `embed` in /v1/usage once a minute outside the key's quota, ETag/304, 404 for unknown and revoked embeds
 * and for embeds of a revoked key, the screen mode's stamp, the embed service's rules (CLI and console share them),
 * and forecast pictures on the console's keys page (create with the CSRF token, the <iframe> snippet, a mistake
 * shown on the page, ownership, switching off).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock, startTestServer, type TestServer } from "../support/inprocess";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { refreshForecasts } from "../../src/server/refresh";
import { createAccount, createKey, revokeKey, setAccountDisabled } from "../../src/access/accounts";
import { UserError } from "../../src/core/errors";
import { contentSecurityPolicy } from "../../src/embed/http";
import { isEmbedId, newEmbedId, originOf } from "../../src/embed/service";
import { endpointLabel } from "../../src/ops/metrics";
import { writeFileSync } from "node:fs";
import { invitedOwner, text, type ConsoleClient } from "../support/console-client";
import { expectHeadLikeGet } from "../support/head";
import { waitFor } from "../support/wait";

const clock = new ManualClock(Date.parse("2026-11-21T13:25:00Z"));
let fake: FakeOpenMeteo;
let server: TestServer;
let spots: string[];

/** An account on a plan with these limits, one key, and an embed of it; returns what the tests need. */
async function embedFor(limits: { dailyLimit?: number; minuteLimit?: number } = {}, origins: string[] = []) {
  const email = `shop${Math.random().toString(36).slice(2)}@example.com`;
  await createAccount(server.app.stores.access, clock, email, "pro", limits);
  const key = await createKey(server.app.stores.access, clock, email, "shop");
  await server.app.keys.reload();
  const embed = await server.app.embeds.create(key.id, { spots, origins });
  return { email, key, embed, path: `/embed/${embed.id}` };
}

const page = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers });

beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: "2026-11-21" }); // the day of the tests' clock
  server = await startTestServer({ clock, env: { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url } });
  const nearest = (lat: number, lng: number) => server.app.spots.nearby({ lat, lng, radius: 50, limit: 1 })[0]!;
  const chosen = [nearest(39.344, -9.363), server.app.spots.get("pipeline"), nearest(43.48, -1.56)];
  spots = chosen.map((s) => s.id);
  const summary = await refreshForecasts(server.app, { spots: chosen });
  expect(summary.failedBatches).toBe(0);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await fake?.close();
});

describe("an embed's page", () => {
  test("server-rendered HTML of every spot, strict CSP, no cookie, nothing of the key", async () => {
    const { key, path } = await embedFor();
    const res = await page(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe(contentSecurityPolicy([]));
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'self'");
    expect(res.headers.get("set-cookie")).toBeNull();
    const html = await res.text();
    if (process.env.SURFCAST_EMBED_DUMP) writeFileSync(process.env.SURFCAST_EMBED_DUMP, html);
    for (const id of spots) expect(html).toContain(server.app.spots.get(id).name);
    expect(html.match(/<svg class="chart"/g)?.length).toBe(3);
    expect(html).not.toContain(key.key);
    expect(html).not.toContain(key.id);
    expect(html).not.toContain(key.prefix);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)/); // no inline script
    expect(html).not.toContain(" style=");
    expect(html).not.toContain("\\u");
    expect(html).toContain("Open-Meteo.com");
    expect(html).toContain("CC BY 4.0");
    expect(html).toMatch(/Tides: [^<]*tide station/);
    expect(html).toContain("<details");
    expect(html.length).toBeLessThan(150_000);
  });

  test("frame-ancestors lists the embed's origins", async () => {
    const { path } = await embedFor({}, ["https://shop.example", "http://localhost:8080/"]);
    const csp = (await page(path)).headers.get("content-security-policy")!;
    expect(csp).toContain("frame-ancestors https://shop.example http://localhost:8080");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
  });

  test("the first view of a minute is one `embed` in the key's usage, outside its quota; later views that minute are free, 304s too", async () => {
    const { key, path } = await embedFor();
    const first = await page(path);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"/);
    const again = await page(path, { "If-None-Match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    await page(path + "?mode=screen");
    const usage = (await (await server.get("/v1/usage", key.key)).json()) as { today: number; days: { total: number; byEndpoint: Record<string, number> }[] };
    expect(usage.days.at(-1)!.byEndpoint.embed).toBe(1);
    expect(usage.days.at(-1)!.total).toBe(1);
    expect(usage.today).toBe(0); // what the quota counted: embed views are not in it
    clock.advance(60_000);
    expect((await page(path, { "If-None-Match": etag })).status).toBeOneOf([200, 304]);
    const later = (await (await server.get("/v1/usage", key.key)).json()) as { today: number; days: { byEndpoint: Record<string, number> }[] };
    expect(later.days.at(-1)!.byEndpoint.embed).toBe(2);
    expect(later.today).toBe(0);
  });

  test("a key with its quota or burst used up: the picture still shows, and views never refuse the key's calls", async () => {
    const { key, path } = await embedFor({ dailyLimit: 2, minuteLimit: 2 });
    for (let i = 0; i < 10; i++) expect((await page(path)).status).toBe(200);
    const call = await server.get("/v1/spots/pipeline", key.key);
    expect(call.status).toBe(200);
    expect(call.headers.get("x-ratelimit-remaining")).toBe("1");
    expect((await server.get("/v1/spots/pipeline", key.key)).status).toBe(200);
    expect((await server.get("/v1/spots/pipeline", key.key)).status).toBe(429);
    for (let i = 0; i < 5; i++) expect((await page(path)).status).toBe(200);
  });

  test("unknown, revoked, revoked key, disabled account: the same 404 page", async () => {
    const unknown = await page("/embed/AAAAAAAAAAAAAAAAAAAAAA");
    expect(unknown.status).toBe(404);
    const text = await unknown.text();
    expect(text).toContain("Forecast not available");
    expect(unknown.headers.get("content-security-policy")).toContain("frame-ancestors *");
    expect((await page("/embed/not-an-id")).status).toBe(404);
    expect((await page("/embed/")).status).toBe(404);

    const a = await embedFor();
    expect((await page(a.path)).status).toBe(200);
    await server.app.embeds.revoke(a.embed.id);
    const revoked = await page(a.path);
    expect(revoked.status).toBe(404);
    expect(await revoked.text()).toBe(text);
    expect((await page(`${a.path}/stamp`)).status).toBe(404);

    const b = await embedFor();
    expect((await page(b.path)).status).toBe(200);
    await revokeKey(server.app.stores.access, clock, b.key.id);
    await server.app.keys.reload();
    expect((await page(b.path)).status).toBe(404);

    const c = await embedFor();
    expect((await page(c.path)).status).toBe(200);
    await setAccountDisabled(server.app.stores.access, c.email, true);
    await server.app.keys.reload();
    expect((await page(c.path)).status).toBe(404);
  });

  test("another process's revocation shows within a second", async () => {
    const { embed, path } = await embedFor();
    expect((await page(path)).status).toBe(200);
    const { Database } = await import("bun:sqlite");
    const other = new Database(`${server.app.config.dataDir}/surfcast.db`);
    other.run("UPDATE embeds SET revoked_at = ? WHERE id = ?", [Date.now(), embed.id]);
    other.close();
    await waitFor("the revocation to show", async () => (await page(path)).status === 404, 5_000);
  });

  test("screen mode: the script as a file, the stamp endpoint, not counted", async () => {
    clock.advance(60_000); // a minute of its own: the view below is the first of it
    const { key, path } = await embedFor();
    const html = await (await page(path + "?mode=screen")).text();
    expect(html).toMatch(/<script src="\/embed\/assets\/screen\.js\?v=[a-z0-9]+" defer><\/script>/);
    const stamp = html.match(/data-stamp="([^"]+)"/)![1];
    const polled = (await (await page(`${path}/stamp`)).json()) as { stamp: string };
    expect(polled.stamp).toBe(stamp!);
    const js = await page("/embed/assets/screen.js");
    expect(js.headers.get("content-type")).toContain("javascript");
    for (let i = 0; i < 20; i++) await page(`${path}/stamp`);
    const usage = (await (await server.get("/v1/usage", key.key)).json()) as { today: number; days: { byEndpoint: Record<string, number> }[] };
    expect(usage.days.at(-1)!.byEndpoint.embed).toBe(1);
    expect(usage.today).toBe(0);
  });

  test("metrics label embed views by route, never by id", () => {
    expect(endpointLabel("http://x/embed/AAAAAAAAAAAAAAAAAAAAAA?mode=screen")).toBe("/embed/{id}");
    expect(endpointLabel("http://x/embed/AAAAAAAAAAAAAAAAAAAAAA/stamp")).toBe("/embed/{id}/stamp");
    expect(endpointLabel("http://x/embed/assets/embed.css")).toBe("/embed/assets/{file}");
  });

  test("only GET and HEAD", async () => {
    const { path } = await embedFor();
    expect((await fetch(server.url + path, { method: "POST" })).status).toBe(405);
  });

  test("HEAD: the GET's status, type and length, and no body (the page, the 404 page, an asset)", async () => {
    const { path } = await embedFor();
    await expectHeadLikeGet(server.url, path);
    await expectHeadLikeGet(server.url, `/embed/${newEmbedId()}`);
    await expectHeadLikeGet(server.url, "/embed/assets/embed.css");
  });
});

describe("the embed service's rules", () => {
  const key = async () => {
    const email = `rules${Math.random().toString(36).slice(2)}@example.com`;
    await createAccount(server.app.stores.access, clock, email, "pro");
    return (await createKey(server.app.stores.access, clock, email, "k")).id;
  };
  const mistakes: [string, () => Promise<unknown>, RegExp][] = [
    ["no spots", async () => server.app.embeds.create(await key(), { spots: [] }), /1 to 12 spot ids/],
    ["an empty item", async () => server.app.embeds.create(await key(), { spots: ["pipeline", ""] }), /1 to 12 spot ids/],
    ["13 spots", async () => server.app.embeds.create(await key(), { spots: Array.from({ length: 13 }, () => "pipeline") }), /at most 12/],
    ["unknown spot", async () => server.app.embeds.create(await key(), { spots: ["nowhere-at-all"] }), /no spot with id "nowhere-at-all"/],
    ["a spot twice", async () => server.app.embeds.create(await key(), { spots: ["pipeline", "pipeline"] }), /listed twice/],
    ["bad units", async () => server.app.embeds.create(await key(), { spots: ["pipeline"], units: "furlongs" }), /^units must be metric or imperial/],
    ["bad theme", async () => server.app.embeds.create(await key(), { spots: ["pipeline"], theme: "pink" }), /^theme must be light or dark/],
    ["an origin with a path", async () => server.app.embeds.create(await key(), { spots: ["pipeline"], origins: ["https://shop.example/forecast"] }), /not an origin/],
    ["unknown key", () => server.app.embeds.create("key_0000000000000000", { spots: ["pipeline"] }), /no key with id/],
    ["unknown embed", () => server.app.embeds.revoke("AAAAAAAAAAAAAAAAAAAAAA"), /no embed with id/],
  ];
  for (const [name, run, message] of mistakes) test(name, () => expect(run()).rejects.toThrow(message));
  test("mistakes are UserErrors (one line, exit 2 in the CLI)", () => expect(mistakes[0]![1]()).rejects.toThrow(UserError));
  test("ids: 22 base64url characters, never a leading '-' (it would read as a CLI option)", () => {
    const ids = Array.from({ length: 2000 }, newEmbedId);
    expect(ids.every(isEmbedId)).toBe(true);
    expect(ids.some((id) => id.startsWith("-"))).toBe(false);
    expect(new Set(ids).size).toBe(ids.length);
  });
  test("origins are normalized", () => {
    expect(originOf("https://Shop.Example:443/")).toBe("https://shop.example");
    expect(originOf("http://localhost:8080")).toBe("http://localhost:8080");
    expect(() => originOf("ftp://x")).toThrow(UserError);
    expect(() => originOf("https://shop.example?x=1")).toThrow(UserError);
  });
  test("a revoked embed cannot be revoked again; the console revokes only its own", async () => {
    const a = await embedFor();
    const b = await embedFor();
    expect(await server.app.embeds.revokeForAccount(b.key.account === a.key.account ? -1 : 999999, a.embed.id)).toBeNull();
    await server.app.embeds.revoke(a.embed.id);
    await expect(server.app.embeds.revoke(a.embed.id)).rejects.toThrow(/already revoked/);
  });
});

const PASSWORD = "a long enough password";

/** A signed-in owner with one key, "website". */
async function owner(email: string): Promise<ConsoleClient> {
  const client = await invitedOwner(server.app, server.url, email, PASSWORD, "pro");
  await client.get("/console/keys");
  expect((await client.post("/console/keys", { name: "website" })).status).toBe(201);
  return client;
}

const keyIdIn = (body: string) => /<option value="(key_[0-9a-f]+)"/.exec(body)![1]!;

test("the console: create, copy the snippet, switch off", async () => {
  const shop = await owner("shop-console@example.com");
  const keys = await shop.get("/console/keys");
  expect(text(keys.body)).toContain("Forecast pictures for your site and shop TV");
  const keyId = keyIdIn(keys.body);

  const wrong = await shop.post("/console/embeds", { key: keyId, spots: "pipeline, atlantis-reef", origins: "", units: "metric", theme: "light" });
  expect(wrong.status).toBe(400);
  expect(text(wrong.body)).toContain('no spot with id "atlantis-reef"');
  expect(wrong.body).toContain('value="pipeline, atlantis-reef"'); // what was typed is kept

  const made = await shop.post("/console/embeds", { key: keyId, spots: "pipeline, supertubos", origins: "https://shop.example\nhttp://localhost:8080", units: "imperial", theme: "dark", lang: "es" });
  expect(made.status).toBe(303);
  expect(made.location).toBe("/console/keys?notice=embed-created#embeds");
  const listed = await shop.get("/console/keys?notice=embed-created");
  const url = new RegExp(`${server.app.config.publicUrl}/embed/([A-Za-z0-9_-]{22})`).exec(listed.body)!;
  expect(url).not.toBeNull();
  const id = url[1]!;
  expect(text(listed.body)).toContain(`<iframe src="${url[0]}" title="Surf forecast"`);
  expect(text(listed.body)).toContain("https://shop.example, http://localhost:8080");
  expect(text(listed.body)).toContain("Pipeline, Supertubos");
  expect(text(listed.body)).toContain("Español");
  const embed = (await server.app.embeds.servable(id))!.embed;
  expect(embed).toMatchObject({ spots: ["pipeline", "supertubos"], units: "imperial", theme: "dark", lang: "es", origins: ["https://shop.example", "http://localhost:8080"] });
  expect((await fetch(`${server.url}/embed/${id}`)).status).toBe(200);

  // Another account sees nothing of it and cannot switch it off; a POST without the token is refused.
  const other = await owner("other-console@example.com");
  expect((await other.get(`/console/embeds/${id}/revoke`)).status).toBe(404);
  expect((await other.post(`/console/embeds/${id}/revoke`, {})).status).toBe(404);
  expect((await other.post("/console/embeds", { key: keyId, spots: "pipeline" })).status).toBe(400);
  expect((await shop.post(`/console/embeds/${id}/revoke`, {}, { csrf: null })).status).toBe(403);
  expect((await fetch(`${server.url}/embed/${id}`)).status).toBe(200);

  const confirm = await shop.get(`/console/embeds/${id}/revoke`);
  expect(confirm.status).toBe(200);
  expect(text(confirm.body)).toContain("Switch off the forecast picture of Pipeline, Supertubos ?");
  const off = await shop.post(`/console/embeds/${id}/revoke`, {});
  expect(off.status).toBe(303);
  expect((await fetch(`${server.url}/embed/${id}`)).status).toBe(404);
  expect((await shop.get(`/console/embeds/${id}/revoke`)).status).toBe(404);
}, 30_000);
