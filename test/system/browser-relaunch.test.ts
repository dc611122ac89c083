/**
 * The browser tests' Chromium (test/support/browser.ts): a browser lost mid-file is started again for the next
 * page, so one lost browser fails one test on a busy machine, not every test after it.
 */
import { expect, test } from "bun:test";
import { launchBrowser } from "../support/browser";

test("a closed browser is relaunched for the next context and page", async () => {
  const browser = await launchBrowser();
  try {
    await browser.close(); // as a timed-out test leaves it
    expect(browser.isConnected()).toBe(false);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent("<p>alive</p>");
    expect(await page.textContent("p")).toBe("alive");
    expect(browser.isConnected()).toBe(true);
    await browser.close();
    expect(await (await browser.newPage()).evaluate(() => 1 + 1)).toBe(2);
  } finally {
    await browser.close();
  }
});
