/**
 * Alert thresholds in the maker's unit, through the compiled binary against the fake Open-Meteo and webhook receivers
 * on 127.0.0.1: an alert made in feet (`--min-wave 4ft`, or `--units imperial`) is stored in metres, listed back in
 * feet, and fires on the same hours as its metric twin. The thresholds are chosen from the served forecast so that
 * some hours match and some do not.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cli, cliAsync, installDir, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { apiFetch } from "../support/http";
import { waitFor } from "../support/wait";
import { startReceiver, type Receiver } from "./delivery/receiver";
import type { ForecastResponse } from "../../src/forecast/types";

const EMAIL = "feet@example.com";
const ALLOWED = { SURFCAST_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" };

let fake: FakeOpenMeteo;
let env: Record<string, string>;
let server: RunningServer;
let key: string;
let keyId: string;
const dir = installDir("alerts-units-binary");
const receivers: Receiver[] = [];

beforeAll(async () => {
  fake = await startFakeOpenMeteo();
  env = { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, ...ALLOWED };
  expect(cli(dir, ["accounts", "create", EMAIL, "--plan", "pro"], env).code).toBe(0);
  const made = cli(dir, ["keys", "create", EMAIL, "--name", "app"], env);
  keyId = /created key (key_[0-9a-f]{16})/.exec(made.stdout)![1]!;
  key = /(sk_live_\S+)/.exec(made.stdout)![1]!;
  server = await startServer({ dataDir: dir, env, args: ["--no-scheduler"] });
  // Async: the fake answers in this process while the binary runs.
  expect((await cliAsync(dir, ["refresh", "--spots", "supertubos"], env)).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  for (const r of receivers) r.stop();
  await fake?.close();
});

/** Makes an alert on Supertubos to a receiver of its own; its id. */
function create(receiver: Receiver, ...flags: string[]): string {
  const r = cli(dir, ["alerts", "create", keyId, "--spot", "supertubos", "--webhook", `${receiver.url}/hook`, ...flags], env);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim().split("\n").find((l) => /^alert_[0-9a-f]{16}$/.test(l))!;
}

const windowsOf = (r: Receiver) =>
  r.received
    .map((got) => JSON.parse(got.body) as { type: string; window: { start: string; end: string } })
    .filter((e) => e.type === "alert.window")
    .map((e) => `${e.window.start}/${e.window.end}`)
    .sort();

test("an alert made in feet is stored in metres, listed in feet, and fires on the same hours as its metric twin", async () => {
  const res = await apiFetch(`${server.url}/v1/spots/supertubos/forecast?units=imperial`, { headers: { "X-API-Key": key } });
  expect(res.status).toBe(200);
  const heights = ((await res.json()) as ForecastResponse).hours.map((h) => h.waveHeight).sort((a, b) => a - b);
  // Whole feet between the forecast's lowest and highest hours: some hours match, some do not.
  const min = Math.ceil(heights[Math.floor(heights.length / 3)]!);
  const max = min + 2;
  expect(heights[0]!).toBeLessThan(min);

  const [suffix, flag, twin] = [startReceiver(), startReceiver(), startReceiver()];
  receivers.push(suffix, flag, twin);
  const bySuffix = create(suffix, "--min-wave", `${min}ft`, "--max-wave", `${max}ft`);
  const byFlag = create(flag, "--units", "imperial", "--min-wave", String(min), "--max-wave", String(max));
  const metric = create(twin, "--min-wave", String(min * 0.3048), "--max-wave", String(max * 0.3048));

  const listed = JSON.parse(cli(dir, ["alerts", "list", EMAIL, "--json"], env).stdout) as { id: string; condition: { minWave: number; maxWave: number; units?: string } }[];
  const conditionOf = (id: string) => listed.find((a) => a.id === id)!.condition;
  expect(conditionOf(bySuffix)).toMatchObject({ minWave: Math.round(min * 0.3048 * 1e4) / 1e4, units: "imperial" });
  expect(conditionOf(byFlag)).toEqual(conditionOf(bySuffix));
  expect(conditionOf(metric).units).toBeUndefined();
  const plain = cli(dir, ["alerts", "list", EMAIL], env).stdout;
  expect(plain.split("\n").find((l) => l.startsWith(bySuffix))).toContain(`wave ${min}–${max} ft`);
  expect(plain.split("\n").find((l) => l.startsWith(metric))).toContain(" m");

  // The next refresh evaluates the alerts: one event per window of the week each, sent by the outbox.
  expect((await cliAsync(dir, ["refresh", "--spots", "supertubos"], env)).code).toBe(0);
  const next = JSON.parse(cli(dir, ["alerts", "list", EMAIL, "--json"], env).stdout) as { id: string; nextWindows: { start: string; end: string }[] }[];
  const expected = next.find((a) => a.id === metric)!.nextWindows.map((w) => `${w.start}/${w.end}`).sort();
  expect(expected.length).toBeGreaterThan(0);
  for (const id of [bySuffix, byFlag]) expect(next.find((a) => a.id === id)!.nextWindows).toEqual(next.find((a) => a.id === metric)!.nextWindows);
  for (const r of [twin, suffix, flag]) await waitFor("every window's event", () => windowsOf(r).length >= expected.length, 30_000);
  expect(windowsOf(twin)).toEqual(expected);
  expect(windowsOf(suffix)).toEqual(expected);
  expect(windowsOf(flag)).toEqual(expected);
}, 90_000);

test("heights in two different units are one clear line, exit 2", () => {
  const r = cli(dir, ["alerts", "create", keyId, "--spot", "supertubos", "--webhook", "http://127.0.0.1:9/x", "--min-wave", "4ft", "--units", "metric"], env);
  expect(r.code).toBe(2);
  expect(r.stderr.trim()).toBe("surfcast: --min-wave, --max-wave and --units name different units (metric, imperial): give the heights in one unit");
});
