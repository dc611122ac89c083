/**
 * The gate's cost above the floor, in process (#18: at most 1.5 µs per request on every endpoint). The same keyed
 * routes behind the production gate (createFetchHandler: target check, key lookup, quota and burst, usage counting,
 * rate-limit headers) and behind the floor (bench/floor.ts: read the key, send the five rate-limit headers), each
 * request a fresh Request handed to the handler: no sockets and no second process, so what differs is only the gate's
 * own work, which wrk over loopback on a shared 2-core machine cannot resolve to a microsecond. Each side runs in
 * mirrored order (gated, floor, floor, gated) and its best round is kept. `make bench` runs it in a process of its
 * own (isolatedGateSection), like the micro-benchmarks: not in the harness's state.
 */
import { openApp, type App } from "../src/app";
import { loadConfig } from "../src/config";
import { createKeyedRoutes } from "../src/http/routes";
import { createFetchHandler } from "../src/server/http";
import type { BenchCase } from "./http";
import { floorHandler, type Handler } from "./floor";
import { fmt, type Section } from "./report";
import { sectionInOwnProcess } from "./processes";

const TARGET_US = 1.5;

/** Mean µs per request over `count` requests (rotating over `keys`, so no burst window fills), every one answered 200. */
export async function meanUs(handler: Handler, url: string, keys: string[], count: number): Promise<number> {
  const request = (i: number) => new Request(url, { headers: { "X-API-Key": keys[i % keys.length]! } });
  const first = await handler(request(0));
  if (first.status !== 200) throw new Error(`${url} answered ${first.status}: ${await first.text()}`);
  let refused = 0;
  const started = Bun.nanoseconds();
  for (let i = 0; i < count; i++) if ((await handler(request(i))).status !== 200) refused++;
  const us = (Bun.nanoseconds() - started) / count / 1000;
  if (refused > 0) throw new Error(`${url}: ${refused} of ${count} requests were not answered 200 (a burst window filled?)`);
  return us;
}

export async function gateInProcessSection(app: App, keys: string[], cases: BenchCase[], quick: boolean): Promise<Section> {
  const gated = createFetchHandler(app) as Handler;
  const floor = floorHandler(createKeyedRoutes(app));
  const count = quick ? 2_000 : 20_000;
  const section: Section = {
    title: "Access layer above the floor, in process (#18)",
    intro:
      `The production gate vs the floor (the least a conforming gate must do: read the key, send the five rate-limit headers) in front of the same routes, ${fmt.int(count)} requests per round handed straight to each handler (no sockets), ` +
      "rounds in the order gated, floor, floor, gated, the best round of each kept. /v1/usage is left out: the floor cannot answer it.",
    header: ["endpoint", "gated µs", "floor µs", "gate above floor µs", "target", "verdict"],
    rows: [],
  };
  for (const bench of cases.filter((c) => c.path !== "/v1/usage")) {
    const url = `http://127.0.0.1${bench.path}`;
    const best = { gated: Infinity, floor: Infinity };
    for (const side of ["gated", "floor", "floor", "gated"] as const) {
      best[side] = Math.min(best[side], await meanUs(side === "gated" ? gated : floor, url, keys, count));
    }
    const above = best.gated - best.floor;
    section.rows!.push([bench.name, fmt.us(best.gated), fmt.us(best.floor), fmt.us(above), `≤ ${TARGET_US}`, fmt.verdict(above <= TARGET_US)]);
  }
  await app.meter.flush();
  return section;
}

/** The section measured in a fresh process over `dataDir` (the arguments travel as JSON in one argument). */
export function isolatedGateSection(dataDir: string, keys: string[], cases: BenchCase[], quick: boolean): Promise<Section> {
  return sectionInOwnProcess("Access layer above the floor, in process (#18)", import.meta.path, [JSON.stringify({ dataDir, keys, cases, quick })]);
}

if (import.meta.main) {
  process.env.SURFCAST_LOG_LEVEL ??= "warn";
  const { dataDir, keys, cases, quick } = JSON.parse(process.argv[2]!) as { dataDir: string; keys: string[]; cases: BenchCase[]; quick: boolean };
  const app = await openApp(loadConfig({ dataDir, port: 0, host: "127.0.0.1", scheduler: false }));
  app.spots.warm();
  console.log(JSON.stringify(await gateInProcessSection(app, keys, cases, quick)));
  await app.close();
}
