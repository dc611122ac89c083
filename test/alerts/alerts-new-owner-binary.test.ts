/**
 * A new owner's first alert, through the compiled binary in the `requested` refresh scope (no forecast fetched
 * before anyone asks), as the console makes it: the creation answers POST with a redirect whose page shows the
 * signing secret and the feed once (a reload makes no second alert), the spot nobody asked for is fetched from the
 * fake Open-Meteo at once and its windows show, the first evaluation's webhooks arrive (one per window, told apart
 * in the delivery log by their window in the spot's time), and the operator reads the same log with
 * `surfcast alerts deliveries`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cliAsync, installDir, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { ConsoleClient, text } from "../support/console-client";
import { startReceiver, type Receiver } from "./delivery/receiver";

const EMAIL = "new-owner@example.com";
const PASSWORD = "a long enough password";
/** A window's start and end in the spot's time: "Sat 29 Nov 08:00–17:00", or both days across midnight. */
const LOCAL_SPAN = /^[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2} \d\d:\d\d–([A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2} )?\d\d:\d\d$/;

let fake: FakeOpenMeteo;
let receiver: Receiver;
let server: RunningServer;
let base: string;
let env: Record<string, string>;
const dir = installDir("alerts-new-owner");

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  receiver = startReceiver([204]);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    SURFCAST_OPEN_METEO_MARINE_URL: fake.url,
    SURFCAST_OPEN_METEO_FORECAST_URL: fake.url,
    SURFCAST_PUBLIC_URL: base,
    SURFCAST_REFRESH_SCOPE: "requested",
    SURFCAST_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
  };
  // The scheduler runs (the on-demand fetch is its refresh); nothing is fetched before someone asks.
  server = await startServer({ dataDir: dir, port, args: [], env });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  receiver?.stop();
  await fake?.close();
});

test("a first alert from the console: redirect, secret once, the spot fetched at once, one webhook per window told apart in the log and by the CLI", async () => {
  const invited = await cliAsync(dir, ["accounts", "invite", EMAIL, "--plan", "pro"], env);
  expect(invited.code).toBe(0);
  const link = invited.stdout.split("\n").find((l) => l.startsWith(`${base}/console/invite/`))!;
  expect((await cliAsync(dir, ["keys", "create", EMAIL, "--name", "phone"], env)).code).toBe(0);
  const owner = new ConsoleClient(base);
  await owner.get(link);
  expect((await owner.post(link, { password: PASSWORD, confirm: PASSWORD })).status).toBe(303);
  expect(fake.requests).toHaveLength(0);

  const page = await owner.get("/console/alerts");
  const keyId = /<option value="(key_[0-9a-f]{16})"/.exec(page.body)![1]!;
  // The spot typed by name is searched for; the one picked makes the alert. Min wave left empty: 0 m.
  const searched = await owner.post("/console/alerts", { key: keyId, spotId: "supertubo", delivery: "webhook", target: `${receiver.url}/hook`, name: "", minWave: "", maxWave: "", minRating: "", level: "intermediate", minConfidence: "", daylight: "1" });
  expect(searched.status).toBe(400);
  expect(searched.body).toContain('<input type="radio" name="spot" value="supertubos">');
  const created = await owner.post("/console/alerts", { key: keyId, spot: "supertubos", spotId: "supertubo", delivery: "webhook", target: `${receiver.url}/hook`, name: "", minWave: "", maxWave: "", minRating: "", level: "intermediate", minConfidence: "", daylight: "1" });
  expect([created.status, created.location]).toEqual([303, "/console/alerts#new-alert-title"]);

  const shown = await owner.get("/console/alerts");
  const secret = /whsec_[A-Za-z0-9+/=]+/.exec(shown.body)?.[0];
  expect(secret).toBeDefined();
  expect(shown.body).toMatch(/\/alerts\/calendar\/[A-Za-z0-9_-]+\.ics/);
  // Fetched when it was made: its windows show now, not after the next scheduled refresh.
  expect(fake.requests.length).toBeGreaterThan(0);
  expect(text(shown.body)).toMatch(/Next windows: \d{4}-\d\d-\d\d \d\d:\d\d/);
  const reloaded = await owner.get("/console/alerts");
  expect(reloaded.body).not.toContain(secret!);
  expect(reloaded.body).not.toContain("/alerts/calendar/");

  const listed = await cliAsync(dir, ["alerts", "list", EMAIL, "--json"], env);
  const alerts = JSON.parse(listed.stdout) as { id: string; condition: { minWave: number }; nextWindows: unknown[] }[];
  expect(alerts).toHaveLength(1);
  const [alert] = alerts;
  expect(alert!.condition.minWave).toBe(0);
  // The first evaluation sends every window of the forecast, one webhook each (documented in docs/alerts.md).
  const windows = alert!.nextWindows.length;
  expect(windows).toBeGreaterThan(1);
  await until("the first evaluation's webhooks", () => (receiver.received.length >= windows ? true : undefined));
  const starts = receiver.received.map((r) => (JSON.parse(r.body) as { window: { start: string } }).window.start);
  expect(new Set(starts).size).toBe(windows);

  const rows = await until("every delivery logged as delivered", async () => {
    const logged = await cliAsync(dir, ["alerts", "deliveries", alert!.id, "--json"], env);
    expect([logged.code, logged.stderr]).toEqual([0, ""]);
    const parsed = JSON.parse(logged.stdout) as { event: string; outcome: string; statusCode: number; window: { start: string; local: string; timeZone: string } }[];
    return parsed.length === windows && parsed.every((r) => r.outcome === "delivered") ? parsed : undefined;
  });
  expect(rows.map((r) => [r.event, r.statusCode, r.window.timeZone])).toEqual(rows.map(() => ["window", 204, "Europe/Lisbon"]));
  expect(new Set(rows.map((r) => r.window.local)).size).toBe(windows);
  for (const r of rows) expect(r.window.local).toMatch(LOCAL_SPAN);

  const lines = await cliAsync(dir, ["alerts", "deliveries", alert!.id], env);
  expect(lines.code).toBe(0);
  const printed = lines.stdout.trim().split("\n");
  expect(printed).toHaveLength(windows);
  expect(printed[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC {2}window {2}[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2} \d\d:\d\d–.* \(Europe\/Lisbon\) {2}attempt 1 {2}delivered {2}204 {2}dlv_[0-9a-f]{16}$/);

  // The console's log says the same, one distinct window per row.
  const log = await owner.get(`/console/alerts/${alert!.id}`);
  const cells = [...log.body.matchAll(/<tr><td>[^<]*<\/td><td>window<\/td><td>([^<]*)<\/td>/g)].map((m) => text(m[1]!));
  expect(new Set(cells).size).toBe(windows);
}, 120_000);

test("alerts deliveries: help, and an unknown or malformed id is one line and exit 2", async () => {
  const help = await cliAsync(dir, ["alerts", "--help"], env);
  expect(help.stdout).toContain("surfcast alerts deliveries ALERT_ID [--json]");
  for (const id of ["alert_0000000000000000", "nope"]) {
    const r = await cliAsync(dir, ["alerts", "deliveries", id], env);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, "", `surfcast: no alert with id ${id} ("surfcast alerts list EMAIL" shows the ids)\n`]);
  }
  const missing = await cliAsync(dir, ["alerts", "deliveries"], env);
  expect(missing.code).toBe(2);
  expect(missing.stderr.split("\n")[0]).toMatch(/ALERT_ID/);
});
