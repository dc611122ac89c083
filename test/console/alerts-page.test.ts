/**
 * The console's Alerts page: over HTTP in-process (list, create with the secret and feed shown once, refusals in one
 * sentence on the form, the plan's cap, CSRF, a test event, the delivery log with "send again" of a failed delivery,
 * delete, and another account's alert as absent as an unknown one), then in headless Chromium (axe-clean at 1280 and
 * 390 px, no sideways scrolling, a create through the form). Webhooks go to a receiver on 127.0.0.1 that answers 500
 * (the operator allowed 127.0.0.1); the outbox is run by the test. SURFCAST_SCREENSHOTS=1 saves the pages under
 * .test-tmp/console-screenshots/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { join } from "node:path";
import { ManualClock, startTestServer, type TestServer } from "../support/inprocess";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { launchBrowser, screenshotDir, seriousViolations, smallText } from "../support/browser";
import { invitedOwner, text, type ConsoleClient } from "../support/console-client";
import { createKey } from "../../src/access/accounts";
import { refreshForecasts } from "../../src/server/refresh";
import { alertOutbox } from "../../src/server/alert-deliveries";
import { MAX_ATTEMPTS_PER_EVENT } from "../../src/alerts/limits";

const OWNER = "alerts-owner@example.com";
const OTHER = "alerts-other@example.com";

let fake: FakeOpenMeteo;
let server: TestServer;
let receiver: ReturnType<typeof Bun.serve>;
let hook: string;
let owner: ConsoleClient;
let other: ConsoleClient;
let keyId: string;
let otherAlertId: string;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  // The forecast starts today, so that alerts have windows to show.
  fake = await startFakeOpenMeteo({ firstDay: new Date(clock.now()).toISOString().slice(0, 10) });
  receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("down for maintenance", { status: 500 }) });
  hook = `http://127.0.0.1:${receiver.port}/hook`;
  server = await startTestServer({ clock, env: { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1" } });
  expect((await refreshForecasts(server.app, { spots: [server.app.spots.get("supertubos")] })).failedBatches).toBe(0);
  owner = await invitedOwner(server.app, server.url, OWNER, "a long enough password", "early-access");
  other = await invitedOwner(server.app, server.url, OTHER, "another long password", "early-access");
  keyId = (await createKey(server.app.stores.access, server.app.clock, OWNER, "website")).id;
  const otherKey = await createKey(server.app.stores.access, server.app.clock, OTHER, "their site");
  await server.app.keys.reload();
  otherAlertId = (await server.app.alerts.create(otherKey.id, { spotId: "pipeline", email: "them@example.com", name: "Their secret spot", condition: { minWave: 2 } })).id;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await receiver?.stop(true);
  await fake?.close();
});

const form = (fields: Record<string, string>) => ({ key: keyId, spot: "supertubos", delivery: "webhook", target: hook, name: "", minWave: "1.5", maxWave: "", minRating: "", level: "intermediate", minConfidence: "", ...fields });
/** The delivery log's rows of test events, as text, newest first. */
const testRows = (body: string) => [...body.matchAll(/<tr>(.*?)<\/tr>/gs)].map((m) => text(m[1]!).trim()).filter((row) => row.split(" ")[5] === "test"); // after `Sat 28 Nov 08:50 WET`
/** The one sentence a refused form shows. */
/** Outbox rounds until one attempts nothing: a round takes one delivery per target, so several may be due. */
async function drainOutbox(): Promise<void> {
  const outbox = await alertOutbox(server.app);
  while ((await outbox.runDue()).attempted > 0);
}
const refusal = (body: string) => text(/<p class="error" role="alert">(.*?)<\/p>/s.exec(body)?.[1] ?? "").trim();

describe("alerts page over HTTP", () => {
  test("create a webhook alert: secret and calendar feed shown once, then listed with its condition in words", async () => {
    expect((await owner.get("/console/alerts")).body).toContain("No alerts yet.");
    const created = await owner.post("/console/alerts", { ...form({ name: "Dawn patrol", maxWave: "3", minRating: "3", level: "advanced", minConfidence: "high", daylight: "1" }), wind: "offshore" });
    // POST, then redirect: the page it lands on shows the secret and the feed once; a reload shows neither and makes nothing.
    expect([created.status, created.location, created.body]).toEqual([303, "/console/alerts#new-alert-title", ""]);
    const sealed = owner.cookie("surfcast_new_alert")!;
    const shown = await owner.get(created.location!);
    expect(shown.status).toBe(200);
    const secret = /whsec_[A-Za-z0-9+/=]+/.exec(shown.body)?.[0];
    const feed = /http:\/\/[^\s<"]+\/alerts\/calendar\/[A-Za-z0-9_-]+\.ics/.exec(shown.body)?.[0];
    expect(secret).toBeDefined();
    expect(feed).toBeDefined();
    expect(text(shown.body)).toContain("Your new alert “Dawn patrol”");
    expect(sealed).not.toContain(secret!.slice(6, 20));
    expect(owner.cookie("surfcast_new_alert")).toBeUndefined();
    const reloaded = await owner.get(created.location!);
    expect(reloaded.body).not.toContain(secret!);
    expect(reloaded.body).not.toContain("Your new alert");
    // The sealed cookie opens for its own session only.
    expect((await other.get("/console/alerts", { Cookie: `surfcast_session=${other.cookie("surfcast_session")}; surfcast_new_alert=${sealed}` })).body).not.toContain(secret!);
    expect(await server.app.alerts.list(OWNER)).toHaveLength(1);
    const [alert] = await server.app.alerts.list(OWNER);
    expect(alert).toMatchObject({ name: "Dawn patrol", delivery: "webhook", target: hook, condition: { minWave: 1.5, maxWave: 3, rating: { min: 3, level: "advanced" }, wind: ["offshore"], daylight: true, minConfidence: "high" } });
    expect((await fetch(server.url + new URL(feed!).pathname)).status).toBe(200);

    const list = await owner.get("/console/alerts");
    expect(list.status).toBe(200);
    const page = text(list.body);
    expect(page).toContain("Dawn patrol");
    expect(page).toContain("wave 1.5–3 m, advanced rating ≥ 3, wind offshore, daylight, confidence ≥ high");
    expect(page).toContain(`To: webhook ${hook}`);
    expect(page).toContain("1 of 2 alerts in use");
    expect(page).toMatch(/Next windows: (none in the current forecast|\w{3} \d{1,2} \w{3} \d\d:\d\d–[^ ]+ (WET|WEST))/);
    expect(list.body).not.toContain(secret!);
    expect(list.body).not.toContain(feed!);
  });

  test("refusals are one sentence on the form, what was typed kept; nothing is made", async () => {
    const before = (await server.app.alerts.list(OWNER)).length;
    const cases: [Record<string, string>, string][] = [
      [{ target: "http://10.1.2.3/hook" }, "The webhook URL cannot be used: 10.1.2.3 is a private address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS."],
      [{ minWave: "lots" }, "The minimum wave height must be a number, like 1.5 (metres) or 4 (feet)."],
      [{ minWave: "31" }, "The minimum wave height must be a number of metres from 0 to 30."],
      [{ minWave: "99", units: "imperial" }, "The minimum wave height must be a number of feet from 0 to 98.43."],
      [{ minWave: "2", maxWave: "1" }, "The maximum wave height must be at least the minimum wave height (2 m)."],
      [{ spot: "no-such-spot" }, 'There is no spot with the id "no-such-spot": find it with GET /v1/spots?q=NAME.'],
      [{ spot: "" }, "Choose the spot to watch: find it by name and pick it, or type its id."],
      [{ delivery: "email", target: "not an address" }, '"not an address" is not a valid e-mail address.'],
      [{ key: "key_of_someone_else" }, "Choose one of your keys."],
    ];
    for (const [fields, sentence] of cases) {
      const res = await owner.post("/console/alerts", form(fields));
      expect([fields, res.status, refusal(res.body)]).toEqual([fields, 400, sentence]);
      expect(res.body).toContain(`value="${(fields.target ?? hook).replace(/&/g, "&amp;")}"`);
    }
    expect(await server.app.alerts.list(OWNER)).toHaveLength(before);
  });

  test("the spot is found by name: Search lists matches to pick, and a name typed as the id is searched for", async () => {
    await owner.get("/console/alerts");
    const searched = await owner.post("/console/alerts", { ...form({ spot: "", q: "nazare", name: "Big days" }), find: "1" });
    expect(searched.status).toBe(200);
    expect(text(searched.body)).toContain("Spots matching “nazare”: pick one.");
    // The matches to pick from, best first; what was typed stays.
    expect(searched.body).toMatch(/^(?:(?!name="spot").)*<input type="radio" name="spot" value="praia-da-nazare">/s);
    expect(searched.body).toContain('value="Big days"');
    const typed = await owner.post("/console/alerts", form({ spot: "", spotId: "nazare" }));
    expect([typed.status, refusal(typed.body)]).toEqual([400, 'There is no spot with the id "nazare": pick it among the spots found by name below.']);
    expect(typed.body).toContain('value="praia-da-nazare"');
    expect(await server.app.alerts.list(OWNER)).toHaveLength(1);
  });

  test("the plan's cap (early-access: 2) is a sentence on the form, and the form gives way to it", async () => {
    await owner.get("/console/alerts");
    const second = await owner.post("/console/alerts", form({ delivery: "email", target: "me@example.com", name: "Mail me", minWave: "" }));
    expect([second.status, refusal(second.body)]).toEqual([303, ""]);
    // Min wave left empty is the documented default: 0 m.
    expect((await server.app.alerts.list(OWNER)).find((a) => a.name === "Mail me")!.condition.minWave).toBe(0);
    const third = await owner.post("/console/alerts", form({ name: "One too many" }));
    expect(third.status).toBe(400);
    expect(refusal(third.body)).toBe("Your plan (early-access) allows 2 alerts and you have 2. Delete one to create another.");
    const list = await owner.get("/console/alerts");
    expect(text(list.body)).toContain("Your plan (early-access) allows 2 alerts and you have 2.");
    expect(list.body).not.toContain('id="alert-form"');
    expect(await server.app.alerts.list(OWNER)).toHaveLength(2);
  });

  test("an e-mail alert waits for confirmation: said so, its tests refused, its confirmation sent again", async () => {
    const alertId = (await server.app.alerts.list(OWNER)).find((a) => a.name === "Mail me")!.id;
    expect(text((await owner.get("/console/alerts")).body)).toContain("Mail me · waiting for confirmation");
    const tested = await owner.post(`/console/alerts/${alertId}/test`, {});
    expect([tested.status, refusal(tested.body)]).toEqual([400, "This alert is waiting for confirmation: me@example.com receives nothing until the link in its confirmation e-mail is opened."]);
    const page = await owner.get(`/console/alerts/${alertId}`);
    expect(page.body).toContain(`action="/console/alerts/${alertId}/confirm-again"`);
    expect(page.body).not.toContain(`action="/console/alerts/${alertId}/test"`);
    const again = await owner.post(`/console/alerts/${alertId}/confirm-again`, {});
    expect([again.status, again.location]).toEqual([303, `/console/alerts/${alertId}?notice=alert-confirmation-sent`]);
    await owner.post(`/console/alerts/${alertId}/confirm-again`, {});
    const refused = await owner.post(`/console/alerts/${alertId}/confirm-again`, {});
    expect(refused.status).toBe(400);
    expect(refusal(refused.body)).toMatch(/^This alert has had 3 confirmation e-mails in the last 24 hours, the most allowed: the next can be sent at .* UTC \(in 24 h\)\.$/);
  });

  test("every POST needs the page's CSRF token and the server's origin", async () => {
    const before = (await server.app.alerts.list(OWNER)).length;
    const alertId = (await server.app.alerts.list(OWNER)).find((a) => a.name === "Dawn patrol")!.id;
    const queued = await server.app.alerts.deliveries(alertId);
    expect((await owner.post("/console/alerts", form({}), { csrf: null })).status).toBe(403);
    expect((await owner.post(`/console/alerts/${alertId}/delete`, {}, { csrf: other.csrf })).status).toBe(403);
    expect((await owner.post(`/console/alerts/${alertId}/test`, {}, { origin: "https://evil.example" })).status).toBe(403);
    expect(await server.app.alerts.list(OWNER)).toHaveLength(before);
    expect(await server.app.alerts.deliveries(alertId)).toEqual(queued);
  });

  test("a test event, its failed delivery in the log, and send again", async () => {
    const alertId = (await server.app.alerts.list(OWNER)).find((a) => a.name === "Dawn patrol")!.id;
    await owner.get(`/console/alerts/${alertId}`);
    const queued = await owner.post(`/console/alerts/${alertId}/test`, {});
    expect([queued.status, queued.location]).toEqual([303, `/console/alerts/${alertId}?notice=alert-test-queued`]);
    expect(text((await owner.get(queued.location!)).body)).toContain("waiting to be sent");
    // The first evaluations, when the alerts were made, queued their windows, and the e-mail alerts their
    // confirmations (refused here: no SMTP): they go out with the test, one delivery per target a round.
    await drainOutbox();

    // The receiver answered 500: a retry is pending, so nothing is offered to send again yet.
    // Each row names its event's window in the spot's time, so the week's first windows are told apart.
    // Times in the spot's local time with its zone's abbreviation: the attempt's, and the event's window.
    const T = "[A-Z][a-z]{2} \\d{1,2} [A-Z][a-z]{2} \\d\\d:\\d\\d WES?T";
    const W = "[A-Z][a-z]{2} \\d{1,2} [A-Z][a-z]{2} \\d\\d:\\d\\d–(?:[A-Z][a-z]{2} \\d{1,2} [A-Z][a-z]{2} )?\\d\\d:\\d\\d WES?T";
    const retrying = testRows((await owner.get(`/console/alerts/${alertId}`)).body);
    expect(retrying).toHaveLength(2);
    expect(retrying[0]).toMatch(new RegExp(`^${T} test ${W} 2 waiting to be sent$`));
    expect(retrying[1]).toMatch(new RegExp(`^${T} test ${W} 1 failed 500 HTTP 500$`));
    // A day later the retries have ended with the second attempt: that one may be sent again.
    clock.advance(25 * 3_600_000);
    await drainOutbox();
    const ended = testRows((await owner.get(`/console/alerts/${alertId}`)).body);
    expect(ended).toHaveLength(2);
    expect(ended[0]).toMatch(new RegExp(`^${T} test ${W} 2 failed 500 HTTP 500 Send again attempt 2 of .*$`));
    expect(ended[1]).toMatch(new RegExp(`^${T} test ${W} 1 failed 500 HTTP 500$`));
    const testDeliveries = async () => (await server.app.alerts.deliveries(alertId)).filter((d) => d.kind === "test");
    const [second, first] = await testDeliveries();
    const earlier = await owner.post(`/console/alerts/${alertId}/deliveries/${first!.id}/send-again`, {});
    expect([earlier.status, refusal(earlier.body)]).toEqual([400, `Only a failed delivery that is not being retried already, of an alert that is on, can be sent again, up to ${MAX_ATTEMPTS_PER_EVENT} attempts in all.`]);
    const again = await owner.post(`/console/alerts/${alertId}/deliveries/${second!.id}/send-again`, {});
    expect([again.status, again.location]).toEqual([303, `/console/alerts/${alertId}?notice=alert-sent-again`]);
    expect((await testDeliveries()).map((d) => [d.attempt, d.outcome])).toEqual([[3, "pending"], [2, "failed"], [1, "failed"]]);
    // A receiver that always fails is no target without end: an event has MAX_ATTEMPTS_PER_EVENT attempts in all.
    for (let attempt = 3; attempt < MAX_ATTEMPTS_PER_EVENT; attempt++) {
      await drainOutbox();
      const [latest] = await testDeliveries();
      expect([latest!.attempt, latest!.outcome]).toEqual([attempt, "failed"]);
      expect((await owner.post(`/console/alerts/${alertId}/deliveries/${latest!.id}/send-again`, {})).status).toBe(303);
    }
    await drainOutbox();
    const [last] = await testDeliveries();
    expect([last!.attempt, last!.outcome]).toEqual([MAX_ATTEMPTS_PER_EVENT, "failed"]);
    const spent = await owner.post(`/console/alerts/${alertId}/deliveries/${last!.id}/send-again`, {});
    expect([spent.status, refusal(spent.body)]).toEqual([400, `Only a failed delivery that is not being retried already, of an alert that is on, can be sent again, up to ${MAX_ATTEMPTS_PER_EVENT} attempts in all.`]);
  });

  test("another account's alert is as absent as an unknown one: not listed, no log, no test, not deleted", async () => {
    const list = await owner.get("/console/alerts");
    expect(list.body).not.toContain("Their secret spot");
    for (const path of [`/console/alerts/${otherAlertId}`, `/console/alerts/${otherAlertId}/delete`, "/console/alerts/alert_0000000000000000", "/console/alerts/not-an-id"]) {
      expect([path, (await owner.get(path)).status]).toEqual([path, 404]);
    }
    expect((await owner.post(`/console/alerts/${otherAlertId}/delete`, {})).status).toBe(404);
    expect((await owner.post(`/console/alerts/${otherAlertId}/test`, {})).status).toBe(404);
    expect(await server.app.alerts.list(OTHER)).toHaveLength(1);
    expect((await server.app.alerts.deliveries(otherAlertId)).filter((d) => d.kind !== "confirmation")).toEqual([]);
    expect(text((await other.get("/console/alerts")).body)).toContain("Their secret spot");
  });

  test("delete asks first, then the alert is gone", async () => {
    const alertId = (await server.app.alerts.list(OWNER)).find((a) => a.name === "Mail me")!.id;
    const ask = await owner.get(`/console/alerts/${alertId}/delete`);
    expect(ask.status).toBe(200);
    expect(text(ask.body)).toContain("Delete the alert Mail me at Supertubos?");
    const done = await owner.post(`/console/alerts/${alertId}/delete`, {});
    expect([done.status, done.location]).toEqual([303, "/console/alerts?notice=alert-deleted"]);
    expect((await server.app.alerts.list(OWNER)).map((a) => a.id)).not.toContain(alertId);
    expect((await owner.get(`/console/alerts/${alertId}`)).status).toBe(404);
  });
});

describe("alerts page in a browser", () => {
  let browser: Browser;
  const shots = screenshotDir();
  const problems: string[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });

  /** axe, small text and no sideways scrolling at 1280 and 390 px; screenshots when asked. */
  async function checkWidths(page: Page, name: string): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      expect([name, width, await seriousViolations(page)]).toEqual([name, width, []]);
      expect([name, width, await smallText(page)]).toEqual([name, width, []]);
      const scrolls = (await page.evaluate("document.documentElement.scrollWidth > document.documentElement.clientWidth")) as boolean;
      expect([name, width, scrolls]).toEqual([name, width, false]);
      if (shots) await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  test("the page renders axe-clean at 1280 and 390 px, and an alert is made through the form", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: "surfcast_session", value: owner.cookie("surfcast_session")!, url: server.url }]);
    const page = await context.newPage();
    page.on("console", (m) => m.type() === "error" && !/status of (400|201) /.test(m.text()) && problems.push(`console: ${m.text()}`));
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    await page.goto(`${server.url}/console/overview`);
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Alerts" }).click();
    await page.waitForURL(/\/console\/alerts$/);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Alerts");
    await checkWidths(page, "alerts");

    // A new owner knows the spot's name: typed where the id goes, it is searched for and picked.
    await page.getByLabel(/^Or the spot id/).fill("supertubo");
    await page.getByLabel(/^Webhook URL or e-mail address/).fill("http://10.0.0.8/hook");
    await page.getByLabel(/^Name/).fill("Lunch session");
    await page.getByLabel(/^Min wave/).fill("0.5");
    await page.getByLabel(/^Min rating/).selectOption("2");
    await page.getByRole("checkbox", { name: "offshore" }).check();
    await page.getByRole("checkbox", { name: "cross" }).check();
    await page.getByRole("checkbox", { name: /^Daylight only/ }).check();
    await page.getByRole("button", { name: "Create alert" }).click();
    await page.waitForLoadState();
    expect(await page.getByRole("alert").textContent()).toBe('There is no spot with the id "supertubo": pick it among the spots found by name below.');
    await page.getByRole("radio", { name: /^Supertubos/ }).check();
    await checkWidths(page, "alerts-found");
    await page.getByRole("button", { name: "Create alert" }).click();
    await page.waitForLoadState();
    // Refused: one sentence at the top of the page, everything as typed and picked.
    expect(await page.getByRole("alert").textContent()).toBe("The webhook URL cannot be used: 10.0.0.8 is a private address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS.");
    expect(await page.getByRole("checkbox", { name: "cross" }).isChecked()).toBe(true);
    expect(await page.getByRole("radio", { name: /^Supertubos/ }).isChecked()).toBe(true);
    expect(await page.getByLabel(/^Name/).inputValue()).toBe("Lunch session");
    await checkWidths(page, "alerts-refused");

    await page.getByLabel(/^Webhook URL or e-mail address/).fill(hook);
    await page.getByRole("button", { name: "Create alert" }).click();
    await page.waitForURL(/\/console\/alerts#new-alert-title$/);
    expect(await page.getByRole("heading", { name: /Your new alert “Lunch session”/ }).isVisible()).toBe(true);
    expect(await page.locator("#new-alert-secret").textContent()).toMatch(/^whsec_/);
    const secret = (await page.locator("#new-alert-secret").textContent())!;
    const made = (await server.app.alerts.list(OWNER)).find((a) => a.name === "Lunch session")!;
    expect(made.condition).toEqual({ minWave: 0.5, rating: { min: 2, level: "intermediate" }, wind: ["offshore", "cross"], daylight: true });
    await checkWidths(page, "alerts-created");
    // A reload makes no second alert and shows the secret no more.
    await page.reload();
    expect(await page.content()).not.toContain(secret);
    expect((await server.app.alerts.list(OWNER)).filter((a) => a.name === "Lunch session")).toHaveLength(1);

    await page.getByRole("link", { name: "Delivery log of Dawn patrol" }).click();
    await page.waitForURL(/\/console\/alerts\/alert_[0-9a-f]{16}$/);
    await checkWidths(page, "alerts-log");
    // Made just now, Lunch session's first windows are in its log already, each row naming its window in the spot's time.
    await page.goto(`${server.url}/console/alerts/${made.id}`);
    expect(await page.locator("tbody tr").first().textContent()).toMatch(/window[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2} \d\d:\d\d–/);
    await checkWidths(page, "alerts-log-windows");
    await context.close();
    expect(problems).toEqual([]);
  }, 90_000);
});
