/**
 * `make bench`: every benchmark in one run, a table on the console and bench/RESULTS.md with the machine and date.
 *   bun bench/run.ts            full run (50 connections, 10 s per case) → writes bench/RESULTS.md
 *   bun bench/run.ts --quick    smoke run (10 connections, 2 s per case) → console only
 * Pieces that are not available yet are reported as "not measured: <reason>", never as a failure.
 */
import { join } from "node:path";
import { existsSync } from "node:fs";
import { loadConfig } from "../src/config";
import { openApp } from "../src/app";
import { BINARY, CATALOG_PATH, tempDir } from "../test/support/env";
import { httpSections, type BenchCase } from "./http";
import { ensureWrk } from "./load";
import { describeMachine, renderMachine } from "./machine";
import { metricsSection } from "./metrics";
import { isolatedMicroSection } from "./micro";
import { bestSpotsSection, upstreamWeightSection } from "./best-spots";
import { refreshSection, waveModelsSection } from "./refresh";
import { renderSection, type Section } from "./report";
import { startupSection } from "./startup";
import { tideWindowSection } from "./tides";
import { consoleSection } from "./console";
import { isolatedGateSection } from "./gate-inprocess";
import { tideSourcesSection } from "./tide-sources";
import { embedSection } from "./embed";
import { memorySection } from "./memory";
import { redisSection } from "./redis";
import { clusterSections } from "./cluster";
import { alertsSection } from "./alerts";
import { createScaleKeys, fleetCases, fleetSection } from "./fleet";
import { isolatedFleetSection } from "./fleet-inprocess";
import { startFakeNdbc } from "../test/support/fake-ndbc";

const quick = process.argv.includes("--quick");
/** Only what the endpoint tables need (the refresh fills the forecasts); RESULTS.md is left alone. */
const httpOnly = process.argv.includes("--http");
const settings = quick
  ? { connections: 10, durationSeconds: 2, warmupSeconds: 1, startupRuns: 3 }
  : { connections: 50, durationSeconds: 10, warmupSeconds: 3, startupRuns: 7 };
/** Enough keys that none reaches its 100,000/min burst limit at the rates seen on loopback. */
const KEY_COUNT = 64;
const EMAIL = "bench@example.com";

process.env.SURFCAST_LOG_LEVEL ??= "warn";
// Every server of the run (in process and the binary) reads its buoys from a fake NDBC: one wave buoy off Pipeline.
const ndbc = await startFakeNdbc({ stations: [{ id: "51201", name: "Waimea Bay, HI (106)", lat: 21.671, lng: -158.118, owner: "Pacific Islands Ocean Observing System" }] });
process.env.SURFCAST_NDBC_URL = ndbc.url;
if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run make build (make bench does)`);
ensureWrk();

/** The endpoints under load, on one well-known spot (Pipeline when the catalog has it). */
function benchCases(spot: { id: string; name: string; lat: number; lng: number } | undefined): BenchCase[] {
  const id = spot?.id ?? "pipeline";
  const word = encodeURIComponent((spot?.name.split(/\s+/)[0] ?? "pipeline").toLowerCase());
  return [
    { name: "get spot", path: `/v1/spots/${id}`, targetRatio: 0.6 },
    { name: "search", path: `/v1/spots?q=${word}&limit=10`, targetRatio: 0.4 },
    { name: "nearby", path: `/v1/spots/nearby?lat=${spot?.lat ?? 21.66}&lng=${spot?.lng ?? -158.05}&radius=50&limit=10`, targetRatio: 0.5 },
    { name: "forecast 7 days", path: `/v1/spots/${id}/forecast?days=7`, targetRatio: 0.5 },
    { name: "tides", path: `/v1/spots/${id}/tides?days=7`, targetRatio: 0.6 },
    { name: "now", path: `/v1/spots/${id}/now`, targetRatio: 0.6 },
    // A buoy's reading beside the forecast: the buoy 51201 of the fake NDBC below, off Pipeline.
    { name: "observations", path: `/v1/spots/${id}/observations` },
    { name: "usage", path: "/v1/usage", targetRatio: 0.5 },
  ];
}

const machine = describeMachine();
const dataDir = tempDir("bench");
console.log(`surfcast bench (${quick ? "quick" : "full"}) — data in ${dataDir}`);
const keys = createScaleKeys(dataDir, EMAIL, KEY_COUNT);
const sections: Section[] = [];
const show = (s: Section) => {
  sections.push(s);
  console.log("\n" + renderSection(s));
};

if (!httpOnly) show(await startupSection(settings.startupRuns));
show(await refreshSection(dataDir));
if (!httpOnly) show(await waveModelsSection(dataDir));
if (!httpOnly) show(await tideWindowSection());
if (!httpOnly) show(await tideSourcesSection(dataDir));
if (!httpOnly) show(await alertsSection());

const app = await openApp(loadConfig({ dataDir, port: 0, host: "127.0.0.1", scheduler: false }));
const spot = app.spots.search({ q: "pipeline", limit: 1 })[0] ?? app.spots.all()[0];
if (!httpOnly) show(await isolatedMicroSection(dataDir, quick));
if (!httpOnly) show(bestSpotsSection(app, quick));
if (!httpOnly) show(upstreamWeightSection(CATALOG_PATH, app.spots.all().length));
if (!httpOnly) show(await metricsSection(app, quick));
if (!httpOnly) show(await isolatedGateSection(dataDir, keys, benchCases(spot), quick));
await app.close();
if (!httpOnly) show(await consoleSection());
if (!httpOnly) show(await embedSection(dataDir));
if (!httpOnly) show(await redisSection(quick));

const http = await httpSections({ dataDir, keys, cases: benchCases(spot), ...settings });
show(http.endpoints);
show(http.access);
show(http.memory);
const fleet = { keys: createScaleKeys(dataDir), cases: fleetCases(spot ?? { id: "pipeline", lat: 21.66, lng: -158.05 }) };
show(await fleetSection({ dataDir, ...fleet, connections: 50, durationSeconds: quick ? 2 : 5 }));
show(await isolatedFleetSection(dataDir, fleet.keys, fleet.cases, quick));
if (!httpOnly) show(await memorySection({ quick }));
if (!httpOnly) for (const section of await clusterSections({ ...settings, durationSeconds: quick ? 2 : 4, warmupSeconds: 1 })) show(section);

if (!quick && !httpOnly) {
  const doc = [
    "# Surfcast benchmark results",
    "",
    "Produced by `make bench` (bench/run.ts); rerun it to refresh this file. Method and decisions: bench/README.md.",
    "",
    renderMachine(machine),
    "",
    ...sections.map(renderSection),
  ].join("\n");
  await Bun.write(join(import.meta.dir, "RESULTS.md"), doc);
  console.log("\nwrote bench/RESULTS.md");
}
await ndbc.close();
