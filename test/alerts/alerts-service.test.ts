/**
 * The alert service over SQLite and over PostgreSQL (the same table of checks on each): creation's rules and the
 * plan's number, listing with next windows, evaluation after a refresh (each window queued once; a window that
 * disappears and comes back is new; a spot without a forecast keeps its ledger), the outbox calls the delivery
 * runner uses, test events, "send again", unsubscribing, the calendar token, deletion; an e-mail address's
 * confirmation, the limits on tests and confirmations, fair rounds (one delivery per target, accounts in turns),
 * nothing sent for a revoked key or a disabled account, the log pruned after its keeping time; and 10,000 alerts
 * all evaluated (their time is measured in bench/alerts.ts, not asserted here).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAccount, createKey, revokeKey, setAccountDisabled } from "../../src/access/accounts";
import { Refusal, UserError } from "../../src/core/errors";
import { cliWording } from "../../src/cli/wording";
import { consoleWording } from "../../src/console/wording";
import type { AlertRequest } from "../../src/alerts/service";
import { hashKey as hashToken, randomToken as newToken } from "../../src/access/keys";
import type { AlertEvent } from "../../src/alerts/delivery/event";
import { rowOf } from "../../src/alerts/store";
import { deliveryQueue } from "../../src/alerts/queue";
import { Outbox } from "../../src/alerts/delivery/outbox";
import { alerts as sqliteAlerts } from "../../src/db/schema";
import { alerts as postgresAlerts } from "../../src/db/postgres/schema";
import { describeWithPostgres } from "../support/postgres";
import { FIRST, HOUR, iso, NOW, openWorld, PUBLIC, type AlertsWorld } from "../support/alerts";

/** What a refusal says: a rule's own message, or a refusal's facts in the words of the CLI (or of the console, when asked). */
async function refusal(work: Promise<unknown> | (() => Promise<unknown>), wording: (refused: Refusal) => string = cliWording): Promise<string> {
  try {
    await (typeof work === "function" ? work() : work);
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return err instanceof Refusal ? wording(err) : (err as Error).message;
  }
  throw new Error("not refused");
}

const webhook = (spotId: string, fields: Partial<AlertRequest> = {}): AlertRequest => ({ spotId, webhook: "https://hooks.example.com/surf", condition: {}, ...fields });

function suite(engine: "sqlite" | "postgres") {
  let world: AlertsWorld;
  let keyId: string;
  let email: string;
  let n = 0;

  /** A new early-access account (2 alerts) with one key. */
  async function newOwner(plan = "early-access"): Promise<{ keyId: string; email: string; accountId: number }> {
    const address = `owner${++n}@example.com`;
    const account = await createAccount(world.app.stores.access, world.clock, address, plan);
    const key = await createKey(world.app.stores.access, world.clock, address, "alerts");
    return { keyId: key.id, email: address, accountId: account.id };
  }

  /** Confirms an e-mail alert as its link does: its confirmation e-mail recorded as sent with a token, then opened. */
  async function confirmed(alertId: string): Promise<void> {
    const confirmation = (await world.store.deliveriesOf(alertId, 100)).find((d) => d.kind === "confirmation" && d.outcome === "pending")!;
    const token = newToken();
    expect(await world.store.recordAttempt(confirmation.id, { attemptedAt: world.clock.now(), statusCode: null, error: null, outcome: "delivered", confirmTokenHash: hashToken(token) })).toBe(true);
    expect(await world.alerts.confirm(token)).toMatchObject({ outcome: "confirmed", alert: { id: alertId, waitingForConfirmation: false } });
  }

  beforeAll(async () => {
    world = await openWorld(engine, `alerts-${engine}`);
    ({ keyId, email } = await newOwner("pro"));
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  test("create: a webhook alert shows its secret and calendar URL once, and keeps the secret to sign with", async () => {
    const created = await world.alerts.create(keyId, webhook("supertubos", { name: "  Dawn patrol ", condition: { minWave: 1.5, wind: ["cross", "offshore"], daylight: true } }));
    expect(created.id).toMatch(/^alert_[0-9a-f]{16}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.calendarUrl).toMatch(new RegExp(`^${PUBLIC}/alerts/calendar/[A-Za-z0-9_-]{43}\\.ics$`));
    expect(created).toMatchObject({ name: "Dawn patrol", spot: { id: "supertubos", name: "Supertubos" }, delivery: "webhook", target: "https://hooks.example.com/surf", enabled: true });
    expect(created.condition).toEqual({ minWave: 1.5, wind: ["offshore", "cross"], daylight: true });
    expect(world.checked).toContain("https://hooks.example.com/surf");
    const stored = (await world.store.alertById(created.id))!;
    expect(stored.webhookSecret).toBe(created.secret);
    // Only the calendar token's hash is stored: the URL's token finds the alert, and the stored value is not it.
    const token = created.calendarUrl.split("/").at(-1)!.replace(/\.ics$/, "");
    expect(stored.calendarTokenHash).toBe(hashToken(token));
    expect((await world.alerts.calendar(token))?.id).toBe(created.id);
    expect(await world.alerts.calendar(newToken())).toBeNull();
  });

  test("create: an e-mail alert has no secret; its name defaults to the spot's", async () => {
    const created = await world.alerts.create(keyId, { spotId: "pipeline", email: "Surfer@Example.com", condition: {} });
    expect(created).toMatchObject({ secret: null, delivery: "email", target: "Surfer@Example.com", name: "Pipeline" });
  });

  test("create: refusals", async () => {
    const revoked = await newOwner();
    await revokeKey(world.app.stores.access, world.clock, revoked.keyId);
    const cases: [string, () => Promise<unknown>, RegExp][] = [
      ["unknown key", () => world.alerts.create("key_ffffffffffffffff", webhook("pipeline")), /no key with id key_ffffffffffffffff/],
      ["revoked key", () => world.alerts.create(revoked.keyId, webhook("pipeline")), /is revoked; an alert needs an active key/],
      ["unknown spot", () => world.alerts.create(keyId, webhook("atlantis-reef")), /no spot with id "atlantis-reef"/],
      ["both targets", () => world.alerts.create(keyId, { ...webhook("pipeline"), email: "a@example.com" }), /exactly one of --webhook URL and --email ADDRESS/],
      ["no target", () => world.alerts.create(keyId, { spotId: "pipeline", condition: {} }), /exactly one of --webhook URL and --email ADDRESS/],
      ["a refused address", () => world.alerts.create(keyId, webhook("pipeline", { webhook: "http://127.0.0.1:9000/hook" })), /^refused: 127\.0\.0\.1 is a loopback/],
      ["not a URL", () => world.alerts.create(keyId, webhook("pipeline", { webhook: "hooks.example.com/surf" })), /is not a webhook URL/],
      ["not http", () => world.alerts.create(keyId, webhook("pipeline", { webhook: "ftp://hooks.example.com/" })), /is not a webhook URL/],
      ["a bad e-mail", () => world.alerts.create(keyId, { spotId: "pipeline", email: "surfer@", condition: {} }), /"surfer@" is not a valid e-mail address/],
      ["a bad condition", () => world.alerts.create(keyId, webhook("pipeline", { condition: { minRating: 9, level: "advanced" } })), /^minRating must be an integer from 1 to 5$/],
      ["a long name", () => world.alerts.create(keyId, webhook("pipeline", { name: "x".repeat(65) })), /^alertName must have 1 to 64 characters$/],
    ];
    for (const [name, work, expected] of cases) expect({ name, message: await refusal(work) }).toEqual({ name, message: expect.stringMatching(expected) });
  });

  test("the plan's number of alerts: early-access has 2; the console's owner is told in the owner's words", async () => {
    const owner = await newOwner("early-access");
    await world.alerts.create(owner.keyId, webhook("pipeline"));
    await world.alerts.createForAccount(owner.accountId, owner.keyId, webhook("supertubos"));
    expect(await refusal(world.alerts.create(owner.keyId, webhook("praia-da-nazare")))).toBe(
      `account ${owner.email} already has 2 alerts, the most its plan (early-access) allows; delete one first ("surfcast alerts list ${owner.email}")`,
    );
    expect(await refusal(world.alerts.createForAccount(owner.accountId, owner.keyId, webhook("praia-da-nazare")), consoleWording)).toBe("Your plan (early-access) allows 2 alerts and you have 2. Delete one to create another.");
    const other = await newOwner();
    expect(await refusal(world.alerts.createForAccount(other.accountId, owner.keyId, webhook("praia-da-nazare")))).toBe("Choose one of your keys.");
    const [first] = await world.alerts.list(owner.email);
    expect(await world.alerts.deleteForAccount(other.accountId, first!.id)).toBeNull();
    expect((await world.alerts.deleteForAccount(owner.accountId, first!.id))?.id).toBe(first!.id);
    await world.alerts.create(owner.keyId, webhook("praia-da-nazare"));
  });

  test("evaluateNew: only the new alert is evaluated at once, its spot's other alerts are left to the refreshes", async () => {
    const owner = await newOwner("pro");
    await world.forecast("teahupoo", [1, 1, 2, 2, 2, 1]);
    const older = await world.alerts.create(owner.keyId, webhook("teahupoo", { name: "older" }));
    const made = await world.alerts.create(owner.keyId, webhook("teahupoo", { name: "new", condition: { minWave: 2 } }));
    expect(await world.alerts.evaluateNew(made)).toMatchObject({ alerts: 1, queued: 1, spots: 1 });
    expect((await world.store.deliveriesOf(made.id, 10)).map((d) => (JSON.parse(d.payload) as AlertEvent).window.start)).toEqual([iso(FIRST + 2 * HOUR)]);
    expect(await world.store.deliveriesOf(older.id, 10)).toEqual([]);
    // The next refresh's evaluation finds the new alert's window already sent.
    expect((await world.alerts.evaluate(["teahupoo"])).queued).toBe(1);
    expect(await world.store.deliveriesOf(made.id, 10)).toHaveLength(1);
  });

  test("evaluate: a window is queued once; seen again, grown or shifted it sends nothing; gone and back it is new", async () => {
    const owner = await newOwner("pro");
    // A target each: a round takes one delivery per target.
    const always = await world.alerts.create(owner.keyId, webhook("mundaka", { name: "always", webhook: "https://hooks.example.com/always" }));
    const never = await world.alerts.create(owner.keyId, webhook("mundaka", { name: "never", webhook: "https://hooks.example.com/never", condition: { minWave: 20 } }));
    const big = await world.alerts.create(owner.keyId, webhook("mundaka", { name: "big", webhook: "https://hooks.example.com/big", condition: { minWave: 2 } }));
    // 08:00..13:00; 2 m from 10:00 to 12:00.
    await world.forecast("mundaka", [1, 1, 2, 2, 2, 1]);

    const first = await world.alerts.evaluate(["mundaka"]);
    expect(first).toMatchObject({ queued: 2, spots: 1 });
    expect(first.alerts).toBeGreaterThanOrEqual(3);
    const due = (await world.store.dueDeliveries(NOW, 100)).filter((d) => [always.id, never.id, big.id].includes(d.alert.id));
    expect(due.map((d) => d.alert.name).sort()).toEqual(["always", "big"]);
    const bigEvent = JSON.parse(due.find((d) => d.alert.id === big.id)!.delivery.payload) as AlertEvent;
    expect(bigEvent).toEqual({
      type: "alert.window",
      timestamp: new Date(NOW).toISOString(),
      alert: { id: big.id, name: "big" },
      spot: { id: "mundaka", name: "Mundaka", timezone: "Europe/Madrid" },
      window: { start: iso(FIRST + 2 * HOUR), end: iso(FIRST + 5 * HOUR), best: { time: iso(FIRST + 2 * HOUR), waveHeight: 2, wavePeriod: 11, windSpeed: 12, windDirectionType: "offshore", rating: 3 } },
      forecastUrl: `${PUBLIC}/v1/spots/mundaka/forecast`,
    });
    expect(due[0]!.delivery).toMatchObject({ attempt: 1, outcome: "pending", scheduledAt: NOW });
    expect(due[0]!.delivery.eventId).toMatch(/^msg_[0-9a-f]{32}$/);

    const queuedFor = async (id: string) => (await world.store.deliveriesOf(id, 100)).length;
    // The same forecast again: nothing new.
    expect((await world.alerts.evaluate(["mundaka"])).queued).toBe(0);
    // A later refresh: the big window grew by an hour and starts later; it overlaps what was sent.
    world.clock.advance(HOUR);
    await world.forecast("mundaka", [1, 1, 1, 2, 2, 2, 2]);
    expect((await world.alerts.evaluate(["mundaka"])).queued).toBe(0);
    // It disappears...
    await world.forecast("mundaka", [1, 1, 1, 1, 1, 1, 1]);
    expect((await world.alerts.evaluate(["mundaka"])).queued).toBe(0);
    expect((await world.store.alertsToEvaluate(["mundaka"])).find((e) => e.alert.id === big.id)!.announced).toEqual([]);
    // ...and comes back: new.
    await world.forecast("mundaka", [1, 1, 1, 2, 2, 2, 2]);
    expect((await world.alerts.evaluate(["mundaka"])).queued).toBe(1);
    expect(await queuedFor(big.id)).toBe(2);
    expect(await queuedFor(always.id)).toBe(1);
    expect(await queuedFor(never.id)).toBe(0);
    const ledger = (await world.store.alertsToEvaluate(["mundaka"])).find((e) => e.alert.id === big.id)!.announced;
    expect(ledger).toEqual([{ start: FIRST + 3 * HOUR, end: FIRST + 7 * HOUR }]);
    world.clock.set(NOW);
  });

  test("evaluate: a spot without a forecast keeps its ledger; disabled alerts and revoked keys are not evaluated", async () => {
    const owner = await newOwner("pro");
    const alert = await world.alerts.create(owner.keyId, webhook("coxos"));
    await world.forecast("coxos", [1, 1]);
    expect((await world.alerts.evaluate(["coxos"])).queued).toBe(1);
    await world.app.stores.forecasts.writeDocuments(world.clock.now(), []);
    // Another spot list without it: its ledger stays as it was.
    expect((await world.alerts.evaluate(["nowhere-spot"])).alerts).toBe(0);
    expect((await world.store.alertsToEvaluate(["coxos"]))[0]!.announced).toEqual([{ start: FIRST, end: FIRST + 2 * HOUR }]);

    const off = await world.alerts.create(owner.keyId, webhook("coxos", { name: "off" }));
    expect(await world.store.disableAlert(off.id, "gone", NOW)).toBe(true);
    expect(await world.store.disableAlert(off.id, "gone", NOW)).toBe(false);
    expect((await world.alerts.evaluate(["coxos"])).alerts).toBe(1);
    expect((await world.alerts.list(owner.email)).find((a) => a.id === off.id)).toMatchObject({ enabled: false, disabledReason: "gone", disabledAt: new Date(NOW).toISOString() });
    expect(await world.alerts.watchedSpots()).toContain("coxos");
    await revokeKey(world.app.stores.access, world.clock, owner.keyId);
    expect((await world.alerts.evaluate(["coxos"])).alerts).toBe(0);
    expect(await world.alerts.watchedSpots()).not.toContain("coxos");
    expect(await world.store.alertById(alert.id)).not.toBeNull();
  });

  test("list and listForKey show next windows; a spot without a forecast shows null", async () => {
    const owner = await newOwner("pro");
    await world.forecast("uluwatu", [0.5, 2, 2, 0.5], (i) => ({ confidence: { level: i === 2 ? "high" : "low", models: 3, waveHeight: { min: 1, median: 1, max: 1 } } }));
    const sure = await world.alerts.create(owner.keyId, webhook("uluwatu", { condition: { minWave: 1, minConfidence: "high" } }));
    const unknown = await world.alerts.create(owner.keyId, webhook("jefrys"));
    const listed = new Map((await world.alerts.list(owner.email.toUpperCase())).map((a) => [a.id, a.nextWindows?.map((w) => [w.start, w.end]) ?? null]));
    expect(listed).toEqual(
      new Map([
        [sure.id, [[iso(FIRST + 2 * HOUR), iso(FIRST + 3 * HOUR)]]],
        [unknown.id, null],
      ]),
    );
    expect((await world.alerts.listForKey(owner.keyId)).map((a) => a.id).sort()).toEqual([sure.id, unknown.id].sort());
    expect(await world.alerts.listForKey("key_0000000000000000")).toEqual([]);
  });

  test("the outbox: due deliveries, attempts, retries with the same event id, the log, send again, unsubscribe", async () => {
    const owner = await newOwner("pro");
    const mailed = await world.alerts.create(owner.keyId, { spotId: "ribeira-dilhas", email: "rider@example.com", condition: {} });
    await confirmed(mailed.id);
    await world.forecast("ribeira-dilhas", [1, 1, 1]);
    const queued = await world.alerts.test(mailed.id);
    expect(JSON.parse(queued.payload)).toMatchObject({ type: "alert.test", window: { start: iso(FIRST), end: iso(FIRST + 3 * HOUR) } });
    const [due] = (await world.store.dueDeliveries(NOW, 1000)).filter((d) => d.alert.id === mailed.id);
    expect(due!.delivery.id).toBe(queued.id);
    expect(due!.alert.target).toBe("rider@example.com");

    const unsubscribe = newToken();
    expect(await world.store.recordAttempt(queued.id, { attemptedAt: NOW + 1000, statusCode: null, error: "connection refused", outcome: "failed", unsubscribeTokenHash: hashToken(unsubscribe) })).toBe(true);
    expect(await world.store.recordAttempt(queued.id, { attemptedAt: NOW + 2000, statusCode: 200, error: null, outcome: "delivered" })).toBe(false);
    await world.store.scheduleRetry({ ...queued, attempt: 1 }, "dlv_00000000000000aa", NOW + 30_000);
    expect((await world.store.dueDeliveries(NOW + 29_999, 1000)).some((d) => d.delivery.id === "dlv_00000000000000aa")).toBe(false);
    const retry = (await world.store.dueDeliveries(NOW + 30_000, 1000)).find((d) => d.delivery.id === "dlv_00000000000000aa")!.delivery;
    expect(retry).toMatchObject({ eventId: queued.eventId, attempt: 2, payload: queued.payload, outcome: "pending" });
    expect(await world.store.recordAttempt(retry.id, { attemptedAt: NOW + 31_000, statusCode: 204, error: null, outcome: "delivered" })).toBe(true);

    const log = (await world.alerts.deliveries(mailed.id)).filter((d) => d.kind === "test");
    expect(log.map((d) => [d.attempt, d.outcome, d.statusCode, d.error])).toEqual([
      [2, "delivered", 204, null],
      [1, "failed", null, "connection refused"],
    ]);
    world.clock.set(NOW + 60_000);
    const again = await world.alerts.sendAgain(mailed.id, log[1]!.id);
    world.clock.set(NOW);
    expect(again).toMatchObject({ eventId: queued.eventId, attempt: 3, outcome: "pending", scheduledAt: NOW + 60_000 });
    expect((await world.alerts.deliveries(mailed.id)).filter((d) => d.kind === "test").map((d) => d.attempt)).toEqual([3, 2, 1]);
    expect(await refusal(world.alerts.sendAgain(mailed.id, "dlv_ffffffffffffffff"))).toMatch(/no delivery dlv_ffffffffffffffff/);

    expect(await world.alerts.unsubscribe(newToken())).toBeNull();
    expect(await world.alerts.unsubscribe(unsubscribe)).toMatchObject({ id: mailed.id, enabled: false, disabledReason: "unsubscribed" });
  });

  test("the outbox's queue: targets, attempts so far and the first attempt's time; gone switches the alert off and ends its queue", async () => {
    const owner = await newOwner("pro");
    const hooked = await world.alerts.create(owner.keyId, webhook("praia-da-nazare", { name: "hooked", webhook: "https://hooks.example.com/hooked" }));
    const mailed = await world.alerts.create(owner.keyId, { spotId: "praia-da-nazare", email: "mailed@example.com", name: "mailed", condition: {} });
    await confirmed(mailed.id);
    await world.forecast("praia-da-nazare", [1, 1]);
    await world.alerts.evaluate(["praia-da-nazare"]);
    const queue = deliveryQueue(world.store, world.clock);
    const mine = async (at: number) => (await queue.due(new Date(at), 10_000)).filter((d) => d.alertId === hooked.id || d.alertId === mailed.id);
    const first = await mine(NOW);
    expect(new Map<string, unknown>(first.map((d) => [d.alertId, [d.target, d.attempts, d.firstAttemptAt]]))).toEqual(
      new Map<string, unknown>([
        [hooked.id, [{ kind: "webhook", url: "https://hooks.example.com/hooked", secret: hooked.secret }, 0, null]],
        [mailed.id, [{ kind: "email", to: "mailed@example.com" }, 0, null]],
      ]),
    );
    const hook = first.find((d) => d.alertId === hooked.id)!;
    expect(JSON.parse(hook.body)).toMatchObject({ type: "alert.window", alert: { id: hooked.id } });

    await queue.recordAttempt(hook, { outcome: "failed", status: 503, error: "503 Service Unavailable", durationMs: 5 }, new Date(NOW + 1_000));
    await queue.schedule(hook, new Date(NOW + 31_000));
    const mail = first.find((d) => d.alertId === mailed.id)!;
    await queue.recordAttempt(mail, { outcome: "delivered", unsubscribeTokenHash: hashToken("t"), durationMs: 5 }, new Date(NOW + 1_000));
    await queue.schedule(mail, null);
    expect(await mine(NOW + 30_999)).toEqual([]);
    const [retry] = await mine(NOW + 31_000);
    expect(retry).toMatchObject({ alertId: hooked.id, eventId: hook.eventId, body: hook.body, attempts: 1, firstAttemptAt: new Date(NOW + 1_000) });

    await queue.recordAttempt(retry!, { outcome: "gone", status: 410, durationMs: 5 }, new Date(NOW + 32_000));
    await queue.disableAlert(hooked.id, "the webhook receiver answered 410 Gone");
    await queue.schedule(retry!, null);
    // Another event of the switched-off alert waits in vain: nothing is sent for it.
    await world.alerts.evaluate(["praia-da-nazare"]);
    await world.store.enqueue([{ ...hook.record, id: "dlv_00000000000000c1", eventId: "msg_other", attempt: 1 }]);
    expect(await mine(NOW + 3_600_000)).toEqual([]);
    const log = (await world.alerts.deliveries(hooked.id)).map((d) => `${d.eventId === hook.eventId ? "event" : "other"} ${d.attempt} ${d.outcome} ${d.statusCode}`);
    expect(log.sort()).toEqual(["event 1 failed 503", "event 2 gone 410", "other 1 pending null"]);
    expect(await refusal(world.alerts.test(hooked.id))).toBe(`alert ${hooked.id} is switched off (the webhook receiver answered 410 Gone): nothing is sent for it`);
    expect(await world.alerts.unsubscribe("t")).toMatchObject({ id: mailed.id, enabled: false });
  });

  test("an e-mail address receives only its confirmation until its link is opened; the link expires; webhooks need none", async () => {
    const owner = await newOwner("pro");
    const hooked = await world.alerts.create(owner.keyId, webhook("carcavelos", { webhook: "https://hooks.example.com/confirm-none" }));
    expect(hooked.waitingForConfirmation).toBe(false);
    const mailed = await world.alerts.create(owner.keyId, { spotId: "carcavelos", email: "stranger@example.com", condition: {} });
    expect(mailed.waitingForConfirmation).toBe(true);
    const [confirmation] = await world.store.deliveriesOf(mailed.id, 10);
    expect(confirmation).toMatchObject({ kind: "confirmation", attempt: 1, outcome: "pending", scheduledAt: NOW });
    expect(JSON.parse(confirmation!.payload)).toEqual({ type: "alert.confirmation", alert: { id: mailed.id, name: "Carcavelos" }, spot: { id: "carcavelos", name: "Carcavelos" } });
    expect((await world.alerts.list(owner.email)).find((a) => a.id === mailed.id)).toMatchObject({ waitingForConfirmation: true, enabled: true });
    expect((await world.alerts.listForKey(owner.keyId)).find((a) => a.id === mailed.id)).toMatchObject({ waitingForConfirmation: true });

    // Not evaluated, not tested: no window or test is queued for it; its confirmation is due.
    await world.forecast("carcavelos", [1, 1]);
    await world.alerts.evaluate(["carcavelos"]);
    expect((await world.store.deliveriesOf(mailed.id, 10)).map((d) => d.kind)).toEqual(["confirmation"]);
    expect(await refusal(world.alerts.test(mailed.id))).toBe(`alert ${mailed.id} is waiting for confirmation: stranger@example.com receives nothing until the link in its confirmation e-mail is opened`);
    expect(await refusal(world.alerts.test(mailed.id), consoleWording)).toStartWith("This alert is waiting for confirmation");
    expect((await world.store.dueDeliveries(NOW, 1000)).filter((d) => d.alert.id === mailed.id).map((d) => d.delivery.kind)).toEqual(["confirmation"]);
    // A window queued all the same (by an older server) waits: only the confirmation goes out to an unconfirmed address.
    await world.store.enqueue([{ ...confirmation!, id: "dlv_00000000000000d1", eventId: "msg_d1", kind: "window", scheduledAt: NOW - 1 }]);
    expect((await world.store.dueDeliveries(NOW, 1000)).filter((d) => d.alert.id === mailed.id).map((d) => d.delivery.kind)).toEqual(["confirmation"]);

    // The link: the token's hash is recorded when the e-mail is sent; past its days it no longer confirms.
    const token = newToken();
    await world.store.recordAttempt(confirmation!.id, { attemptedAt: NOW, statusCode: null, error: null, outcome: "delivered", confirmTokenHash: hashToken(token) });
    expect((await world.store.alertById(mailed.id))!.confirmTokenHash).toBe(hashToken(token));
    expect(await world.alerts.confirm(newToken())).toBeNull();
    world.clock.set(NOW + 7 * 24 * HOUR + 1);
    expect(await world.alerts.confirm(token)).toMatchObject({ outcome: "expired", alert: { waitingForConfirmation: true } });
    world.clock.set(NOW + HOUR);
    expect(await world.alerts.confirm(token)).toMatchObject({ outcome: "confirmed", alert: { id: mailed.id, waitingForConfirmation: false } });
    // Opened again: still confirmed, from the first time.
    expect(await world.alerts.confirm(token)).toMatchObject({ outcome: "confirmed" });
    expect((await world.store.alertById(mailed.id))!.confirmedAt).toBe(NOW + HOUR);
    expect((await world.alerts.evaluate(["carcavelos"])).queued).toBeGreaterThanOrEqual(1);
    expect(await refusal(world.alerts.resendConfirmation(mailed.id))).toMatch(/needs no confirmation/);
    world.clock.set(NOW);
  });

  test("tests are limited per alert and per account; the refusal says when the next is allowed", async () => {
    const owner = await newOwner("pro");
    const made = await Promise.all([0, 1, 2, 3].map((i) => world.alerts.create(owner.keyId, webhook("baleal", { name: `limited ${i}`, webhook: `https://hooks.example.com/limited-${i}` }))));
    const [a, b, c, d] = made.map((m) => m.id) as [string, string, string, string];
    for (let i = 0; i < 3; i++) {
      world.clock.set(NOW + i * 60_000);
      await world.alerts.test(a);
    }
    world.clock.set(NOW + 5 * 60_000);
    expect(await refusal(world.alerts.test(a))).toBe(`alert ${a} has had 3 test events in the last hour, the most allowed; the next is allowed at ${iso(NOW + HOUR).slice(0, 16).replace("T", " ")} UTC (in 55 min)`);
    expect(await refusal(world.alerts.test(a), consoleWording)).toBe(`This alert has had 3 test events in the last hour, the most allowed: the next can be sent at ${iso(NOW + HOUR).slice(0, 16).replace("T", " ")} UTC (in 55 min).`);
    for (const id of [b, b, b, c, c, c, d]) await world.alerts.test(id);
    expect(await refusal(world.alerts.test(d))).toMatch(/^its account has had 10 test events in the last hour, the most allowed; the next is allowed at .* UTC \(in 55 min\)$/);
    // An hour after the first: allowed again.
    world.clock.set(NOW + HOUR + 1);
    expect((await world.alerts.test(a)).kind).toBe("test");
    world.clock.set(NOW);
  });

  test("a confirmation is sent again at most twice a day after the first", async () => {
    const owner = await newOwner("pro");
    const mailed = await world.alerts.create(owner.keyId, { spotId: "baleal", email: "twice@example.com", condition: {} });
    world.clock.set(NOW + 60_000);
    await world.alerts.resendConfirmation(mailed.id);
    await world.alerts.resendConfirmation(mailed.id);
    expect(await refusal(world.alerts.resendConfirmation(mailed.id))).toMatch(/^alert alert_[0-9a-f]{16} has had 3 confirmation e-mails in the last 24 hours, the most allowed; the next is allowed at .* UTC \(in 24 h\)$/);
    world.clock.set(NOW);
  });

  test("a round is fair: one delivery per target, accounts in turns; nothing for a revoked key or a disabled account", async () => {
    const noisy = await newOwner("pro");
    const quiet = await newOwner("pro");
    const slow = await world.alerts.create(noisy.keyId, webhook("coxos", { webhook: "https://slow.example.com/hook" }));
    const other = await world.alerts.create(noisy.keyId, webhook("coxos", { webhook: "https://other.example.com/hook" }));
    const polite = await world.alerts.create(quiet.keyId, webhook("coxos", { webhook: "https://polite.example.com/hook" }));
    const base = { attempt: 1, attemptedAt: null, statusCode: null, error: null, outcome: "pending" as const, kind: "window" as const, payload: "{}", unsubscribeTokenHash: null };
    // Forty deliveries to one slow target queued first, then one each to the others.
    await world.store.enqueue(Array.from({ length: 40 }, (_, i) => ({ ...base, id: `dlv_f${i.toString(16).padStart(15, "0")}`, alertId: slow.id, eventId: `msg_f${i}`, scheduledAt: NOW - 1000 + i })));
    await world.store.enqueue([{ ...base, id: "dlv_e000000000000001", alertId: other.id, eventId: "msg_e1", scheduledAt: NOW - 10 }]);
    await world.store.enqueue([{ ...base, id: "dlv_e000000000000002", alertId: polite.id, eventId: "msg_e2", scheduledAt: NOW }]);
    const ours = new Set([slow.id, other.id, polite.id]);
    const round = async (limit: number) => (await world.store.dueDeliveries(NOW, limit)).filter((d) => ours.has(d.alert.id)).map((d) => d.delivery.id);
    expect((await round(1000)).sort()).toEqual(["dlv_e000000000000001", "dlv_e000000000000002", "dlv_f000000000000000"]);
    // Each account's earliest first: the quiet account's one comes before the noisy account's second.
    const turns = (await world.store.dueDeliveries(NOW, 1000)).map((d) => d.delivery.id);
    expect(turns.indexOf("dlv_e000000000000002")).toBeLessThan(turns.indexOf("dlv_e000000000000001"));

    await setAccountDisabled(world.app.stores.access, quiet.email, true);
    expect((await round(1000)).sort()).toEqual(["dlv_e000000000000001", "dlv_f000000000000000"]);
    await revokeKey(world.app.stores.access, world.clock, noisy.keyId);
    expect(await round(1000)).toEqual([]);
    expect(await refusal(world.alerts.test(slow.id))).toBe(`alert ${slow.id}'s key ${noisy.keyId} is revoked: nothing is sent for it`);
    expect(await refusal(world.alerts.test(polite.id))).toBe(`account ${quiet.email} is disabled: nothing is sent for its alerts`);
  });

  test("two senders at once send each due delivery once (each claims before it sends); one without SMTP leaves e-mails to others, unrefused", async () => {
    const owner = await newOwner("pro");
    const hooks = await Promise.all(["a", "b", "c"].map((name) => world.alerts.create(owner.keyId, webhook("coxos", { webhook: `https://claims.example.com/${name}` }))));
    const mailed = await world.alerts.create(owner.keyId, { spotId: "coxos", email: "claims@example.com", condition: {} });
    const ours = new Set([...hooks.map((h) => h.id), mailed.id]);
    const base = { attempt: 1, attemptedAt: null, statusCode: null, error: null, outcome: "pending" as const, kind: "window" as const, payload: "{}", unsubscribeTokenHash: null, scheduledAt: NOW - 1 };
    await world.store.enqueue(hooks.map((h, i) => ({ ...base, id: `dlv_c${i.toString(16).padStart(15, "0")}`, alertId: h.id, eventId: `msg_c${i}` })));
    const sent: string[] = [];
    // This test's deliveries only: the world's other tests leave theirs due.
    const queue = deliveryQueue(world.store, world.clock);
    const sender = () =>
      new Outbox({
        queue: { ...queue, due: async (now, limit) => (await queue.due(now, 1000)).filter((d) => ours.has(d.alertId)).slice(0, limit) },
        clock: world.clock,
        allowed: [],
        publicUrl: PUBLIC,
        otherSenders: true,
        resolve: async () => ["93.184.216.34"],
        fetch: async (url) => {
          sent.push(url);
          await Bun.sleep(20);
          return new Response(null, { status: 204 });
        },
      });
    await Promise.all([sender().runDue(), sender().runDue(), sender().runDue()]);
    expect(sent.sort()).toEqual(["https://claims.example.com/a", "https://claims.example.com/b", "https://claims.example.com/c"]);
    // The e-mail (the address's confirmation) is still pending, for a server with SMTP: none of these refused it.
    const pending = (await world.store.dueDeliveries(NOW, 1000)).filter((d) => ours.has(d.alert.id));
    expect(pending.map((d) => [d.alert.id, d.delivery.kind, d.delivery.outcome])).toEqual([[mailed.id, "confirmation", "pending"]]);
    // Claimed once: three senders asking for the same rows at once get each row once between them.
    const ids = pending.map((d) => d.delivery.id);
    const claims = await Promise.all([0, 1, 2].map(() => world.store.claimDeliveries(ids, NOW, NOW + 60_000)));
    expect(claims.flat()).toEqual(ids);
  });

  test("the plan counts the alerts of revoked keys: revoking a key and making another makes no room", async () => {
    const owner = await newOwner();
    await world.alerts.create(owner.keyId, webhook("pipeline"));
    await world.alerts.create(owner.keyId, webhook("pipeline"));
    await revokeKey(world.app.stores.access, world.clock, owner.keyId);
    const next = await createKey(world.app.stores.access, world.clock, owner.email, "again");
    expect(await refusal(world.alerts.create(next.id, webhook("pipeline")))).toMatch(/already has 2 alerts, the most its plan \(early-access\) allows/);
  });

  test("the delivery log keeps 30 days: older rows are pruned", async () => {
    const owner = await newOwner("pro");
    const alert = await world.alerts.create(owner.keyId, webhook("supertubos", { webhook: "https://hooks.example.com/pruned" }));
    const base = { alertId: alert.id, attempt: 1, attemptedAt: null, statusCode: null, error: null, outcome: "delivered" as const, kind: "window" as const, payload: "{}", unsubscribeTokenHash: null };
    await world.store.enqueue([
      { ...base, id: "dlv_0000000000000a01", eventId: "msg_a01", scheduledAt: NOW - 30 * 24 * HOUR - 1 },
      { ...base, id: "dlv_0000000000000a02", eventId: "msg_a02", scheduledAt: NOW - 30 * 24 * HOUR + 1 },
    ]);
    expect(await world.alerts.pruneDeliveries()).toBeGreaterThanOrEqual(1);
    expect((await world.store.deliveriesOf(alert.id, 10)).map((d) => d.id)).toEqual(["dlv_0000000000000a02"]);
  });

  test("delete takes the ledger and the log with it", async () => {
    const owner = await newOwner("pro");
    const alert = await world.alerts.create(owner.keyId, webhook("baleal"));
    await world.forecast("baleal", [1]);
    await world.alerts.evaluate(["baleal"]);
    expect(await world.store.deliveriesOf(alert.id, 10)).toHaveLength(1);
    expect((await world.alerts.delete(alert.id)).id).toBe(alert.id);
    expect(await world.store.alertById(alert.id)).toBeNull();
    expect(await world.store.deliveriesOf(alert.id, 10)).toEqual([]);
    expect(await refusal(world.alerts.delete(alert.id))).toBe(`no alert with id ${alert.id} ("surfcast alerts list EMAIL" shows the ids)`);
    expect(await refusal(world.alerts.delete("../etc"))).toMatch(/no alert with id/);
  });

  test("an alert deleted while an evaluation ran is left out of its writes, the others are written", async () => {
    const owner = await newOwner("pro");
    const kept = await world.alerts.create(owner.keyId, webhook("baleal", { name: "kept" }));
    const gone = await world.alerts.create(owner.keyId, webhook("baleal", { name: "gone" }));
    await world.alerts.delete(gone.id);
    const window = { start: FIRST, end: FIRST + HOUR };
    const delivery = (alertId: string, id: string) => ({ id, alertId, eventId: `msg_${id}`, attempt: 1, scheduledAt: NOW, attemptedAt: null, statusCode: null, error: null, outcome: "pending" as const, kind: "window" as const, payload: "{}", unsubscribeTokenHash: null });
    await world.store.saveEvaluation(
      [
        { alertId: kept.id, windows: [window] },
        { alertId: gone.id, windows: [window] },
      ],
      [delivery(kept.id, "dlv_00000000000000b1"), delivery(gone.id, "dlv_00000000000000b2")],
    );
    expect((await world.store.alertsToEvaluate(["baleal"])).find((e) => e.alert.id === kept.id)!.announced).toEqual([window]);
    expect((await world.store.deliveriesOf(kept.id, 10)).map((d) => d.id)).toEqual(["dlv_00000000000000b1"]);
    expect(await world.store.deliveriesOf(gone.id, 10)).toEqual([]);
  });

  test("10,000 alerts over 200 spots are all evaluated, and a second evaluation queues nothing (how long they take: bench/)", async () => {
    const owner = await newOwner("pro");
    const spots = world.app.spots.all().slice(0, 200).map((s) => s.id);
    const week = Array.from({ length: 168 }, (_, i) => 0.5 + (i % 24) / 10);
    for (const spot of spots) await world.forecast(spot, week);
    const made = Date.now();
    const rows = Array.from({ length: 10_000 }, (_, i) =>
      rowOf({ id: `alert_${i.toString(16).padStart(16, "0")}`, keyId: owner.keyId, spotId: spots[i % spots.length]!, name: `bulk ${i}`, condition: { minWave: (i % 30) / 10, daylight: i % 2 === 0 }, delivery: "webhook", target: "https://hooks.example.com/bulk", webhookSecret: "whsec_x", calendarTokenHash: `bulk-${i}`, disabledReason: null, disabledAt: null, createdAt: NOW, confirmedAt: NOW, confirmTokenHash: null, confirmSentAt: null }),
    );
    // Written in bulk: one insert each would measure the test's setup, not the evaluation.
    const { engine: stored } = world.app;
    for (let i = 0; i < rows.length; i += 500) {
      if (stored.kind === "sqlite") stored.db.insert(sqliteAlerts).values(rows.slice(i, i + 500)).run();
      else await stored.db.insert(postgresAlerts).values(rows.slice(i, i + 500));
    }
    console.log(`${engine}: 10,000 alerts inserted in ${Date.now() - made} ms`);
    const first = await world.alerts.evaluate(spots);
    console.log(`${engine}: first evaluation of 10,000 alerts: ${first.durationMs} ms, ${first.queued} queued`);
    expect(first.alerts).toBe(10_000);
    expect(first.queued).toBeGreaterThan(10_000);
    const second = await world.alerts.evaluate(spots);
    console.log(`${engine}: second evaluation: ${second.durationMs} ms`);
    expect(second.queued).toBe(0);
  }, 120_000);
}

describe("alerts over SQLite", () => suite("sqlite"));
describeWithPostgres("alerts over PostgreSQL", () => suite("postgres"));
