/**
 * GET /docs in headless Chromium (playwright-core driving Debian's chromium, no internet): the API reference
 * renders the served /openapi.json with no console error, no failed request and nothing fetched from another host.
 * Screenshots at 1280 and 390 px are kept in .test-tmp/ for a look.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { startServer, type RunningServer } from "./support/binary";
import { tempDir } from "./support/env";

const CHROMIUM = "/usr/bin/chromium";
let server: RunningServer;
let browser: Browser | null = null;

beforeAll(async () => {
  server = await startServer();
  if (!existsSync(CHROMIUM)) Bun.spawnSync(["apt-get", "install", "-y", "chromium"], { stdout: "ignore", stderr: "ignore" });
  if (existsSync(CHROMIUM)) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
  }
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

test("GET /docs renders the API reference from /openapi.json with no console error, offline", async () => {
  if (!browser) {
    console.warn(`SKIPPED: ${CHROMIUM} is missing and could not be installed; /docs not rendered`);
    return;
  }
  const shots = tempDir("docs-page");
  for (const width of [1280, 390]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
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
    const response = await page.goto(`${server.url}/docs`, { waitUntil: "networkidle" });
    expect(response?.status()).toBe(200);
    await page.getByText("Search spots by name, alias or country").first().waitFor({ state: "attached", timeout: 20_000 });
    await page.getByText("Surfcast", { exact: false }).first().waitFor({ timeout: 20_000 }); // the document title, visible at any width
    await page.screenshot({ path: join(shots, `docs-${width}.png`) });
    expect(problems).toEqual([]);
    await context.close();
  }
}, 90_000);
