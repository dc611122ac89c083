/**
 * MCP's list_alerts through the /mcp handler in process: the calling key's alerts only, with their next windows
 * in text and structured content, never their targets (a webhook URL may hold the receiver's own secret); a
 * handler without the alerts service says alerts are not available.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createAccount, createKey } from "../../src/access/accounts";
import type { Principal } from "../../src/access/registry";
import { createMcpHandler } from "../../src/mcp/server";
import { FIRST, HOUR, iso, openWorld, type AlertsWorld } from "../support/alerts";

let world: AlertsWorld;
let mine: Principal;
let theirs: Principal;

beforeAll(async () => {
  world = await openWorld("sqlite", "alerts-mcp");
  await createAccount(world.app.stores.access, world.clock, "a@example.com", "pro");
  await createAccount(world.app.stores.access, world.clock, "b@example.com", "pro");
  const a = await createKey(world.app.stores.access, world.clock, "a@example.com", "app");
  const b = await createKey(world.app.stores.access, world.clock, "b@example.com", "app");
  await world.app.keys.reload();
  mine = world.app.keys.principalById(a.id)!;
  theirs = world.app.keys.principalById(b.id)!;
  await world.forecast("supertubos", [0.5, 2, 2.5, 0.5]);
  await world.alerts.create(a.id, { spotId: "supertubos", webhook: "https://hooks.example.com/api/webhook/SECRET-ID", name: "Big", condition: { minWave: 2 } });
  await world.alerts.create(b.id, { spotId: "supertubos", email: "b@example.com", name: "Theirs", condition: {} });
}, 60_000);
afterAll(async () => {
  await world?.close();
});

async function callListAlerts(principal: Principal, withService = true): Promise<{ isError?: boolean; content: { text: string }[]; structuredContent?: { alerts: Record<string, unknown>[] } }> {
  const handler = createMcpHandler(world.app, withService ? { alerts: world.alerts } : {});
  const req = new Request("http://localhost/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_alerts", arguments: {} } }),
  });
  await world.app.meter.ready(principal);
  const res = await handler(req, principal);
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: never }).result;
}

test("lists the calling key's alerts with their next windows, without their targets", async () => {
  const result = await callListAlerts(mine);
  expect(result.isError).toBeUndefined();
  const alerts = result.structuredContent!.alerts;
  expect(alerts.map((a) => a.name)).toEqual(["Big"]);
  expect(alerts[0]).toMatchObject({ spot: { id: "supertubos", name: "Supertubos" }, delivery: "webhook", enabled: true, nextWindows: [{ start: iso(FIRST + HOUR), end: iso(FIRST + 3 * HOUR), best: { time: iso(FIRST + 2 * HOUR), waveHeight: 2.5 } }] });
  const text = result.content[0]!.text;
  expect(text).toContain("| Big | Supertubos (supertubos) | wave ≥ 2 m | by webhook | on");
  expect(text).toContain("  Thu 26 Nov 09:00–11:00 WET; best 10:00 WET: 2.5 m");
  expect(JSON.stringify(result)).not.toContain("SECRET-ID");
  expect(JSON.stringify(result)).not.toContain("whsec_");
});

test("another key sees only its own; an e-mail alert not yet confirmed says it is waiting for confirmation", async () => {
  const result = await callListAlerts(theirs);
  expect(result.structuredContent!.alerts.map((a) => [a.name, a.waitingForConfirmation])).toEqual([["Theirs", true]]);
  expect(result.content[0]!.text).toContain("| Theirs | Supertubos (supertubos) | wave ≥ 0 m | by email | waiting for confirmation");
});

test("without the alerts service the tool says so", async () => {
  const result = await callListAlerts(mine, false);
  expect(result.isError).toBe(true);
  expect(result.content[0]!.text).toBe("internal: Alerts are not available on this server.");
});
