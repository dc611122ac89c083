/**
 * What a key that changes on every request costs, in process: the production handler (createFetchHandler: target,
 * key lookup, quota and burst window, usage counting, rate-limit headers, route) answering the fleet's endpoints
 * with the next of 48 keys on every request, and with one key throughout, a fresh Request per call. No socket, so the difference is only what the fleet changes (which key's state each request touches);
 * under wrk it would drown in the machine's noise. Rounds in the order fleet, one, one, fleet, the best of each
 * kept; each one-key round takes a key of its own, so no key's minute window fills. `make bench` runs it in a
 * process of its own (isolatedFleetSection).
 */
import { openApp } from "../src/app";
import { loadConfig } from "../src/config";
import { createFetchHandler } from "../src/server/http";
import type { BenchCase } from "./http";
import { meanUs } from "./gate-inprocess";
import type { Handler } from "./floor";
import { sectionInOwnProcess } from "./processes";
import { fmt, type Section } from "./report";

const TITLE = "A fleet of keys, in process: 48 keys against one";

async function fleetInProcess(dataDir: string, keys: string[], cases: BenchCase[], quick: boolean): Promise<Section> {
  const app = await openApp(loadConfig({ dataDir, port: 0, host: "127.0.0.1", scheduler: false }));
  app.spots.warm();
  const handler = createFetchHandler(app) as Handler;
  const count = quick ? 2_000 : 10_000;
  const section: Section = {
    title: TITLE,
    intro: `${fmt.int(count)} requests per round through the production handler, no socket; rounds fleet, one, one, fleet, the best of each kept.`,
    header: ["endpoint", `${keys.length} keys µs`, "one key µs", "fleet − one µs"],
    rows: [],
  };
  let spare = 0;
  for (const bench of cases) {
    const url = `http://127.0.0.1${bench.path}`;
    const best = { fleet: Infinity, one: Infinity };
    for (const side of ["fleet", "one", "one", "fleet"] as const) {
      const used = side === "fleet" ? keys : [keys[spare++ % keys.length]!];
      best[side] = Math.min(best[side], await meanUs(handler, url, used, count));
    }
    section.rows!.push([bench.name, fmt.us(best.fleet), fmt.us(best.one), fmt.us(best.fleet - best.one)]);
  }
  await app.meter.flush();
  await app.close();
  return section;
}

/** The section measured in a fresh process over `dataDir` (the arguments travel as JSON in one argument). */
export function isolatedFleetSection(dataDir: string, keys: string[], cases: BenchCase[], quick: boolean): Promise<Section> {
  return sectionInOwnProcess(TITLE, import.meta.path, [JSON.stringify({ dataDir, keys, cases, quick })]);
}

if (import.meta.main) {
  process.env.SURFCAST_LOG_LEVEL ??= "warn";
  const { dataDir, keys, cases, quick } = JSON.parse(process.argv[2]!) as { dataDir: string; keys: string[]; cases: BenchCase[]; quick: boolean };
  console.log(JSON.stringify(await fleetInProcess(dataDir, keys, cases, quick)));
}
