/**
 * Embeds in the shop's language, in a real browser (headless Chromium): an embed in each language but English has
 * `<html lang>` set, shows none of the English labels, writes dates and numbers as that language does, keeps the
 * attribution's names and links; the Portuguese one at 1280 and 390 px (no sideways scrolling, no text under 11 px,
 * axe-core clean) and on the shop screen. Screenshots go to .test-tmp/embed-lang-screenshots/ (look at them).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ManualClock, startTestServer, type TestServer } from "../support/inprocess";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { launchBrowser, seriousViolations, smallText } from "../support/browser";
import { ROOT } from "../support/env";
import { refreshForecasts } from "../../src/server/refresh";
import { createAccount, createKey } from "../../src/access/accounts";
import { EMBED_LANGS } from "../../src/embed/lang";

declare const document: { documentElement: { scrollWidth: number; lang: string } };

const clock = new ManualClock(Date.now());
let browser: Browser;
let fake: FakeOpenMeteo;
let server: TestServer;
let keyId: string;
let spotIds: string[];
const problems: string[] = [];
const shots = join(ROOT, ".test-tmp/embed-lang-screenshots");
mkdirSync(shots, { recursive: true });

/** English a translated page must not show (German's "Wind" is German too, so it is not listed). */
const ENGLISH = [
  "Surf now",
  "Waves now",
  "Tide",
  "Local time",
  "forecast of",
  "rising",
  "falling",
  "offshore",
  "onshore",
  "cross-shore",
  "beginner",
  "intermediate",
  "advanced",
  "The week as a table",
  "High and low water",
  "swell period",
  "Forecast by",
  "Weather and marine data",
  "Predictions, not guarantees",
  "Swipe the chart",
  "best window",
  "Mon ",
  "Tue ",
  "Wed ",
  "Thu ",
  "Fri ",
  "Sat ",
  "Sun ",
];

beforeAll(async () => {
  [browser, fake] = await Promise.all([launchBrowser(), startFakeOpenMeteo()]);
  server = await startTestServer({ clock, env: { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url } });
  const nearest = (lat: number, lng: number) => server.app.spots.nearby({ lat, lng, radius: 50, limit: 1 })[0]!;
  const spots = [nearest(39.344, -9.363), nearest(43.48, -1.56)];
  expect((await refreshForecasts(server.app, { spots })).failedBatches).toBe(0);
  await createAccount(server.app.stores.access, clock, "loja@example.com", "scale");
  keyId = (await createKey(server.app.stores.access, clock, "loja@example.com", "loja")).id;
  await server.app.keys.reload();
  spotIds = spots.map((s) => s.id);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await fake?.close();
});

async function embedIn(lang: string): Promise<string> {
  const embed = await server.app.embeds.create(keyId, { spots: spotIds, lang });
  return embed.url.replace(server.app.config.publicUrl, server.url);
}

async function open(url: string, width: number, height: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  await page.goto(url);
  return page;
}

/** Every text the page shows or says: the body's text, and the labels and titles a screen reader reads. */
async function allText(page: Page): Promise<string> {
  const body = (await page.textContent("body")) ?? "";
  const attributes = await page.locator("[aria-label], title, desc").evaluateAll((els) =>
    els.map((el) => (el as unknown as { getAttribute(n: string): string | null; textContent: string | null }).getAttribute("aria-label") ?? (el as { textContent: string | null }).textContent ?? ""),
  );
  return [body, ...attributes, await page.title()].join("\n");
}

for (const lang of EMBED_LANGS.filter((l) => l !== "en")) {
  test(`${lang}: <html lang>, no English label, dates and numbers in ${lang}, the attribution exact`, async () => {
    const page = await open(await embedIn(lang), 1280, 900);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe(lang);
    await page.locator("details.data summary").first().click();
    const text = await allText(page);
    expect(ENGLISH.filter((word) => text.includes(word))).toEqual([]);
    // Numbers with the decimal comma every one of these languages writes.
    expect(text).toMatch(/\d,\d/);
    // The sources' names, links and licence as their terms ask.
    expect(await page.locator('footer a[href="https://open-meteo.com/"]').textContent()).toBe("Open-Meteo.com");
    expect(await page.locator('footer a[href="https://creativecommons.org/licenses/by/4.0/"]').textContent()).toBe("CC BY 4.0");
    expect(await page.locator("footer a", { hasText: "Surfcast" }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, `embed-${lang}-1280.png`), fullPage: true });
    await page.context().close();
    expect(problems).toEqual([]);
  });
}

test("pt at 1280 and 390 px and on the shop screen: no sideways scrolling, no text under 11 px, accessible", async () => {
  const url = await embedIn("pt");
  const page = await open(url, 1280, 900);
  expect(await page.textContent("body")).toContain("Rebentação agora");
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(shots, `embed-pt-${width}.png`), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    expect([width, await smallText(page)]).toEqual([width, []]);
    expect(await seriousViolations(page)).toEqual([]);
  }
  await page.context().close();
  const screen = await open(`${url}?mode=screen`, 1920, 1080);
  await screen.waitForSelector("section.spot.current");
  expect(await screen.evaluate(() => document.documentElement.lang)).toBe("pt");
  expect([await smallText(screen)]).toEqual([[]]);
  await screen.screenshot({ path: join(shots, "screen-pt-1920x1080.png") });
  await screen.context().close();
  expect(problems).toEqual([]);
});
