/**
 * The developer console in a real browser (#14): headless Chromium against the compiled binary. The whole path
 * from `surfcast accounts invite` to a revoked key, the operator's pages, keyboard-only use, axe-core on every
 * page (no serious or critical violation), no horizontal scrolling at 390 px, no text under 11 px, no CSP violation or script
 * error, and no secret in the server's log. One browser for the whole file.
 * SURFCAST_SCREENSHOTS=1 also saves every page at 1280 and 390 px under .test-tmp/console-screenshots/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { join } from "node:path";
import { cliAsync, startServer, type RunningServer } from "../support/binary";
import { launchBrowser, screenshotDir, seriousViolations, smallText } from "../support/browser";
import { apiFetch } from "../support/http";

/** The page's document, inside page.evaluate callbacks (the project's types leave out the DOM library). */
declare const document: { activeElement: { tagName: string; textContent: string | null; getAttribute(name: string): string | null } | null; cookie: string; documentElement: { scrollWidth: number } };

const PASSWORD = "browser test password";
const ADMIN_PASSWORD = "operator test password";
let browser: Browser;
let server: RunningServer;
let base: string;
const secrets: string[] = [PASSWORD, ADMIN_PASSWORD];
const problems: string[] = [];
const shots = screenshotDir();

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  [browser, server] = await Promise.all([launchBrowser(), startServer({ args: ["--no-scheduler", "--port", String(port)], env: { SURFCAST_PUBLIC_URL: base } })]);
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function newPage(width = 1280): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  // Pages answered 400/401/410 on purpose (a wrong password, a used link) log a failed load; anything else counts.
  page.on("console", (m) => m.type() === "error" && !/status of (400|401|410) /.test(m.text()) && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  return { context, page };
}

/** axe at 1280 px; at 390 px the page must not scroll sideways; no text under 11 px at either; screenshots of both when asked. */
async function checkPage(page: Page, name: string): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
  expect([name, 1280, await smallText(page)]).toEqual([name, 1280, []]);
  if (shots) await page.screenshot({ path: join(shots, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  if (shots) await page.screenshot({ path: join(shots, `${name}-390.png`), fullPage: true });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect([name, 390, await smallText(page)]).toEqual([name, 390, []]);
  await page.setViewportSize({ width: 1280, height: 900 });
}

const nav = (page: Page, name: string) => page.getByRole("navigation", { name: "Console" }).getByRole("link", { name }).click();

async function invite(args: string[]): Promise<string> {
  const r = await cliAsync(server.dataDir, args, { SURFCAST_PUBLIC_URL: base });
  expect(r.code).toBe(0);
  const link = r.stdout.trim().split("\n").find((l) => l.startsWith(base))!;
  secrets.push(link.slice(link.lastIndexOf("/") + 1));
  return link;
}

async function choosePassword(page: Page, link: string, password: string): Promise<void> {
  await page.goto(link);
  await page.getByLabel("New password").fill(password);
  await page.getByLabel("Repeat the password").fill(password);
  await page.getByRole("button", { name: "Save password and sign in" }).click();
  await page.waitForURL(/\/console\/overview/);
}

describe("console in a browser", () => {
  test("invite from the CLI → set a password → create a key → call /v1 → see it in usage → revoke → 401", async () => {
    const link = await invite(["accounts", "invite", "owner@example.com", "--plan", "starter"]);
    const { context, page } = await newPage();
    await page.goto(link);
    expect(await page.title()).toContain("Welcome to Surfcast");
    await checkPage(page, "invite");
    await choosePassword(page, link, PASSWORD);
    expect(await page.getByRole("status").first().textContent()).toContain("Your password is set");
    await checkPage(page, "overview-empty");
    secrets.push((await context.cookies()).find((c) => c.name === "surfcast_session")!.value);
    expect((await context.cookies()).find((c) => c.name === "surfcast_session")).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/console" });

    await nav(page, "Keys");
    await page.getByLabel("Key name").fill("surf shop site");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.getByLabel("API key").inputValue();
    expect(key).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    secrets.push(key);
    expect(await page.getByRole("button", { name: "Copy key" }).isVisible()).toBe(true);
    expect(await page.textContent("body")).toContain("This is the only time the full key is shown");
    await checkPage(page, "keys-created");

    const call = await apiFetch(`${base}/v1/spots?q=pipeline`, { headers: { "X-API-Key": key } });
    expect(call.status).toBe(200);

    await nav(page, "Usage");
    const today = new Date().toISOString().slice(0, 10);
    const row = page.getByRole("row", { name: new RegExp(today) });
    expect((await row.textContent())!.replace(/\s+/g, " ")).toContain(`${today}11`);
    expect(await page.locator("svg rect title", { hasText: `${today} · spots.search: 1` }).count()).toBe(1);
    await checkPage(page, "usage");

    await nav(page, "Overview");
    expect(await page.locator("meter").first().getAttribute("value")).toBe("1");
    await checkPage(page, "overview");

    await nav(page, "Keys");
    expect(await page.textContent("body")).not.toContain(key);
    await page.getByRole("link", { name: "Revoke surf shop site" }).click();
    await checkPage(page, "revoke-confirm");
    await page.getByRole("button", { name: "Revoke key" }).click();
    await page.waitForURL(/notice=revoked/);
    expect(await page.getByRole("row", { name: /surf shop site/ }).textContent()).toContain("revoked");
    const refused = await apiFetch(`${base}/v1/spots?q=pipeline`, { headers: { "X-API-Key": key } });
    expect(refused.status).toBe(401);

    await nav(page, "Password");
    await checkPage(page, "password");
    await page.getByRole("button", { name: /Sign out/ }).click();
    await page.waitForURL(/sign-in/);
    await page.getByLabel("E-mail").fill("owner@example.com");
    await page.getByLabel("Password").fill("not my password");
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.getByRole("alert").textContent()).toContain("The e-mail or the password is wrong.");
    await checkPage(page, "sign-in-error");

    await page.goto(link);
    expect(await page.textContent("main")).toContain("already been used");
    await checkPage(page, "link-used");
    await context.close();
  }, 60_000);

  test("keyboard only: sign in, create a key and revoke it without a pointer", async () => {
    const { context, page } = await newPage();
    await page.goto(`${base}/console/sign-in`);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.type("owner@example.com");
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await page.waitForURL(/overview/);

    const tabTo = async (match: (el: { tag: string; text: string; label: string }) => boolean) => {
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press("Tab");
        const el = await page.evaluate(() => {
          const a = document.activeElement;
          return { tag: a?.tagName ?? "", text: (a?.textContent ?? "").trim(), label: a?.getAttribute("id") ?? "" };
        });
        if (match(el)) return;
      }
      throw new Error("element not reachable with Tab");
    };
    await tabTo((el) => el.tag === "A" && el.text === "Keys");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/console\/keys$/);
    await tabTo((el) => el.label === "name");
    await page.keyboard.type("keyboard key");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#new-key");
    await tabTo((el) => el.tag === "A" && el.text === "Revoke keyboard key");
    await page.keyboard.press("Enter");
    await page.waitForURL(/revoke$/);
    await tabTo((el) => el.tag === "BUTTON" && el.text === "Revoke key");
    await page.keyboard.press("Enter");
    await page.waitForURL(/notice=revoked/);
    secrets.push(await page.evaluate(() => document.cookie)); // HttpOnly: nothing readable from script
    expect(await page.evaluate(() => document.cookie)).toBe("");
    await context.close();
  }, 60_000);

  test("operator: admins create → accounts list, account page, invite, plan change, disable", async () => {
    const link = await invite(["admins", "create", "ops@example.com"]);
    const { context, page } = await newPage();
    await choosePassword(page, link, ADMIN_PASSWORD);
    await nav(page, "Accounts");
    expect(await page.getByRole("row", { name: /owner@example\.com/ }).textContent()).toContain("starter");
    await page.getByText("Invite an account").click();
    await checkPage(page, "admin-accounts");
    await page.getByLabel("E-mail", { exact: true }).fill("shop2@example.com");
    await page.getByLabel(/^Plan/).selectOption("growth");
    await page.getByRole("button", { name: "Create invitation link" }).click();
    const invited = (await page.locator("#invite-link").textContent())!;
    expect(invited).toStartWith(`${base}/console/invite/`);
    secrets.push(invited.slice(invited.lastIndexOf("/") + 1));
    await checkPage(page, "admin-invited");

    await page.getByRole("link", { name: "shop2@example.com" }).click();
    await page.getByLabel("Plan", { exact: true }).selectOption("pro");
    await page.getByLabel(/^Daily limit/).fill("20000");
    await page.getByRole("button", { name: "Save plan and limits" }).click();
    await page.waitForURL(/plan-saved/);
    await page.getByRole("button", { name: "Disable account" }).click();
    await page.waitForURL(/notice=disabled/);
    await checkPage(page, "admin-account");
    const list = await apiFetch(`${base}/v1/usage`, { headers: { Cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ") } });
    expect(list.status).toBe(401); // the console's cookie is no key
    await context.close();
  }, 60_000);

  test("no password, link token, key or session token in the server's log; no script or CSP error", () => {
    const log = server.output();
    expect(log).toContain("console key created");
    for (const secret of secrets.filter((s) => s.length >= 12)) expect(log).not.toContain(secret);
    expect(problems).toEqual([]);
  });
});
