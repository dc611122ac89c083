/**
 * The pictures at phone width (#10 of "The first hour"), in headless Chromium at 390 and 1280 px: the console's
 * Usage page with MCP traffic (20 endpoints: few, distinct colours; the per-day table scrolls in its frame with a
 * hint, never the page), the Keys page's picture form (spots found by name, with and without JavaScript, ids still
 * accepted), and an embed (the chart scrolls alone, with a hint; labels of 11 px or more; wind types and ratings
 * in colours of their own). On every page: no sideways scrolling of the page, no text under 11 px (SVG text
 * measured as drawn), axe-core without serious or critical violations, no script error or CSP violation.
 * SURFCAST_SCREENSHOTS=1 saves every view, and close-ups of the charts, under .test-tmp/pages-phone-screenshots/.
 */
import { sqliteDb } from "../support/inprocess";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/inprocess";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { launchBrowser, seriousViolations, smallText } from "../support/browser";
import { ROOT } from "../support/env";
import { invitedOwner, type ConsoleClient } from "../support/console-client";
import { refreshForecasts } from "../../src/server/refresh";
import { createKey } from "../../src/access/accounts";
import { USAGE_KEYS } from "../../src/core/endpoints";
import { utcDay, DAY_MS } from "../../src/core/clock";

const MCP_TOOLS = ["search_spots", "spots_nearby", "get_forecast", "get_tides", "spot_now", "best_spots", "surf_summary", "unknown_tool"];
const WIDTHS = [390, 1280] as const;

let browser: Browser;
let fake: FakeOpenMeteo;
let server: TestServer;
let owner: ConsoleClient;
let spotIds: string[];
let embedUrl: string;
let darkUrl: string;
const problems: string[] = [];
const shots = process.env.SURFCAST_SCREENSHOTS === "1" ? join(ROOT, ".test-tmp/pages-phone-screenshots") : null;
if (shots) mkdirSync(shots, { recursive: true });

beforeAll(async () => {
  [browser, fake] = await Promise.all([launchBrowser(), startFakeOpenMeteo()]);
  server = await startTestServer({ env: { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url } });
  const supertubos = server.app.spots.get("supertubos");
  const spots = [supertubos, server.app.spots.get("pipeline")];
  expect((await refreshForecasts(server.app, { spots })).failedBatches).toBe(0);
  spotIds = spots.map((s) => s.id);

  owner = await invitedOwner(server.app, server.url, "phone-shop@example.com", "a long enough password", "pro");
  const keys = [await createKey(server.app.stores.access, server.app.clock, "phone-shop@example.com", "website"), await createKey(server.app.stores.access, server.app.clock, "phone-shop@example.com", "assistant")];
  await server.app.keys.reload();
  // 30 days of traffic on 20 endpoints: the /v1 ones, embed views, calendar feeds and eight MCP tools, busier on some days.
  const insert = sqliteDb(server.app).$client.prepare("insert into usage_counters (key_id, day, endpoint, count) values (?, ?, ?, ?)");
  const endpoints = [...USAGE_KEYS, ...MCP_TOOLS.map((t) => `mcp.${t}`)];
  expect(endpoints).toHaveLength(20);
  for (let d = 0; d < 30; d++) {
    const day = utcDay(server.app.clock.now() - d * DAY_MS);
    endpoints.forEach((endpoint, e) => insert.run(keys[e % 2]!.id, day, endpoint, ((d * 7 + e * 13) % 40) + (e < 3 ? 120 : 5) + (d % 7 === 0 ? 200 : 0)));
  }
  const embed = await server.app.embeds.create(keys[0]!.id, { spots: spotIds });
  embedUrl = `${server.url}/embed/${embed.id}`;
  const dark = await server.app.embeds.create(keys[1]!.id, { spots: spotIds, theme: "dark", units: "imperial" });
  darkUrl = `${server.url}/embed/${dark.id}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await fake?.close();
});

async function signedIn(width: number, javaScript = true): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled: javaScript });
  await context.addCookies([{ name: "surfcast_session", value: owner.cookie("surfcast_session")!, url: server.url }]);
  const page = await context.newPage();
  watch(page);
  return { context, page };
}

function watch(page: Page): void {
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
}

const OVERFLOW = `(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }))()`;

/** At each width: no sideways page scrolling, no small text, no serious axe violation; screenshots when asked. */
async function checkWidths(page: Page, name: string, atEach?: (width: number) => Promise<void>): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    const { scrollWidth, clientWidth } = (await page.evaluate(OVERFLOW)) as { scrollWidth: number; clientWidth: number };
    expect([name, width, scrollWidth <= clientWidth]).toEqual([name, width, true]);
    expect([name, width, await smallText(page)]).toEqual([name, width, []]);
    expect([name, width, await seriousViolations(page)]).toEqual([name, width, []]);
    if (shots) await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
    await atEach?.(width);
  }
}

const shot = async (page: Page, selector: string, file: string) => {
  if (shots) await page.locator(selector).first().screenshot({ path: join(shots, file) });
};

describe("console usage with MCP traffic", () => {
  test("20 endpoints: at most six series in six distinct colours, every endpoint in the table by endpoint, the day table scrolls in its frame", async () => {
    const { context, page } = await signedIn(1280);
    await page.goto(`${server.url}/console/usage`);
    const legend = await page.locator(".legend li").allTextContents();
    expect(legend.length).toBeLessThanOrEqual(6);
    expect(new Set(legend).size).toBe(legend.length);
    expect(legend.filter((l) => /^other (\/v1: \d+ endpoints|MCP: \d+ tools)$/.test(l)).length).toBeGreaterThan(0);
    const fills = (await page.locator("svg.usage-chart rect").evaluateAll((rects) => rects.map((r) => (r as unknown as { getAttribute(n: string): string }).getAttribute("fill")))) as string[];
    expect(new Set(fills).size).toBe(legend.length);
    expect(await page.locator(".legend svg.swatch").count()).toBe(legend.length);
    expect(await page.locator("table.compact tbody tr").count()).toBe(20);
    expect(await page.locator("table.by-day thead th").count()).toBe(legend.length + 2);
    await checkWidths(page, "usage", async (width) => {
      await shot(page, "figure.chart", `usage-chart-${width}.png`);
      const wrap = page.locator(".table-wrap.wide");
      const scrolls = await wrap.evaluate((el) => (el as unknown as { scrollWidth: number; clientWidth: number }).scrollWidth > (el as unknown as { clientWidth: number }).clientWidth);
      // Where the table is wider than its frame the hint shows; where it fits, it does not.
      expect([width, await page.locator(".scroll-hint").isVisible()]).toEqual([width, scrolls]);
      if (width === 390) expect(scrolls).toBe(true);
      await shot(page, ".table-wrap.wide", `usage-table-${width}.png`);
    });
    await context.close();
    expect(problems).toEqual([]);
  }, 60_000);
});

describe("keys page: a picture's spots found by name", () => {
  for (const javaScript of [false, true]) {
    test(`search by name, tick, search again (the ticks are kept), type an id too, create${javaScript ? "" : " — JavaScript off"}`, async () => {
      const { context, page } = await signedIn(1280, javaScript);
      await page.goto(`${server.url}/console/keys`);
      const before = (await server.app.embeds.list("phone-shop@example.com")).length;
      const typed = server.app.spots.search({ q: "hossegor", limit: 1 })[0]!;
      // Enter in the search field is the form's Search (its first submit button): nothing is made yet.
      await page.getByLabel(/^Find a spot by name/).fill("supertubos");
      await page.getByLabel(/^Find a spot by name/).press("Enter");
      await page.waitForURL(/\/console\/embeds#spot-search$/);
      expect(await server.app.embeds.list("phone-shop@example.com")).toHaveLength(before);
      await page.getByRole("checkbox", { name: /^Supertubos/ }).check();
      await page.getByLabel(/^Find a spot by name/).fill("pipeline");
      await page.getByRole("button", { name: "Search" }).click();
      await page.waitForLoadState();
      expect(await page.getByRole("checkbox", { name: /^Supertubos/ }).isChecked()).toBe(true);
      expect(await page.locator("#spot-chosen").textContent()).toBe("Chosen:");
      expect(await page.locator("#spot-results").textContent()).toContain("pipeline");
      await page.getByRole("checkbox", { name: /^Pipeline\b/ }).first().check();
      await page.getByLabel(/^Or spot ids/).fill(typed.id);
      // axe runs as a script in the page: checked with JavaScript on.
      if (javaScript) await checkWidths(page, "keys-spot-search", (width) => shot(page, "#embed-form", `keys-spot-form-${width}.png`));
      else {
        await page.getByLabel(/^Find a spot by name/).fill("x");
        await page.getByRole("button", { name: "Search" }).click();
        await page.waitForLoadState();
        expect(await page.locator("#spot-search [role=status]").textContent()).toContain("at least 2 letters");
        await page.getByLabel(/^Find a spot by name/).fill("qqqzzzxxy");
        await page.getByRole("button", { name: "Search" }).click();
        await page.waitForLoadState();
        expect(await page.locator("#spot-search [role=status]").textContent()).toContain("No spot matches");
        expect(await page.getByLabel(/^Or spot ids/).inputValue()).toBe(typed.id);
      }
      await page.getByRole("button", { name: "Create forecast picture" }).click();
      await page.waitForURL(/notice=embed-created/);
      const made = (await server.app.embeds.list("phone-shop@example.com")).at(-1)!;
      expect(made.spots.slice(0, 2)).toEqual(["supertubos", expect.stringMatching(/^pipeline/)]);
      expect(made.spots[2]).toBe(typed.id);
      expect(await page.locator("ul.embeds li").last().textContent()).toContain(made.spotNames.join(", "));
      expect(made.spotNames[0]).toBe("Supertubos");
      await context.close();
      expect(problems).toEqual([]);
    }, 60_000);
  }

  test("over HTTP: nothing ticked or typed is a 400 in the owner's words; a search never makes a picture; a tick of an unknown id is dropped", async () => {
    const keyId = (await server.app.embeds.list("phone-shop@example.com"))[0]!.keyId;
    const before = (await server.app.embeds.list("phone-shop@example.com")).length;
    await owner.get("/console/keys");
    const empty = await owner.post("/console/embeds", { key: keyId, spots: " , ", origins: "", units: "metric", theme: "light" });
    expect(empty.status).toBe(400);
    expect(empty.body).toContain("Choose 1 to 12 spots: find them by name and tick them, or type their ids.");
    const search = new URLSearchParams({ key: keyId, q: "nazare", find: "1", spots: "pipeline", csrf: owner.csrf });
    search.append("spot", "supertubos");
    search.append("spot", "no-such-spot-anywhere");
    const found = await owner.request("/console/embeds", { method: "POST", body: search, headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.url } });
    expect(found.status).toBe(200);
    expect(found.body).toMatch(/<input type="checkbox" name="spot" value="supertubos" checked>/);
    expect(found.body).not.toContain("no-such-spot-anywhere");
    expect(found.body).toMatch(/name="spot" value="[^"]*nazar/i);
    expect(found.body).toContain('value="pipeline"');
    expect(await server.app.embeds.list("phone-shop@example.com")).toHaveLength(before);
  });
});

/** The colours a page's stylesheet gives wind types and ratings, as computed (hex as written, trimmed). */
const PALETTES = `(() => {
  const css = getComputedStyle(document.documentElement);
  const v = (name) => css.getPropertyValue(name).trim().toLowerCase();
  return { wind: ["--offshore", "--cross", "--onshore", "--offshore-text", "--cross-text", "--onshore-text"].map(v), ratings: ["--r1", "--r2", "--r3", "--r4", "--r5"].map(v) };
})()`;

/** The fills the browser painted: wind arrows by type, best-window bars and rating cells by rating. */
const PAINTED = `(() => {
  const fill = (el) => getComputedStyle(el).fill;
  const bg = (el) => getComputedStyle(el).backgroundColor;
  return {
    wind: [...document.querySelectorAll("use.arrow")].map(fill),
    ratings: [...document.querySelectorAll("rect.best")].map(fill).concat([...document.querySelectorAll(".ratings .cell.on")].map(bg)),
  };
})()`;

describe("embed at phone width", () => {
  for (const [name, url] of [["embed", () => embedUrl], ["embed-dark", () => darkUrl]] as const) {
    test(`${name}: the chart alone scrolls at 390 px, with a hint; labels of 11 px or more; wind and rating colours apart`, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      watch(page);
      await page.goto(url());
      expect(await page.locator(".plot").count()).toBe(2);
      const palettes = (await page.evaluate(PALETTES)) as { wind: string[]; ratings: string[] };
      expect(palettes.ratings.every((c) => /^#[0-9a-f]{6}$/.test(c))).toBe(true);
      expect(new Set(palettes.ratings).size).toBe(5);
      expect(palettes.wind.filter((c) => palettes.ratings.includes(c))).toEqual([]);
      const painted = (await page.evaluate(PAINTED)) as { wind: string[]; ratings: string[] };
      expect(painted.wind.length).toBeGreaterThan(0);
      expect(painted.ratings.length).toBeGreaterThan(0);
      expect(painted.wind.filter((c) => painted.ratings.includes(c))).toEqual([]);
      await checkWidths(page, name, async (width) => {
        const plots = (await page.locator(".plot").evaluateAll((els) => els.map((el) => { const e = el as unknown as { scrollWidth: number; clientWidth: number }; return e.scrollWidth > e.clientWidth; }))) as boolean[];
        const hints = await page.locator(".scroll-hint").evaluateAll((els) => els.map((el) => (el as unknown as { checkVisibility(): boolean }).checkVisibility()));
        // Narrow, every chart scrolls in its frame and says so; wide, none does and no hint shows.
        expect([width, plots, hints]).toEqual([width, plots.map(() => width === 390), plots.map(() => width === 390)]);
        await shot(page, "section.spot .now", `${name}-now-${width}.png`);
        await shot(page, "figure.week", `${name}-week-${width}.png`);
        if (width === 390) {
          await page.locator(".plot").first().focus();
          await page.keyboard.press("ArrowRight");
          await page.keyboard.press("End");
          // Keys scroll the focused chart (smoothly: wait for it).
          const scrolled = () => page.locator(".plot").first().evaluate((el) => (el as unknown as { scrollLeft: number }).scrollLeft);
          for (let i = 0; i < 50 && (await scrolled()) === 0; i++) await page.waitForTimeout(100);
          expect(await scrolled()).toBeGreaterThan(0);
          await shot(page, "figure.week", `${name}-week-${width}-scrolled.png`);
        }
      });
      await context.close();
      expect(problems).toEqual([]);
    }, 60_000);
  }
});
