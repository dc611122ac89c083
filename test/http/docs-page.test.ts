/**
 * GET /docs in headless Chromium (playwright-core driving Debian's chromium, no internet): the API reference
 * renders the served /openapi.json under the page's Content-Security-Policy, with no CSP violation, no console
 * error, no failed request and nothing fetched from another host.
 * Screenshots at 1280 and 390 px are kept in .test-tmp/ for a look.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../support/browser";
import { startServer, type RunningServer } from "../support/binary";
import { tempDir } from "../support/env";

let server: RunningServer;
let browser: Browser;

/**
 * Installed before any script of the page runs: every violation of its CSP, caught by the page or not, as
 * "directive blocked what at where" in window.__cspViolations.
 */
const WATCH_CSP = `window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(e.effectiveDirective + " blocked " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber));`;

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

test("GET /docs renders the API reference from /openapi.json under its CSP with no violation and no console error, offline", async () => {
  const shots = tempDir("docs-page");
  for (const width of [1280, 390]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    await context.addInitScript(WATCH_CSP);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()} (${m.location().url})`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("requestfailed", (r) => problems.push(`failed: ${r.url()}`));
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
    });
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith("data:") && !r.url().startsWith("blob:")) problems.push(`elsewhere: ${r.url()}`);
    });
    // Generous deadlines: on a loaded machine the reference bundle alone takes tens of seconds to parse and draw.
    const response = await page.goto(`${server.url}/docs`, { waitUntil: "networkidle", timeout: 60_000 });
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self';");
    await page.getByText("Search spots by name, alias or country").first().waitFor({ state: "attached", timeout: 45_000 });
    await page.getByText("Surfcast", { exact: false }).first().waitFor({ timeout: 45_000 }); // the document title, visible at any width
    // The search dialog, and an operation opened from it (its code sample and example answer render then).
    await page.keyboard.press("Control+k");
    await page.keyboard.type("tides");
    await page.getByText("Tide extremes from now forward").first().click({ timeout: 45_000 });
    await page.getByRole("heading", { name: "Tide extremes from now forward", exact: true }).waitFor({ timeout: 45_000 });
    await page.waitForTimeout(500); // its code sample and example answer, drawn after the heading
    await page.screenshot({ path: join(shots, `docs-${width}.png`) });
    problems.push(...(await page.evaluate(() => (globalThis as unknown as { __cspViolations: string[] }).__cspViolations)).map((v) => `CSP: ${v}`));
    expect(problems).toEqual([]);
    await context.close();
  }
}, 240_000);

test("the one concession, style-src 'unsafe-inline', is needed: without it Chromium reports the bundle's styles (so the listener above sees violations)", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(WATCH_CSP);
  await context.route("**/docs", async (route) => {
    const res = await route.fetch();
    const csp = res.headers()["content-security-policy"]!;
    expect(csp).toContain("style-src 'unsafe-inline';");
    await route.fulfill({ response: res, headers: { ...res.headers(), "content-security-policy": csp.replace("style-src 'unsafe-inline'", "style-src 'self'") } });
  });
  const page = await context.newPage();
  await page.goto(`${server.url}/docs`, { waitUntil: "networkidle", timeout: 60_000 });
  await page.getByText("Search spots by name, alias or country").first().waitFor({ state: "attached", timeout: 45_000 });
  const seen = await page.evaluate(() => (globalThis as unknown as { __cspViolations: string[] }).__cspViolations);
  expect(seen.filter((d) => d.startsWith("style-src")).length).toBeGreaterThan(0);
  expect(seen.filter((d) => !d.startsWith("style-src"))).toEqual([]);
  await context.close();
}, 120_000);
