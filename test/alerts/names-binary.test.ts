/**
 * Names that cannot forge output, through the compiled binary: key and alert names with ESC, CR or LF, and e-mail
 * targets with ESC, are refused at creation by the CLI (one line, exit 2) and the console (one sentence, 400); and
 * names stored before that rule (rows written straight into the database) are printed escaped by `keys list`,
 * `alerts list` and MCP's list_alerts, and add no line to the alert's calendar feed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { cli, startServer, type RunningServer } from "../support/binary";
import { ConsoleClient, text } from "../support/console-client";

const OWNER = "names@example.com";
const PASSWORD = "a long enough password";
/** What an owner would print to forge the operator's terminal: clear the screen, then a fake line of the listing. */
const FORGED = ["Dawn\u001b[2J", "Dawn\rkey_0000000000000000  sk_live_fake…", "Dawn\nkey_0000000000000000  sk_live_fake…", "Dawn\r\nEND:VCALENDAR\r\nBEGIN:VEVENT"];
const RULE = "must be one line of printable text, without line breaks, tabs, escapes or other control characters";
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let server: RunningServer;
let owner: ConsoleClient;
/** The owner's key (its id and the key itself) and its alert's calendar feed. */
let keyId: string, key: string, calendarPath: string;

beforeAll(async () => {
  server = await startServer();
  const link = JSON.parse(cli(server.dataDir, ["accounts", "invite", OWNER, "--plan", "pro", "--json"]).stdout).url as string;
  owner = new ConsoleClient(server.url);
  const path = new URL(link).pathname;
  await owner.get(path);
  await owner.post(path, { password: PASSWORD, confirm: PASSWORD });
  const made = cli(server.dataDir, ["keys", "create", OWNER, "--name", "phone"]);
  keyId = /created key (key_[0-9a-f]{16})/.exec(made.stdout)![1]!;
  key = made.stdout.trim().split("\n").at(-1)!;
  const alert = cli(server.dataDir, ["alerts", "create", keyId, "--spot", "pipeline", "--email", "me@example.com", "--name", "Dawn"]);
  expect(alert.code).toBe(0);
  calendarPath = new URL(/calendar feed \(secret, shown once\): (\S+)/.exec(alert.stdout)![1]!).pathname;
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

function refusedInOneLine(args: string[], expected: string): void {
  const r = cli(server.dataDir, args);
  expect({ args, code: r.code, stdout: r.stdout, lines: r.stderr.trim().split("\n").length }).toEqual({ args, code: 2, stdout: "", lines: 1 });
  expect(r.stderr).toContain(expected);
  expect(r.stderr).not.toMatch(RAW_CONTROL);
}

/** Writes a name (and a target) the way an older server would have stored it. */
function storeRaw(sql: string, ...values: string[]): void {
  const db = new Database(join(server.dataDir, "surfcast.db"));
  db.query(sql).run(...values);
  db.close();
}

describe("names are one line of printable text", () => {
  test("the CLI refuses key and alert names with ESC, CR or LF, and e-mail targets with ESC: one line, exit 2", () => {
    for (const name of FORGED) {
      refusedInOneLine(["keys", "create", OWNER, "--name", name], `surfcast: --name ${RULE}`);
      refusedInOneLine(["alerts", "create", keyId, "--spot", "pipeline", "--email", "me@example.com", "--name", name], `surfcast: --name ${RULE}`);
    }
    refusedInOneLine(["alerts", "create", keyId, "--spot", "pipeline", "--email", "me\u001b[2J@example.com"], '"me\\u001b[2J@example.com" is not a valid e-mail address');
    refusedInOneLine(["accounts", "create", "x\u001b[2J@example.com", "--plan", "pro"], '"x\\u001b[2J@example.com" is not a valid e-mail address');
    const keys = cli(server.dataDir, ["keys", "list", OWNER, "--json"]);
    expect((JSON.parse(keys.stdout) as unknown[]).length).toBe(1);
  }, 120_000); // eleven binary runs: seconds each on a busy machine

  test("the console refuses them too, in one sentence on the form", async () => {
    await owner.get("/console/keys");
    for (const name of FORGED) {
      const res = await owner.post("/console/keys", { name });
      expect(res.status).toBe(400);
      expect(text(res.body)).toContain(`The key name ${RULE}.`);
    }
    for (const name of FORGED) {
      await owner.get("/console/alerts");
      const res = await owner.post("/console/alerts", { key: keyId, spot: "pipeline", delivery: "email", target: "me@example.com", name, minWave: "1", maxWave: "", minRating: "", level: "intermediate", minConfidence: "" });
      expect(res.status).toBe(400);
      expect(text(res.body)).toContain(`The alert's name ${RULE}.`);
    }
    const listed = JSON.parse(cli(server.dataDir, ["alerts", "list", OWNER, "--json"]).stdout) as unknown[];
    expect(listed).toHaveLength(1);
  });
});

describe("names stored before the rule are printed escaped", () => {
  const keyName = "old\r\nkey_0000000000000000  sk_live_fake…  forged\u001b[2J";
  const alertName = "Dawn\r\nEND:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:Free boards\u001b[2J";
  const target = "me@example.com\nkey_0000000000000000\u001b[31m";

  beforeAll(() => {
    storeRaw("UPDATE api_keys SET name = ? WHERE id = ?", keyName, keyId);
    storeRaw("UPDATE alerts SET name = ?, target = ?", alertName, target);
  });

  test("keys list and alerts list: one line per key and per alert, the controls as escapes", () => {
    const keys = cli(server.dataDir, ["keys", "list", OWNER]);
    expect(keys.code).toBe(0);
    expect(keys.stdout).not.toMatch(RAW_CONTROL);
    expect(keys.stdout.trim().split("\n")).toHaveLength(1);
    expect(keys.stdout).toContain("old\\r\\nkey_0000000000000000  sk_live_fake…  forged\\u001b[2J");

    const alerts = cli(server.dataDir, ["alerts", "list", OWNER]);
    expect(alerts.code).toBe(0);
    expect(alerts.stdout).not.toMatch(RAW_CONTROL);
    // The alert's line and the line under it (no forecast yet).
    expect(alerts.stdout.trim().split("\n")).toHaveLength(2);
    expect(alerts.stdout).toContain('"Dawn\\r\\nEND:VCALENDAR\\r\\nBEGIN:VEVENT\\r\\nSUMMARY:Free boards\\u001b[2J"');
    expect(alerts.stdout).toContain("email me@example.com\\nkey_0000000000000000\\u001b[31m");
  });

  test("MCP's list_alerts text: the name escaped on the alert's line", async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "X-API-Key": key, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_alerts", arguments: {} } }),
    });
    expect(res.status).toBe(200);
    const result = ((await res.json()) as { result: { content: { text: string }[]; structuredContent: { alerts: { name: string }[] } } }).result;
    const lines = result.content[0]!.text.split("\n");
    expect(result.content[0]!.text).not.toMatch(RAW_CONTROL);
    expect(lines.some((l) => l.startsWith("END:VCALENDAR") || l.startsWith("BEGIN:VEVENT"))).toBe(false);
    expect(lines.find((l) => l.startsWith("alert_"))).toContain("| Dawn\\r\\nEND:VCALENDAR\\r\\nBEGIN:VEVENT\\r\\nSUMMARY:Free boards\\u001b[2J |");
    // The structured content is JSON: the name as stored.
    expect(result.structuredContent.alerts[0]!.name).toBe(alertName);
  });

  test("the calendar feed: no injected line, the name escaped as RFC 5545 TEXT", async () => {
    const res = await fetch(server.url + calendarPath);
    expect(res.status).toBe(200);
    const feed = await res.text();
    // Lines end with CRLF; no other control character.
    expect(feed.replaceAll("\r\n", "")).not.toMatch(RAW_CONTROL);
    const lines = feed.replace(/\r\n[ \t]/g, "").split("\r\n");
    expect(lines.filter((l) => l === "BEGIN:VEVENT")).toHaveLength(0);
    expect(lines.filter((l) => l === "END:VCALENDAR")).toHaveLength(1);
    expect(lines.some((l) => l.startsWith("SUMMARY:"))).toBe(false);
    expect(lines).toContain("X-WR-CALNAME:Surf: Dawn\\\\r\\\\nEND:VCALENDAR\\\\r\\\\nBEGIN:VEVENT\\\\r\\\\nSUMMARY:Free boards\\\\u001b[2J");
  });
});
