/**
 * Webhook targets through the compiled binary: IPv6 forms that carry an IPv4 address, what a refusal of a name
 * says, an allowed network limited to one port, and the server's own address, which no webhook (nor a redirect of
 * one) reaches even inside an allowed network. On the way, `alerts test` without SURFCAST_PUBLIC_URL links to the
 * address the server recorded, the port it really bound.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { cli, cliAsync, installDir, startServer, type RunningServer } from "../support/binary";
import { freePort } from "../support/env";
import { waitFor } from "../support/wait";
import { startReceiver, type Receiver } from "./delivery/receiver";

const EMAIL = "hooks@example.com";
const PUBLIC = "http://surf.test";
const dir = installDir("webhook-targets");
const receivers: Receiver[] = [];
let server: RunningServer | undefined;
let keyId: string;
let spot: string;

beforeAll(() => {
  expect(cli(dir, ["accounts", "create", EMAIL, "--plan", "pro"]).code).toBe(0);
  keyId = (JSON.parse(cli(dir, ["keys", "create", EMAIL, "--name", "hooks", "--json"]).stdout) as { id: string }).id;
  spot = read<{ id: string }>("SELECT id FROM spots LIMIT 1")!.id;
});
afterAll(async () => {
  await server?.stop();
  for (const r of receivers) r.stop();
});

function receiver(answers?: Parameters<typeof startReceiver>[0]): Receiver {
  const r = startReceiver(answers);
  receivers.push(r);
  return r;
}

function create(webhook: string, allowed: string) {
  return cli(dir, ["alerts", "create", keyId, "--spot", spot, "--webhook", webhook, "--min-wave", "0.1"], { SURFCAST_PUBLIC_URL: PUBLIC, SURFCAST_WEBHOOK_ALLOWED_NETWORKS: allowed });
}

function createdId(r: { code: number; stdout: string; stderr: string }): string {
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return /^alert_[0-9a-f]{16}$/m.exec(r.stdout)![0];
}

function expectRefused(r: { code: number; stdout: string; stderr: string }, reason: string) {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toContain(reason);
}

interface Attempt {
  status_code: number | null;
  error: string | null;
  outcome: string;
}

/** One value read from the data directory's database. */
function read<T>(sql: string, ...params: string[]): T | null {
  const db = new Database(join(dir, "surfcast.db"), { readonly: true });
  try {
    return db.query(sql).get(...params) as T | null;
  } finally {
    db.close();
  }
}

/** The address the last server recorded for the commands' links (written just after it starts). */
const recordedUrl = () => read<{ value: string }>("SELECT value FROM meta WHERE key = 'serve.public_url'")?.value ?? null;

/**
 * Queues the alert's test event for the running server to send (without SURFCAST_PUBLIC_URL: its links use the
 * address the server recorded), and waits for its first attempt.
 */
async function attempted(alertId: string): Promise<Attempt> {
  const queued = await cliAsync(dir, ["alerts", "test", alertId]);
  expect(queued.stderr).toBe("");
  expect(queued.code).toBe(0);
  return await waitFor(`${alertId}'s attempt`, () =>
    read<Attempt>("SELECT status_code, error, outcome FROM alert_deliveries WHERE alert_id = ? AND outcome != 'pending' ORDER BY attempt LIMIT 1", alertId),
  );
}

describe("webhook targets (compiled binary)", () => {
  test("an IPv4-compatible IPv6 address (::a.b.c.d) is refused, even where its IPv4 network is allowed", () => {
    const port = freePort();
    for (const host of ["[::127.0.0.1]", "[::169.254.169.254]", "[::10.0.0.1]"]) {
      expectRefused(create(`http://${host}:${port}/hook`, "127.0.0.0/8,169.254.0.0/16,10.0.0.0/8"), "an IPv4-compatible address (deprecated)");
    }
    // A NAT64 form is judged as the IPv4 address it carries.
    expectRefused(create(`http://[64:ff9b::127.0.0.1]:${port}/hook`, ""), "64:ff9b::7f00:1 is a loopback address");
  });

  test("a refused name says what kind of address it resolves to, never which", () => {
    const r = create(`http://localhost:${freePort()}/hook`, "");
    expectRefused(r, "refused: localhost resolves to a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS");
    expect(r.stderr).not.toContain("127.0.0.1");
    expect(r.stderr).not.toContain("::1");
  });

  test("an allowed entry with a port admits that port only", async () => {
    const admitted = receiver();
    const entry = `127.0.0.1:${admitted.port},[::1]:${admitted.port}`;
    const other = admitted.port === 65535 ? admitted.port - 1 : admitted.port + 1;
    expectRefused(create(`http://127.0.0.1:${other}/hook`, entry), "127.0.0.1 is a loopback address");
    expectRefused(create(`http://[::1]:${other}/hook`, entry), "::1 is a loopback address");
    createdId(create(`http://[::1]:${admitted.port}/hook`, entry));
    const id = createdId(create(`${admitted.url}/hook`, entry));

    server = await startServer({ dataDir: dir, env: { SURFCAST_WEBHOOK_ALLOWED_NETWORKS: entry } });
    const serverPort = new URL(server.url).port;
    // Started on --port 0 without SURFCAST_PUBLIC_URL: the port the system picked is what it records.
    await waitFor("the recorded address", () => recordedUrl() === `http://localhost:${serverPort}`);
    expect(await attempted(id)).toMatchObject({ outcome: "delivered", status_code: 204 });
    expect(admitted.received.map((r) => r.path)).toEqual(["/hook"]);
    // `alerts test` links to where the server answers, not to the command's own default port.
    const event = JSON.parse(admitted.received[0]!.body) as { forecastUrl: string };
    expect(event.forecastUrl).toBe(`http://localhost:${serverPort}/v1/spots/${spot}/forecast`);
    await server.stop();
    server = undefined;
  }, 60_000);

  test("the server's own address is never called: not redirected to, not aimed at, inside an allowed network", async () => {
    server = await startServer({ dataDir: dir, env: { SURFCAST_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1/32" } });
    const usage = `${server.url}/v1/usage`;
    const redirector = receiver([() => new Response(null, { status: 307, headers: { location: usage } })]);
    const redirected = createdId(create(`${redirector.url}/hook`, "127.0.0.1/32"));
    // The console command cannot know which port a server listens on; the server refuses it when it sends.
    const aimed = createdId(create(usage, "127.0.0.1/32"));

    const port = new URL(server.url).port;
    // No status: the server answered nothing, because it was not asked (it would answer /v1/usage's POST with a 4xx).
    expect(await attempted(redirected)).toEqual({ outcome: "refused", status_code: null, error: `redirected to ${usage}: refused: 127.0.0.1 port ${port} is this server's own address` });
    expect(redirector.received).toHaveLength(1);
    expect(await attempted(aimed)).toEqual({ outcome: "refused", status_code: null, error: `refused: 127.0.0.1 port ${port} is this server's own address` });
  }, 60_000);
});
