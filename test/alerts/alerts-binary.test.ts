/**
 * Condition alerts through the compiled binary, against the fake Open-Meteo and webhook receivers on 127.0.0.1:
 * the address rule and its setting, create's output, a refresh with no server sending what it queued (signed,
 * once, nothing for a condition never met), a failed attempt's retry (same webhook-id, due 30 s later, sent by the
 * server's outbox), a second refresh of the same window sending nothing new while a server runs, the calendar feed
 * and an e-mail's unsubscribe link (the e-mail alert confirmed first: until then its address gets only the
 * confirmation).
 *
 * The retry's 30 s wait is not slept through: the test reads the queued retry in the database (its event id and
 * due time), makes it due, and then checks that a running server's outbox sends it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { BINARY } from "../support/env";
import { cli, installDir, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { expectHeadLikeGet } from "../support/head";
import { startReceiver, type Receiver } from "./delivery/receiver";

const EMAIL = "rider@example.com";
const HOUR = 3_600_000;
const PUBLIC = "http://surf.test";
const ALLOWED = { SURFCAST_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" };

let fake: FakeOpenMeteo;
let smtp: SmtpSink;
let env: Record<string, string>;
const receivers: Receiver[] = [];
let server: RunningServer | undefined;
const dir = installDir("alerts-binary");
let keyId: string;
let spot: string;

beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  smtp = await startSmtpSink();
  env = { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_PUBLIC_URL: PUBLIC, SURFCAST_SMTP_URL: smtp.url, SURFCAST_SMTP_FROM: "surf@surf.test" };
  expect(cli(dir, ["accounts", "create", EMAIL, "--plan", "pro"], env).code).toBe(0);
  const made = cli(dir, ["keys", "create", EMAIL, "--name", "phone"], env);
  keyId = /created key (key_[0-9a-f]{16})/.exec(made.stdout)![1]!;
  const db = new Database(join(dir, "surfcast.db"), { readonly: true });
  // The catalog spot nearest the fake's Supertubos series.
  spot = (db.query("SELECT id FROM spots ORDER BY (lat - 39.344) * (lat - 39.344) + (lng + 9.363) * (lng + 9.363) LIMIT 1").get() as { id: string }).id;
  db.close();
});
afterAll(async () => {
  await server?.stop();
  for (const r of receivers) r.stop();
  await smtp?.close();
  await fake?.close();
});

function receiver(answers?: Parameters<typeof startReceiver>[0]): Receiver {
  const r = startReceiver(answers);
  receivers.push(r);
  return r;
}

/** Async, so the in-process fakes keep answering while the binary runs. */
async function refresh(): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([BINARY, "--data-dir", dir, "refresh", "--spots", spot], { env: { ...process.env, ...env, ...ALLOWED }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

interface Created {
  id: string;
  secret: string | null;
  calendarUrl: string;
}

function create(...flags: string[]): Created {
  const r = cli(dir, ["alerts", "create", keyId, "--spot", spot, ...flags], { ...env, ...ALLOWED });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const lines = r.stdout.trim().split("\n");
  const id = lines.find((l) => /^alert_[0-9a-f]{16}$/.test(l));
  const calendarUrl = /calendar feed \(secret, shown once\): (\S+)/.exec(r.stdout)?.[1];
  expect(id).toBeDefined();
  expect(calendarUrl).toBeDefined();
  const last = lines.at(-1)!;
  return { id: id!, secret: last.startsWith("whsec_") ? last : null, calendarUrl: calendarUrl! };
}

interface Listed {
  id: string;
  enabled: boolean;
  nextWindows: { start: string; end: string }[] | null;
}

function listed(id: string): Listed {
  const r = cli(dir, ["alerts", "list", EMAIL, "--json"], env);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as Listed[]).find((a) => a.id === id)!;
}

interface DeliveryRow {
  event_id: string;
  attempt: number;
  scheduled_at: number;
  attempted_at: number | null;
  status_code: number | null;
  outcome: string;
}

function deliveries(alertId: string): DeliveryRow[] {
  const db = new Database(join(dir, "surfcast.db"), { readonly: true });
  const rows = db.query("SELECT event_id, attempt, scheduled_at, attempted_at, status_code, outcome FROM alert_deliveries WHERE alert_id = ? ORDER BY attempt").all(alertId) as DeliveryRow[];
  db.close();
  return rows;
}

async function until(what: string, done: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

const verified = (secret: string, headers: Record<string, string>, body: string) =>
  new Webhook(secret).verify(body, { "webhook-id": headers["webhook-id"]!, "webhook-timestamp": headers["webhook-timestamp"]!, "webhook-signature": headers["webhook-signature"]! });

/** A calendar's UTC date-time, as DTSTART writes it. */
const icsTime = (iso: string) => new Date(iso).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");

describe("condition alerts (compiled binary)", () => {
  const always = receiver();
  const never = receiver();
  const flaky = receiver([500, 204]);
  let alwaysAlert: Created;
  let neverAlert: Created;
  let flakyAlert: Created;
  let mailAlert: Created;

  test("operator mistakes: a loopback webhook without the setting, a bad setting: one line, exit 2", () => {
    const refused = cli(dir, ["alerts", "create", keyId, "--spot", spot, "--webhook", `${always.url}/hook`], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("SURFCAST_WEBHOOK_ALLOWED_NETWORKS");
    expect(refused.stderr).not.toContain("    at ");
    expect(refused.stdout).toBe("");

    const bad = cli(dir, ["alerts", "list", EMAIL], { ...env, SURFCAST_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/99" });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toContain("SURFCAST_WEBHOOK_ALLOWED_NETWORKS");
    expect(bad.stderr).not.toContain("    at ");
    // Nothing was made.
    expect(cli(dir, ["alerts", "list", EMAIL], env).stdout.trim()).toBe("no alerts");
  });

  test("create prints the id and, for a webhook, the whsec_ secret on its last line", () => {
    alwaysAlert = create("--webhook", `${always.url}/always`, "--min-wave", "0.1");
    neverAlert = create("--webhook", `${never.url}/never`, "--min-wave", "30");
    flakyAlert = create("--webhook", `${flaky.url}/flaky`, "--min-wave", "0.1");
    mailAlert = create("--email", "surfer@example.com", "--min-wave", "0.1", "--name", "Peniche mail");
    for (const a of [alwaysAlert, neverAlert, flakyAlert]) expect(a.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(mailAlert.secret).toBeNull();
    expect(alwaysAlert.calendarUrl).toMatch(new RegExp(`^${PUBLIC}/alerts/calendar/[A-Za-z0-9_-]{43}\\.ics$`));
  });

  test("a refresh with no server running sends what it queued: once, signed, naming the spot and the window", async () => {
    const r = await refresh();
    expect(r.code).toBe(0);
    // The e-mail alert's address gets its confirmation, and no window until that is opened.
    await until("the deliveries", () => always.received.length >= 1 && flaky.received.length >= 1 && smtp.messages.length >= 1);
    expect(smtp.messages[0]!.raw).toContain("Subject: Confirm surf alerts");
    expect(always.received).toHaveLength(1);
    expect(never.received).toHaveLength(0);

    const { headers, body, path } = always.received[0]!;
    expect(path).toBe("/always");
    expect(() => verified(alwaysAlert.secret!, headers, body)).not.toThrow();
    // Another alert's secret does not verify it.
    expect(() => verified(flakyAlert.secret!, headers, body)).toThrow();
    const event = JSON.parse(body) as { type: string; timestamp: string; alert: { id: string }; spot: { id: string }; window: { start: string; end: string } };
    const window = listed(alwaysAlert.id).nextWindows![0]!;
    // Every hour matches: the window starts with the hour under way at the evaluation and ends with the forecast.
    const hourUnderWay = new Date(Math.floor(Date.parse(event.timestamp) / HOUR) * HOUR).toISOString().replace(".000Z", "Z");
    expect(event).toMatchObject({ type: "alert.window", alert: { id: alwaysAlert.id }, spot: { id: spot }, window: { start: hourUnderWay, end: window.end } });
    expect(listed(neverAlert.id).nextWindows).toEqual([]);
  }, 30_000);

  test("a failed first attempt is queued again 30 s later with the same event id", () => {
    expect(flaky.received).toHaveLength(1);
    const [first, retry] = deliveries(flakyAlert.id);
    expect(first).toMatchObject({ attempt: 1, status_code: 500, outcome: "failed" });
    expect(first!.event_id).toBe(flaky.received[0]!.headers["webhook-id"]!);
    expect(retry).toMatchObject({ attempt: 2, outcome: "pending", event_id: first!.event_id });
    const wait = retry!.scheduled_at - first!.attempted_at!;
    expect(wait).toBeGreaterThanOrEqual(30_000);
    expect(wait).toBeLessThan(35_000);
  });

  test("a running server's outbox sends the retry when due: same webhook-id and body, still verifying", async () => {
    // Due now instead of in 30 s: the schedule is checked above, the sending here.
    const db = new Database(join(dir, "surfcast.db"));
    db.query("UPDATE alert_deliveries SET scheduled_at = ? WHERE alert_id = ? AND outcome = 'pending'").run(Date.now() - 1, flakyAlert.id);
    db.close();
    server = await startServer({ dataDir: dir, env: { ...env, ...ALLOWED } });
    await until("the retry", () => flaky.received.length >= 2);
    const [first, second] = flaky.received;
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]!);
    expect(second!.body).toBe(first!.body);
    expect(() => verified(flakyAlert.secret!, second!.headers, second!.body)).not.toThrow();
    await until("the retry's record", () => deliveries(flakyAlert.id)[1]?.outcome === "delivered");
    expect(deliveries(flakyAlert.id)).toHaveLength(2);
  }, 30_000);

  test("a second refresh of the same window sends nothing new (while a server runs, the server sends)", async () => {
    // A new alert, and the e-mail alert now confirmed, show the server does send what this refresh queues.
    const confirm = /\/alerts\/confirm\/[A-Za-z0-9_-]{43}/.exec(smtp.messages[0]!.raw.replace(/=\r?\n/g, ""))![0];
    expect((await fetch(server!.url + confirm)).status).toBe(200);
    const fresh = receiver();
    const freshAlert = create("--webhook", `${fresh.url}/fresh`, "--min-wave", "0.1");
    const r = await refresh();
    expect(r.code).toBe(0);
    await until("the new alert's delivery", () => fresh.received.length >= 1 && smtp.messages.length >= 2);
    expect(() => verified(freshAlert.secret!, fresh.received[0]!.headers, fresh.received[0]!.body)).not.toThrow();
    // One more outbox round for anything else queued.
    await Bun.sleep(5_500);
    expect(fresh.received).toHaveLength(1);
    expect(always.received).toHaveLength(1);
    expect(never.received).toHaveLength(0);
    expect(flaky.received).toHaveLength(2);
    // The confirmation, then the window.
    expect(smtp.messages).toHaveLength(2);
    expect(deliveries(alwaysAlert.id)).toHaveLength(1);
  }, 30_000);

  test("the calendar feed answers text/calendar with the window while the server runs", async () => {
    const before = listed(alwaysAlert.id).nextWindows![0]!;
    const res = await fetch(server!.url + new URL(alwaysAlert.calendarUrl).pathname);
    const after = listed(alwaysAlert.id).nextWindows![0]!;
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/calendar");
    const feed = await res.text();
    expect(feed.match(/BEGIN:VEVENT/g)).toHaveLength(1);
    // The window as listed just before or just after (an hour may end in between).
    expect([before.start, after.start].map((start) => `DTSTART:${icsTime(start)}`)).toContainEqual(/DTSTART:\S+/.exec(feed)![0]);
    expect(feed).toContain(`DTEND:${icsTime(after.end)}`);
    expect((await fetch(server!.url + "/alerts/calendar/" + "x".repeat(43) + ".ics")).status).toBe(404);
    await expectHeadLikeGet(server!.url, new URL(alwaysAlert.calendarUrl).pathname);
  });

  test("an e-mail's unsubscribe link: GET (and HEAD, alike) asks, POST switches the alert off", async () => {
    const raw = smtp.messages[1]!.raw.replace(/=\r?\n/g, "").replace(/\r?\n[ \t]+/g, " ");
    expect(smtp.messages[1]!.to).toEqual(["surfer@example.com"]);
    const path = /\/alerts\/unsubscribe\/[A-Za-z0-9_-]{43}/.exec(raw)?.[0];
    expect(path).toBeDefined();
    const page = await fetch(server!.url + path);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Peniche mail");
    await expectHeadLikeGet(server!.url, path!);
    // Asking (GET or HEAD) does not switch it off.
    expect(listed(mailAlert.id).enabled).toBe(true);
    const done = await fetch(server!.url + path, { method: "POST" });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("switched off");
    expect(listed(mailAlert.id).enabled).toBe(false);
  });
});
