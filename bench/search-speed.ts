/**
 * `bun bench/search-speed.ts [runs]`: the micro-benchmark's search row alone (same seeded query set as
 * bench/micro.ts: seededRng(9), 20,000 calls), over the default catalog in a throw-away data dir, repeated and
 * the best run kept (the machine is shared). For iterating on src/spots/search.ts without a full `make bench`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../src/db";
import { SpotService } from "../src/spots/service";
import { sqliteCatalog } from "../src/spots/sqlite-store";
import { searchQueries } from "./micro";
import { seededRng } from "./prng";
import { timeEach, type Timing } from "./stats";

const runs = Number(process.argv[2] ?? 5);
const service = await SpotService.open(sqliteCatalog(openDatabase(mkdtempSync(join(tmpdir(), "search-speed-")))));
const t0 = Bun.nanoseconds();
service.warm();
console.log(`index build ${((Bun.nanoseconds() - t0) / 1e6).toFixed(1)} ms`);
const queries = searchQueries(service.all(), seededRng(9), 20_000);
let best: Timing | null = null;
for (let r = 0; r < runs; r++) {
  const t = timeEach(queries, (p) => service.search(p));
  console.log(`run ${r + 1}: mean ${t.meanUs.toFixed(2)} µs, p50 ${t.p50Us.toFixed(2)} µs, p99 ${t.p99Us.toFixed(1)} µs, max ${t.maxUs.toFixed(0)} µs`);
  if (best === null || t.meanUs < best.meanUs) best = t;
}
console.log(`best: mean ${best!.meanUs.toFixed(2)} µs, p99 ${best!.p99Us.toFixed(1)} µs`);
