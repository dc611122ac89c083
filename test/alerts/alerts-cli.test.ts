/**
 * `surfcast alerts …` in process, over SQLite (the command runs on the alert service it is given): create prints the
 * id and, for a webhook, the secret on its last line; list (plain and --json) shows the next windows; delete and test;
 * every operator mistake is one line (as main.ts prints it, exit 2) naming the flag.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createAccount, createKey } from "../../src/access/accounts";
import { ALERTS_HELP, runAlerts } from "../../src/cli/alerts";
import { cliWording } from "../../src/cli/wording";
import { UserError } from "../../src/core/errors";
import { FIRST, HOUR, iso, NOW, openWorld, type AlertsWorld } from "../support/alerts";

let world: AlertsWorld;
let keyId: string;
const EMAIL = "shop@example.com";

beforeAll(async () => {
  world = await openWorld("sqlite", "alerts-cli");
  await createAccount(world.app.stores.access, world.clock, EMAIL, "starter");
  keyId = (await createKey(world.app.stores.access, world.clock, EMAIL, "shop")).id;
  await world.forecast("supertubos", [0.5, 1.8, 1.8, 0.5]);
}, 60_000);
afterAll(async () => {
  await world?.close();
});

/** Runs the command and returns what it printed, or the one line main.ts would print for its refusal. */
async function run(...argv: string[]): Promise<{ out: string; refusal: string | null }> {
  const printed: string[] = [];
  const original = console.log;
  console.log = (...parts: unknown[]) => printed.push(parts.join(" "));
  try {
    await runAlerts(world.alerts, argv);
    return { out: printed.join("\n"), refusal: null };
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    return { out: printed.join("\n"), refusal: cliWording(err) };
  } finally {
    console.log = original;
  }
}

test("help, --help after a subcommand and no subcommand print the usage (main.ts answers `alerts --help` itself)", async () => {
  expect((await run("help")).out).toBe(ALERTS_HELP);
  expect((await run("create", "--help")).out).toBe(ALERTS_HELP);
  expect((await run()).out).toBe(ALERTS_HELP);
  expect(ALERTS_HELP).toContain("surfcast alerts create KEY_ID --spot SPOT_ID (--webhook URL | --email ADDRESS)");
  expect(ALERTS_HELP).toContain("early-access 2");
});

test("create with a webhook: the id, then the secret on the last line; list shows it with its next window", async () => {
  const made = await run("create", keyId, "--spot", "supertubos", "--webhook", "https://hooks.example.com/a", "--name", "Peniche big", "--min-wave", "1.5", "--wind", "offshore,cross", "--daylight");
  expect(made.refusal).toBeNull();
  const lines = made.out.split("\n");
  expect(lines.at(-1)).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  const id = lines.find((l) => /^alert_[0-9a-f]{16}$/.test(l))!;
  expect(id).toBeDefined();
  expect(made.out).toContain("wave ≥ 1.5 m, wind offshore or cross, daylight");
  expect(made.out).toMatch(/calendar feed \(secret, shown once\): https:\/\/surf\.example\.net\/alerts\/calendar\/[A-Za-z0-9_-]{43}\.ics/);

  const listed = JSON.parse((await run("list", EMAIL, "--json")).out) as { id: string; name: string; nextWindows: { start: string; end: string }[] }[];
  expect(listed.find((a) => a.id === id)).toMatchObject({ name: "Peniche big", nextWindows: [{ start: iso(FIRST + HOUR), end: iso(FIRST + 3 * HOUR) }] });
  const plain = (await run("list", EMAIL)).out;
  expect(plain).toContain(`${id}  "Peniche big"  supertubos`);
  expect(plain).toContain(`  ${iso(FIRST + HOUR)} → ${iso(FIRST + 3 * HOUR)}  best ${iso(FIRST + HOUR)}: 1.8 m`);
  // Never the secret.
  expect(plain).not.toContain("whsec_");
  expect((await run("list", EMAIL, "--json")).out).not.toContain("whsec_");
});

test("create by e-mail: the id on the last line; test queues an event; delete ends it", async () => {
  const made = await run("create", keyId, "--spot", "supertubos", "--email", "rider@example.com", "--min-rating", "3", "--level", "beginner");
  const id = made.out.split("\n").at(-1)!;
  expect(id).toMatch(/^alert_[0-9a-f]{16}$/);
  // The address gets its confirmation first; until it is opened the alert waits and is not tested.
  expect((await run("list", EMAIL)).out).toContain(`${id}  "Supertubos"  supertubos  key ${keyId}  email rider@example.com  wave ≥ 0 m, beginner rating ≥ 3  waiting for confirmation`);
  expect((await run("test", id)).refusal).toBe(`alert ${id} is waiting for confirmation: rider@example.com receives nothing until the link in its confirmation e-mail is opened`);
  expect((await run("confirm-again", id)).out).toBe(`queued a new confirmation e-mail for alert ${id}; the running server sends it within seconds`);
  expect((await world.store.deliveriesOf(id, 10)).map((d) => d.kind)).toEqual(["confirmation", "confirmation"]);
  await world.store.confirmAlert(id, NOW);
  const tested = await run("test", id);
  expect(tested.out).toMatch(new RegExp(`^queued test event msg_[0-9a-f]{32} for alert ${id}`));
  expect((await world.store.deliveriesOf(id, 10)).map((d) => d.kind).sort()).toEqual(["confirmation", "confirmation", "test"]);
  expect((await run("delete", id)).out).toContain(`deleted alert ${id}`);
  expect((await run("delete", id)).refusal).toBe(`no alert with id ${id} ("surfcast alerts list EMAIL" shows the ids)`);
});

test("operator mistakes: one line each, naming the flag", async () => {
  const mistakes: [string[], string][] = [
    [["create", keyId, "--webhook", "https://hooks.example.com/a"], "--spot is required: the id of the spot to watch (find it with GET /v1/spots?q=…)"],
    [["create", keyId, "--spot", "supertubos"], "give exactly one of --webhook URL and --email ADDRESS"],
    [["create", keyId, "--spot", "supertubos", "--webhook", "http://127.0.0.1:8123/api/webhook/surf"], "refused: 127.0.0.1 is a loopback or private address (allow its network in SURFCAST_WEBHOOK_ALLOWED_NETWORKS)"],
    [["create", keyId, "--spot", "supertubos", "--email", "a@example.com", "--min-wave", "1,5"], '--min-wave must be a wave height like 1.5, 1.5m or 4ft, got "1,5"'],
    [["create", keyId, "--spot", "supertubos", "--email", "a@example.com", "--min-wave", "2", "--max-wave", "1"], "--max-wave must be at least the minimum wave height (2 m)"],
    [["create", keyId, "--spot", "supertubos", "--email", "a@example.com", "--min-rating", "4"], "--level goes with a minimum rating: give both or neither"],
    [["create", keyId, "--spot", "supertubos", "--email", "a@example.com", "--min-rating", "4", "--level", "pro"], '--level must be beginner, intermediate, advanced, got "pro"'],
    [["create", keyId, "--spot", "supertubos", "--email", "a@example.com", "--wind", "offshore,side"], '--wind must be one or more of offshore, cross, onshore, got "side"'],
    [["create", keyId, "--spot", "supertubos", "--email", "a@example.com", "--min-wav", "1"], "unknown option --min-wav (did you mean --min-wave?) (see surfcast alerts --help)"],
    [["create", keyId, "--spot", "supertubos", "--email", "a@example.com", "--daylight=yes"], "--daylight takes no value (see surfcast alerts --help)"],
    [["remove", "x"], `unknown command "alerts remove"\n\n${ALERTS_HELP}`],
  ];
  for (const [argv, expected] of mistakes) {
    const { refusal } = await run(...argv);
    expect({ argv, refusal }).toEqual({ argv, refusal: expected });
  }
  // Nothing was made by the refused commands.
  expect(world.checked.filter((url) => url.includes("127.0.0.1"))).toHaveLength(1);
});
