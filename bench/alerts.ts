/**
 * Condition alerts evaluated after a refresh (target: 10,000 alerts in under a minute on this 2-core machine):
 * `AlertService.evaluate` over 10,000 alerts on 200 spots, each spot with a week of hourly forecast as a refresh
 * writes it, on SQLite and, when it answers, on a PostgreSQL database of its own. The first evaluation finds
 * every window new and queues its delivery; the second, as after the next refresh of the same forecast, queues
 * nothing. Sending is not part of it (the outbox's work, bounded by the receivers). Alone: `bun bench/alerts.ts`.
 */
import { createAccount, createKey } from "../src/access/accounts";
import { rowOf, type AlertRecord } from "../src/alerts/store";
import { alerts as sqliteAlerts } from "../src/db/schema";
import { alerts as postgresAlerts } from "../src/db/postgres/schema";
import { NOW, openWorld, type AlertsWorld } from "../test/support/alerts";
import { fmt, renderSection, type Section } from "./report";

const TITLE = "Condition alerts";
const ALERTS = 10_000;
const SPOTS = 200;
const TARGET_MS = 60_000;

/** A week of hours whose wave height climbs through each day: every alert finds one window a day or fewer. */
const WEEK = Array.from({ length: 168 }, (_, i) => 0.5 + (i % 24) / 10);

async function measure(world: AlertsWorld): Promise<{ insertMs: number; first: { ms: number; queued: number }; second: { ms: number; queued: number } }> {
  const email = "bench-alerts@example.com";
  await createAccount(world.app.stores.access, world.clock, email, "scale");
  const keyId = (await createKey(world.app.stores.access, world.clock, email, "alerts")).id;
  const spots = world.app.spots.all().slice(0, SPOTS).map((s) => s.id);
  for (const spot of spots) await world.forecast(spot, WEEK);
  const rows = Array.from({ length: ALERTS }, (_, i): AlertRecord => ({
    id: `alert_${i.toString(16).padStart(16, "0")}`,
    keyId,
    spotId: spots[i % spots.length]!,
    name: `bench ${i}`,
    // Thresholds from always to never met, half of them daylight only.
    condition: { minWave: (i % 30) / 10, daylight: i % 2 === 0 },
    delivery: "webhook",
    target: "https://hooks.example.com/bench",
    webhookSecret: "whsec_bench",
    calendarTokenHash: `bench-${i}`,
    disabledReason: null,
    disabledAt: null,
    createdAt: NOW,
    confirmedAt: NOW,
    confirmTokenHash: null,
    confirmSentAt: null,
  }));
  // Written in bulk: the plan's limit is not what is measured, and one create each would take longer than the rest.
  const inserted = performance.now();
  const { engine } = world.app;
  for (let i = 0; i < rows.length; i += 500) {
    const batch = rows.slice(i, i + 500).map(rowOf);
    if (engine.kind === "sqlite") engine.db.insert(sqliteAlerts).values(batch).run();
    else await engine.db.insert(postgresAlerts).values(batch);
  }
  const insertMs = performance.now() - inserted;
  const evaluate = async () => {
    const started = performance.now();
    const summary = await world.alerts.evaluate(spots);
    if (summary.alerts !== ALERTS) throw new Error(`evaluated ${summary.alerts} alerts, not ${ALERTS}`);
    return { ms: performance.now() - started, queued: summary.queued };
  };
  const first = await evaluate();
  const second = await evaluate();
  return { insertMs, first, second };
}

async function rowsFor(engine: "sqlite" | "postgres"): Promise<string[][]> {
  let world: AlertsWorld;
  try {
    world = await openWorld(engine, "bench-alerts");
  } catch (err) {
    return [[engine === "sqlite" ? "SQLite" : "PostgreSQL", `not measured: ${err instanceof Error ? err.message : String(err)}`, "—", "—", "—"]];
  }
  try {
    const { first, second } = await measure(world);
    const name = engine === "sqlite" ? "SQLite" : "PostgreSQL";
    return [
      [`${name}: first evaluation (every window new)`, `${(first.ms / 1000).toFixed(1)} s`, fmt.int(first.queued), "< 60 s", fmt.verdict(first.ms < TARGET_MS)],
      [`${name}: second evaluation (same forecast)`, `${(second.ms / 1000).toFixed(1)} s`, fmt.int(second.queued), "< 60 s", fmt.verdict(second.ms < TARGET_MS)],
    ];
  } finally {
    await world.close();
  }
}

export async function alertsSection(): Promise<Section> {
  const rows = [...(await rowsFor("sqlite")), ...(await rowsFor("postgres"))];
  return {
    title: TITLE,
    intro: `\`AlertService.evaluate\` after a refresh: ${fmt.int(ALERTS)} enabled webhook alerts on ${SPOTS} spots (wave thresholds 0–2.9 m, half daylight only), each spot with a week of hourly forecast; the deliveries queued in the outbox, not sent.`,
    header: ["measure", "wall time", "deliveries queued", "target", "verdict"],
    rows,
  };
}

if (import.meta.main) console.log(renderSection(await alertsSection()));
