/**
 * A new owner's first alerts, through the compiled binary in the `requested` refresh scope (no forecast fetched
 * before anyone asks), as the console makes it: the creation answers POST with a redirect whose page shows the
 * signing secret and the feed once (a reload makes no second alert), the spot nobody asked for is fetched from the
 * fake Open-Meteo at once and its windows show, the first evaluation's webhooks arrive (one per window, told apart
 * in the delivery log by their window in the spot's time), and the operator reads the same log with
 * `surfcast alerts deliveries`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cliAsync, installDir, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { ConsoleClient, text } from "../support/console-client";
import { startReceiver, type Receiver } from "./delivery/receiver";

const EMAIL = "new-owner@example.com";
const PASSWORD = "a long enough password";
/** A window in the spot's own time, ending with its zone's abbreviation ("Mon 30 Nov 07:00–17:00 WET"). */
const LOCAL_SPAN = /^[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2} \d\d:\d\d–([A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2} )?\d\d:\d\d [A-Z][A-Za-z0-9+\-]+$/;

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

let owner: ConsoleClient;
let keyId: string;

const fields = (extra: Record<string, string>) => ({ key: keyId, delivery: "webhook", target: `${receiver.url}/hook`, name: "", minWave: "0", maxWave: "", minRating: "", level: "intermediate", minConfidence: "", ...extra });

interface Listed {
  id: string;
  spot: { id: string };
  condition: { minWave: number };
  nextWindows: unknown[] | null;
}

async function listed(): Promise<Listed[]> {
  const r = await cliAsync(dir, ["alerts", "list", EMAIL, "--json"], env);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Listed[];
}

/** The first test's alert: Supertubos, daylight hours, to the receiver. */
async function firstAlert(): Promise<Listed> {
  return (await listed()).find((a) => a.spot.id === "supertubos")!;
}

describe("a new owner's first alerts from the console", () => {
  beforeAll(async () => {
    const invited = await cliAsync(dir, ["accounts", "invite", EMAIL, "--plan", "pro"], env);
    expect(invited.code).toBe(0);
    const link = invited.stdout.split("\n").find((l) => l.startsWith(`${base}/console/invite/`))!;
    expect((await cliAsync(dir, ["keys", "create", EMAIL, "--name", "phone"], env)).code).toBe(0);
    owner = new ConsoleClient(base);
    await owner.get(link);
    expect((await owner.post(link, { password: PASSWORD, confirm: PASSWORD })).status).toBe(303);
    keyId = /<option value="(key_[0-9a-f]{16})"/.exec((await owner.get("/console/alerts")).body)![1]!;
  });

  test("creation redirects; the page it lands on shows the secret and the feed once, and a reload makes no second alert", async () => {
    const created = await owner.post("/console/alerts", fields({ spot: "supertubos", daylight: "1" }));
    expect([created.status, created.location]).toEqual([303, "/console/alerts#new-alert-title"]);
    const shown = await owner.get("/console/alerts");
    const secret = /whsec_[A-Za-z0-9+/=]+/.exec(shown.body)?.[0];
    expect(secret).toBeDefined();
    expect(shown.body).toMatch(/\/alerts\/calendar\/[A-Za-z0-9_-]+\.ics/);
    const reloaded = await owner.get("/console/alerts");
    expect(reloaded.body).not.toContain(secret!);
    expect(reloaded.body).not.toContain("/alerts/calendar/");
    expect(await listed()).toHaveLength(1);
  });

  test("a spot nobody asked for is fetched when the alert is made: its windows are known at once", async () => {
    const before = fake.requests.length;
    const created = await owner.post("/console/alerts", fields({ spot: "praia-da-nazare", name: "Big days" }));
    expect(created.status).toBeLessThan(400);
    expect(fake.requests.length).toBeGreaterThan(before);
    const made = (await listed()).find((a) => a.spot.id === "praia-da-nazare")!;
    expect(made.nextWindows).not.toBeNull();
    expect(text((await owner.get("/console/alerts")).body)).not.toContain("none known yet");
  });

  test("the first evaluation sends one webhook per window of the week at once, each told apart by its window in the log", async () => {
    const first = (await firstAlert()).id;
    const windows = (await listed()).find((a) => a.id === first)!.nextWindows!.length;
    expect(windows).toBeGreaterThan(1);
    const sent = await until("the first evaluation's webhooks", () => {
      const bodies = receiver.received.map((r) => JSON.parse(r.body) as { alert: { id: string }; window: { start: string } }).filter((b) => b.alert.id === first);
      return bodies.length >= windows ? bodies : undefined;
    });
    expect(new Set(sent.map((b) => b.window.start)).size).toBe(windows);
    await until("every delivery logged as delivered", async () => {
      const log = JSON.parse((await cliAsync(dir, ["alerts", "deliveries", first, "--json"], env)).stdout || "[]") as { outcome: string }[];
      return log.length === windows && log.every((d) => d.outcome === "delivered") ? true : undefined;
    });
    const page = await owner.get(`/console/alerts/${first}`);
    const cells = [...page.body.matchAll(/<tr><td>[^<]*<\/td><td>window<\/td><td>([^<]*)<\/td>/g)].map((m) => text(m[1]!));
    expect(cells).toHaveLength(windows);
    expect(new Set(cells).size).toBe(windows);
    for (const cell of cells) expect(cell).toMatch(LOCAL_SPAN);
    expect(text(page.body)).toContain("Times are the spot's local time (Europe/Lisbon), each with its zone's abbreviation.");
  }, 60_000);

  test("the spot is found by name, and min wave left empty is 0 m", async () => {
    const typed = await owner.post("/console/alerts", fields({ spotId: "supertubo", minWave: "" }));
    expect(typed.status).toBe(400);
    expect(text(typed.body)).toContain('There is no spot with the id "supertubo": pick it among the spots found by name below.');
    expect(typed.body).toContain('<input type="radio" name="spot" value="supertubos">');
    const searched = await owner.post("/console/alerts", { ...fields({ q: "supertubos" }), find: "1" });
    expect(searched.status).toBe(200);
    expect(searched.body).toContain('<input type="radio" name="spot" value="supertubos">');
    const picked = await owner.post("/console/alerts", fields({ spot: "supertubos", spotId: "supertubo", minWave: "", name: "Any wave" }));
    expect(picked.status).toBe(303);
    expect((await listed()).filter((a) => a.spot.id === "supertubos").map((a) => a.condition.minWave)).toEqual([0, 0]);
  });

  test("surfcast alerts deliveries prints the log, one line per attempt, and --json its rows", async () => {
    const first = (await firstAlert()).id;
    const rows = JSON.parse((await cliAsync(dir, ["alerts", "deliveries", first, "--json"], env)).stdout) as { event: string; statusCode: number; window: { local: string; timeZone: string } }[];
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.map((r) => [r.event, r.statusCode, r.window.timeZone])).toEqual(rows.map(() => ["window", 204, "Europe/Lisbon"]));
    expect(new Set(rows.map((r) => r.window.local)).size).toBe(rows.length);
    const lines = await cliAsync(dir, ["alerts", "deliveries", first], env);
    expect([lines.code, lines.stderr]).toEqual([0, ""]);
    const printed = lines.stdout.trim().split("\n");
    expect(printed).toHaveLength(rows.length);
    for (const line of printed) expect(line).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC {2}window {8}[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2} \d\d:\d\d–.* \(Europe\/Lisbon\) {2}attempt 1 {2}delivered {2}204 {2}dlv_[0-9a-f]{16}$/);
  });
});

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
