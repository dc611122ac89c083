/**
 * Alerts cannot be turned on others, through the compiled binary: an e-mail address receives only its confirmation
 * until its link is opened (GET and HEAD), tests are limited (the refusal one line, exit 2, saying when the next is
 * allowed), a revoked key's alert is not tested, the plan counts alerts of revoked keys, a target that never answers
 * does not hold up another account's delivery, and the delivery log is pruned after its keeping time.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { cli, installDir, startServer, type RunningServer } from "../support/binary";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { expectHeadLikeGet } from "../support/head";
import { startReceiver, type Receiver } from "./delivery/receiver";

const PUBLIC = "http://surf.test";
const SPOT = "pipeline";
const DAY = 86_400_000;

let smtp: SmtpSink;
let env: Record<string, string>;
let server: RunningServer | undefined;
const receivers: Receiver[] = [];
const dir = installDir("alerts-abuse-binary");

beforeAll(async () => {
  smtp = await startSmtpSink();
  env = { SURFCAST_PUBLIC_URL: PUBLIC, SURFCAST_SMTP_URL: smtp.url, SURFCAST_SMTP_FROM: "surf@surf.test", SURFCAST_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" };
});
afterAll(async () => {
  await server?.stop();
  for (const r of receivers) r.stop();
  await smtp?.close();
});

function receiver(answers?: Parameters<typeof startReceiver>[0]): Receiver {
  const r = startReceiver(answers);
  receivers.push(r);
  return r;
}

/** A new account of this plan with one key; its key id. */
function owner(email: string, plan = "pro"): string {
  expect(cli(dir, ["accounts", "create", email, "--plan", plan], env).code).toBe(0);
  return newKey(email);
}

function newKey(email: string): string {
  const made = cli(dir, ["keys", "create", email, "--name", `k${Math.random().toString(36).slice(2, 8)}`], env);
  expect(made.code).toBe(0);
  return /created key (key_[0-9a-f]{16})/.exec(made.stdout)![1]!;
}

function create(keyId: string, ...flags: string[]): string {
  const r = cli(dir, ["alerts", "create", keyId, "--spot", SPOT, ...flags], env);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.split("\n").find((l) => /^alert_[0-9a-f]{16}$/.test(l))!;
}

/** A refusal: one line on stderr, nothing on stdout, exit 2. */
function refused(args: string[]): string {
  const r = cli(dir, args, env);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).not.toContain("    at ");
  return r.stderr.trim();
}

function sql<T>(run: (db: Database) => T): T {
  const db = new Database(join(dir, "surfcast.db"));
  try {
    return run(db);
  } finally {
    db.close();
  }
}

async function until(what: string, done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** A message's text with quoted-printable soft breaks and folded headers undone. */
const unfolded = (raw: string) => raw.replace(/=\r?\n/g, "").replace(/\r?\n[ \t]+/g, " ");

describe("alerts cannot be turned on others (compiled binary)", () => {
  let mailAlert: string;
  const fast = receiver();
  const hanging = receiver(["hang"]);

  test("an e-mail alert waits for confirmation: listed so, not tested, and its address gets only the confirmation", async () => {
    const keyId = owner("mailer@example.com");
    mailAlert = create(keyId, "--email", "stranger@example.com", "--name", "Surf now");
    expect(cli(dir, ["alerts", "list", "mailer@example.com"], env).stdout).toContain("waiting for confirmation");
    expect(JSON.parse(cli(dir, ["alerts", "list", "mailer@example.com", "--json"], env).stdout)[0]).toMatchObject({ id: mailAlert, waitingForConfirmation: true, enabled: true });
    expect(refused(["alerts", "test", mailAlert])).toContain("is waiting for confirmation: stranger@example.com receives nothing until the link in its confirmation e-mail is opened");

    server = await startServer({ dataDir: dir, env });
    await until("the confirmation e-mail", () => smtp.messages.length >= 1);
    // One more round: nothing else goes to the address.
    await Bun.sleep(5_500);
    expect(smtp.messages).toHaveLength(1);
    const mail = unfolded(smtp.messages[0]!.raw);
    expect(smtp.messages[0]!.to).toEqual(["stranger@example.com"]);
    expect(mail).toContain("Subject: Confirm surf alerts for Pipeline");
    expect(mail).not.toContain("/alerts/unsubscribe/");
  }, 40_000);

  test("its link confirms it (HEAD answers like GET); then a test reaches the address", async () => {
    const path = /\/alerts\/confirm\/[A-Za-z0-9_-]{43}/.exec(unfolded(smtp.messages[0]!.raw))![0];
    expect((await fetch(server!.url + "/alerts/confirm/" + "x".repeat(43))).status).toBe(404);
    const page = await fetch(server!.url + path);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Surf now");
    await expectHeadLikeGet(server!.url, path);
    expect(cli(dir, ["alerts", "list", "mailer@example.com"], env).stdout).not.toContain("waiting for confirmation");
    expect(cli(dir, ["alerts", "test", mailAlert], env).code).toBe(0);
    await until("the test e-mail", () => smtp.messages.length >= 2);
    expect(unfolded(smtp.messages[1]!.raw)).toContain("[Test]");
  }, 20_000);

  test("tests are limited: the fourth within the hour is refused in one line that says when the next is allowed", () => {
    const keyId = owner("tester@example.com");
    const alert = create(keyId, "--webhook", `${fast.url}/limited`);
    for (let i = 0; i < 3; i++) expect(cli(dir, ["alerts", "test", alert], env).code).toBe(0);
    expect(refused(["alerts", "test", alert])).toMatch(new RegExp(`^surfcast: alert ${alert} has had 3 test events in the last hour, the most allowed; the next is allowed at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC \\(in \\d+ min\\)$`));
  });

  test("a revoked key's alert is not tested, and its alerts still count against the plan", () => {
    const keyId = owner("revoker@example.com", "early-access");
    const first = create(keyId, "--webhook", `${fast.url}/revoked-1`);
    create(keyId, "--webhook", `${fast.url}/revoked-2`);
    expect(cli(dir, ["keys", "revoke", keyId], env).code).toBe(0);
    expect(refused(["alerts", "test", first])).toBe(`surfcast: alert ${first}'s key ${keyId} is revoked: nothing is sent for it`);
    const again = newKey("revoker@example.com");
    expect(refused(["alerts", "create", again, "--spot", SPOT, "--webhook", `${fast.url}/revoked-3`])).toContain("already has 2 alerts, the most its plan (early-access) allows");
  });

  test("a target that never answers does not hold up another account's delivery", async () => {
    const slowKey = owner("slow@example.com");
    const slowAlert = create(slowKey, "--webhook", `${hanging.url}/hang`);
    // Thirty events queued to the hanging receiver before anything else (as a flood of windows or tests would be).
    const queued = Date.now() - 60_000;
    sql((db) => {
      const insert = db.query("INSERT INTO alert_deliveries (id, alert_id, event_id, attempt, scheduled_at, outcome, kind, payload) VALUES (?, ?, ?, 1, ?, 'pending', 'test', '{}')");
      for (let i = 0; i < 30; i++) insert.run(`dlv_${i.toString(16).padStart(16, "0")}`, slowAlert, `msg_${i.toString(16).padStart(24, "0")}`, queued + i);
    });
    const politeKey = owner("polite@example.com");
    const politeAlert = create(politeKey, "--webhook", `${fast.url}/polite`);
    const before = fast.received.filter((r) => r.path === "/polite").length;
    const asked = Date.now();
    expect(cli(dir, ["alerts", "test", politeAlert], env).code).toBe(0);
    await until("the polite account's test", () => fast.received.filter((r) => r.path === "/polite").length > before, 9_000);
    // Within a round or two, not behind the hanging receiver's 10 s timeouts.
    expect(Date.now() - asked).toBeLessThan(9_000);
    // One attempt at a time to the hanging target.
    expect(hanging.received.length).toBeLessThanOrEqual(1);
  }, 30_000);

  test("the delivery log keeps 30 days: an older row is pruned by the running server", async () => {
    await server?.stop();
    const old = Date.now() - 31 * DAY;
    sql((db) =>
      db
        .query("INSERT INTO alert_deliveries (id, alert_id, event_id, attempt, scheduled_at, attempted_at, outcome, kind, payload) VALUES ('dlv_0ld0000000000000', ?, 'msg_0ld000000000000000000000', 1, ?, ?, 'delivered', 'window', '{}')")
        .run(mailAlert, old, old),
    );
    server = await startServer({ dataDir: dir, env });
    const present = () => sql((db) => db.query("SELECT count(*) AS n FROM alert_deliveries WHERE id = 'dlv_0ld0000000000000'").get() as { n: number }).n;
    await until("the old row pruned", () => present() === 0, 15_000);
    // The recent log stays.
    expect(sql((db) => (db.query("SELECT count(*) AS n FROM alert_deliveries WHERE alert_id = ?").get(mailAlert) as { n: number }).n)).toBeGreaterThanOrEqual(2);
  }, 40_000);
});
