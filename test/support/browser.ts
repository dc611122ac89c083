/**
 * One headless Chromium (Debian's package, driven by playwright-core) for the browser tests, with a fresh
 * profile and no network beyond 127.0.0.1; plus axe-core, injected through the DevTools protocol (the
 * console's CSP forbids inline script, and rightly so).
 */
import { chromium, type Browser, type Page } from "playwright-core";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./env";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run "make test" (it installs Debian's chromium) or set CHROMIUM_PATH`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

/**
 * A browser for one test file. On a busy machine Chromium can be lost (a test's timeout closes it mid-launch or
 * mid-page); every later `newContext`/`newPage` then starts a fresh one, so one lost browser fails one test, not
 * every test after it in the file.
 */
export async function launchBrowser(): Promise<Browser> {
  let current = await launchChromium();
  let relaunch: Promise<Browser> | null = null;
  const live = async (): Promise<Browser> => {
    if (current.isConnected()) return current;
    relaunch ??= launchChromium().finally(() => (relaunch = null));
    current = await relaunch;
    return current;
  };
  return new Proxy(current, {
    get(_, property) {
      if (property === "newContext" || property === "newPage") {
        return async (...args: unknown[]) => {
          const open = (browser: Browser) => (browser[property] as (...a: unknown[]) => Promise<unknown>).apply(browser, args);
          try {
            return await open(await live());
          } catch (err) {
            // Killed a moment ago (bun test ends a timed-out test's processes), before it said it was disconnected.
            if (!String(err).includes("has been closed")) throw err;
            await current.close().catch(() => {});
            return open(await live());
          }
        };
      }
      const value = Reflect.get(current, property);
      return typeof value === "function" ? value.bind(current) : value;
    },
  });
}

const AXE = readFileSync(join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Serious and critical axe-core violations on the page as it is now (WCAG 2.x A and AA rules). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(o: object): Promise<{ violations: AxeViolation[] }> } }).axe
      .run({ runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } })
      .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }))),
  )) as AxeViolation[];
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/**
 * Text drawn smaller than 11 px: every visible text node's font size, times the SVG's scale for text in an SVG
 * with a viewBox (drawn at its width / the viewBox's). Hidden text (closed details, display:none, SVG titles,
 * visually hidden labels) is not drawn and not measured.
 */
const SMALL_TEXT = `(() => {
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || el.closest("title, desc, script, style, .visually-hidden")) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0 || getComputedStyle(el).visibility === "hidden") continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.closest("svg");
    const box = svg && svg.viewBox && svg.viewBox.baseVal;
    if (box && box.width > 0) size *= svg.getBoundingClientRect().width / box.width;
    if (size < 11) small.push(text.slice(0, 30) + " (" + size.toFixed(1) + " px)");
  }
  return small;
})()`;

/** Visible text drawn under 11 px on the page as it is now, as "text (size px)"; empty when there is none. */
export async function smallText(page: Page): Promise<string[]> {
  return (await page.evaluate(SMALL_TEXT)) as string[];
}

/** Where screenshots go when SURFCAST_SCREENSHOTS=1 (under the git-ignored .test-tmp/); null = none taken. */
export function screenshotDir(): string | null {
  if (process.env.SURFCAST_SCREENSHOTS !== "1") return null;
  const dir = join(ROOT, ".test-tmp/console-screenshots");
  mkdirSync(dir, { recursive: true });
  return dir;
}
