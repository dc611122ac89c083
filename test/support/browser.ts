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

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run "make test" (it installs Debian's chromium) or set CHROMIUM_PATH`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
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

/** Where screenshots go when SURFCAST_SCREENSHOTS=1 (under the git-ignored .test-tmp/); null = none taken. */
export function screenshotDir(): string | null {
  if (process.env.SURFCAST_SCREENSHOTS !== "1") return null;
  const dir = join(ROOT, ".test-tmp/console-screenshots");
  mkdirSync(dir, { recursive: true });
  return dir;
}
