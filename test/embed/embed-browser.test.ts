/**
 * Embeds in a real browser (headless Chromium): a 3-spot embed at 390, 1280 and 1920 px and the screen mode at
 * 1920x1080 and 1080x1920 with axe-core (no serious or critical violation), no CSP violation or script error, no
 * sideways scrolling of the page at 390 px, no text drawn under 11 px; framing from an allowed origin (a second local port) and refused from
 * another; the page with JavaScript off; the screen mode's rotation. SURFCAST_SCREENSHOTS=1 saves every view under
 * .test-tmp/embed-screenshots/.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ManualClock, startTestServer, type TestServer } from "../support/inprocess";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { startFakeNdbc, type FakeNdbc } from "../support/fake-ndbc";
import { launchBrowser, seriousViolations, smallText } from "../support/browser";
import { ROOT } from "../support/env";
import { refreshForecasts } from "../../src/server/refresh";
import { createAccount, createKey } from "../../src/access/accounts";
import { invitedOwner } from "../support/console-client";

declare const document: { documentElement: { scrollWidth: number }; querySelectorAll(s: string): { length: number } };

const clock = new ManualClock(Date.now());
let browser: Browser;
let fake: FakeOpenMeteo;
let ndbc: FakeNdbc;
let server: TestServer;
let allowed: ReturnType<typeof Bun.serve>;
let other: ReturnType<typeof Bun.serve>;
let embedUrl: string;
let spotIds: string[];
const problems: string[] = [];
const shots = process.env.SURFCAST_SCREENSHOTS === "1" ? join(ROOT, ".test-tmp/embed-screenshots") : null;
if (shots) mkdirSync(shots, { recursive: true });

/** A shop's page on its own origin with the embed in an iframe. */
const parent = () =>
  Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(`<!doctype html><title>Shop</title><h1>Our forecast</h1><iframe title="Surf forecast" src="${embedUrl}" width="1000" height="800"></iframe>`, { headers: { "Content-Type": "text/html" } }) });

beforeAll(async () => {
  [browser, fake] = await Promise.all([launchBrowser(), startFakeOpenMeteo()]);
  // A wave buoy off Pipeline: its section shows the buoy now line, the others none.
  ndbc = await startFakeNdbc({ stations: [{ id: "51201", name: "Waimea Bay, HI (106)", lat: 21.671, lng: -158.118 }], now: () => clock.now() });
  server = await startTestServer({ clock, env: { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_NDBC_URL: ndbc.url } });
  const nearest = (lat: number, lng: number) => server.app.spots.nearby({ lat, lng, radius: 50, limit: 1 })[0]!;
  const spots = [nearest(39.344, -9.363), server.app.spots.get("pipeline"), nearest(43.48, -1.56)];
  expect((await refreshForecasts(server.app, { spots })).failedBatches).toBe(0);
  allowed = parent();
  other = parent();
  await createAccount(server.app.stores.access, clock, "shop@example.com", "pro");
  const key = await createKey(server.app.stores.access, clock, "shop@example.com", "shop");
  await server.app.keys.reload();
  spotIds = spots.map((s) => s.id);
  const embed = await server.app.embeds.create(key.id, { spots: spotIds, origins: [`http://127.0.0.1:${allowed.port}`] });
  embedUrl = `${server.url}/embed/${embed.id}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await allowed?.stop(true);
  await other?.stop(true);
  await server?.close();
  await fake?.close();
  await ndbc?.close();
});

async function open(url: string, width: number, height: number, javaScript = true): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height }, javaScriptEnabled: javaScript });
  const page = await context.newPage();
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  await page.goto(url);
  return page;
}

test("the page at 390, 1280 and 1920 px and in print: accessible, no sideways scrolling", async () => {
  const page = await open(embedUrl, 1280, 900);
  expect(await page.locator("section.spot").count()).toBe(3);
  expect(await page.locator(".buoy").count()).toBe(1);
  // The period is left out when the newest wave row has DPD MM (the fake NDBC writes MM at minute 40, 12 s at 50).
  expect(await page.locator(`#${await page.locator("section.spot").nth(1).getAttribute("id")} .buoy`).textContent()).toMatch(/^Buoy now: \d+\.\d m( at \d+ s)? from [NESW]+, \d+ min ago \(Waimea Bay, HI \(106\), \d+ km\)$/);
  expect(await page.locator(".credits").textContent()).toContain("National Data Buoy Center");
  expect(await seriousViolations(page)).toEqual([]);
  for (const width of [390, 1280, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    if (shots) await page.screenshot({ path: join(shots, `embed-${width}.png`), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    expect([width, await smallText(page)]).toEqual([width, []]);
  }
  await page.emulateMedia({ media: "print" });
  await page.setViewportSize({ width: 794, height: 1123 }); // A4 at 96 dpi
  if (shots) await page.screenshot({ path: join(shots, "embed-print.png"), fullPage: true });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(794);
  await page.emulateMedia({ media: "screen" });
  await page.locator("details.data summary").first().click();
  expect(await page.locator("details.data table").first().isVisible()).toBe(true);
  expect(await seriousViolations(page)).toEqual([]);
  await page.context().close();
  expect(problems).toEqual([]);
});

test("screen mode at 1920x1080 and 1080x1920: one spot at a time, rotating", async () => {
  for (const [width, height] of [
    [1920, 1080],
    [1080, 1920],
  ] as const) {
    const page = await open(`${embedUrl}?mode=screen`, width, height);
    await page.waitForSelector("section.spot.current");
    expect(await page.locator("section.spot:visible").count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    expect([width, height, await smallText(page)]).toEqual([width, height, []]);
    if (shots) await page.screenshot({ path: join(shots, `screen-${width}x${height}.png`) });
    await page.clock.install();
    await page.clock.runFor(20_500);
    await page.context().close();
  }
  const page = await open(`${embedUrl}?mode=screen`, 1920, 1080);
  await page.clock.install();
  await page.reload();
  const first = await page.locator("section.spot.current h2").textContent();
  await page.clock.runFor(20_500);
  expect(await page.locator("section.spot.current h2").textContent()).not.toBe(first);
  await page.context().close();
  expect(problems).toEqual([]);
});

test("framed from an allowed origin, refused elsewhere", async () => {
  const shop = await open(`http://127.0.0.1:${allowed.port}/`, 1280, 900);
  const inside = shop.frames().find((f) => f.url() === embedUrl)!;
  expect(inside).toBeDefined();
  await inside.waitForSelector("section.spot");
  expect(await inside.locator("section.spot").count()).toBe(3);
  if (shots) await shop.screenshot({ path: join(shots, "framed-allowed.png") });
  await shop.context().close();

  const elsewhere = await open(`http://127.0.0.1:${other.port}/`, 1280, 900);
  await elsewhere.waitForTimeout(300);
  const frame = elsewhere.frames()[1]!;
  expect(await frame.evaluate(() => document.querySelectorAll("section.spot").length).catch(() => 0)).toBe(0);
  await elsewhere.context().close();
  problems.length = 0; // the refused frame logs its CSP refusal; that is the point
});

test("renders with JavaScript off, the screen mode too (first spot only)", async () => {
  const page = await open(embedUrl, 1280, 900, false);
  expect(await page.locator("section.spot svg.chart").count()).toBe(3);
  await page.context().close();
  const screen = await open(`${embedUrl}?mode=screen`, 1920, 1080, false);
  expect(await screen.locator("section.spot:visible").count()).toBe(1);
  await screen.context().close();
  expect(problems).toEqual([]);
});

test("the dark theme in imperial units: accessible", async () => {
  const key = await createKey(server.app.stores.access, clock, "shop@example.com", "tv");
  await server.app.keys.reload();
  const dark = await server.app.embeds.create(key.id, { spots: spotIds, theme: "dark", units: "imperial" });
  const page = await open(dark.url.replace(server.app.config.publicUrl, server.url), 1280, 900);
  expect(await page.locator("html.theme-dark").count()).toBe(1);
  expect(await page.textContent("body")).toContain(" ft");
  expect(await seriousViolations(page)).toEqual([]);
  if (shots) await page.screenshot({ path: join(shots, "embed-dark-1280.png"), fullPage: true });
  await page.context().close();
  expect(problems).toEqual([]);
});

test("the console's keys page: make a picture in the browser, copy its snippet; accessible", async () => {
  const client = await invitedOwner(server.app, server.url, "browser-shop@example.com", "a long enough password", "pro");
  await client.get("/console/keys");
  await client.post("/console/keys", { name: "website" });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ name: "surfcast_session", value: client.cookie("surfcast_session")!, url: server.url }]);
  const page = await context.newPage();
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${server.url}/console/keys`);
  await page.fill("#embed-spots", spotIds.join(", "));
  await page.fill("#embed-origins", "https://shop.example");
  await page.click("text=Create forecast picture");
  await page.waitForURL(/notice=embed-created/);
  expect(await page.locator("ul.embeds li").count()).toBe(1);
  expect(await page.locator("ul.embeds pre").textContent()).toContain('<iframe src="');
  expect(await seriousViolations(page)).toEqual([]);
  if (shots) await page.screenshot({ path: join(shots, "console-keys-embed-1280.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  if (shots) await page.screenshot({ path: join(shots, "console-keys-embed-390.png"), fullPage: true });
  await context.close();
  expect(problems).toEqual([]);
});

test("screen mode reloads itself when a new forecast arrives", async () => {
  const page = await open(`${embedUrl}?mode=screen`, 1920, 1080);
  await page.clock.install();
  await page.reload();
  const before = await page.getAttribute("body", "data-stamp");
  clock.advance(60_000);
  const spots = spotIds.map((id) => server.app.spots.get(id));
  expect((await refreshForecasts(server.app, { spots })).failedBatches).toBe(0);
  const reloaded = page.waitForEvent("load");
  await page.clock.runFor(61_000);
  await reloaded;
  expect(await page.getAttribute("body", "data-stamp")).not.toBe(before);
  await page.context().close();
  expect(problems).toEqual([]);
});
