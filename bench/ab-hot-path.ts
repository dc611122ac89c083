/**
 * A/B of the /v1 hot path between two source trees (this one and another checkout, e.g. main): the whole
 * in-process handler (gate, key, limiter, meter, route) answering GET /v1/spots/{id}/forecast, /v1/spots/{id}, /v1/spots/{id}/now and /v1/usage,
 * no socket. Usage: bun bench/ab-hot-path.ts OTHER_ROOT  (prints mean µs per request per tree, interleaved runs).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOTS = [resolve(import.meta.dir, ".."), resolve(process.argv[2] ?? "")];
if (process.argv[3] === "--swap") ROOTS.reverse(); // the other tree first: shows any bias of the order
// Four routes × seven rounds stay under the key's 100,000-a-minute burst limit.
const REQUESTS = 2_000;
const ROUNDS = 6;

async function handlerOf(root: string) {
  const { loadConfig } = await import(join(root, "src/config.ts"));
  const { openApp } = await import(join(root, "src/app.ts"));
  // The web server moved from http/ to server/: either tree can be the other one.
  const serverModule = ["src/server/http.ts", "src/http/server.ts"].map((p) => join(root, p)).find((p) => existsSync(p))!;
  const { createFetchHandler } = await import(serverModule);
  const { createAccount, createKey } = await import(join(root, "src/access/accounts.ts"));
  // The SQLite statements moved beside their store: either tree can be the other one.
  const storeModule = ["src/forecast/sqlite-store.ts", "src/forecast/store.ts"].map((p) => join(root, p)).find((p) => existsSync(p) && readFileSync(p, "utf8").includes("export function writeDocuments"))!;
  const { writeDocuments } = await import(storeModule);
  const dir = mkdtempSync(join(tmpdir(), "ab-"));
  const app = await openApp(loadConfig({ dataDir: dir, port: 0, scheduler: false, console: false }, {}));
  // Trees before the stores take the database itself, synchronously; awaiting their answers changes nothing.
  const accounts = app.stores?.access ?? app.db;
  await createAccount(accounts, app.clock, "ab@example.com", "scale", { dailyLimit: 100_000_000, minuteLimit: 100_000 });
  const key = (await createKey(accounts, app.clock, "ab@example.com", "ab")).key as string;
  await app.keys.reload();
  // One stored document for the forecast route (the same body in both trees).
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const hours = Array.from({ length: 48 }, (_, i) => ({
    time: new Date(hour + i * 3_600_000).toISOString().slice(0, 19) + "Z",
    waveHeight: 1.5, swellHeight: 1.2, wavePeriod: 12, waveDirection: 280, windSpeed: 10, windDirection: 90, windGust: 15,
    windDirectionType: "offshore", airTemperature: 15, waterTemperature: 16, weatherCode: 1, tide: null, rating: { beginner: 2, intermediate: 4, advanced: 3 },
  }));
  const day = new Date(hour).toISOString().slice(0, 10);
  // Trees since the engine choice keep the SQLite database under app.engine.
  writeDocuments(app.engine?.db ?? app.db, Date.now(), [{ spotId: "supertubos", body: JSON.stringify({ hours, daily: [{ date: day, sunrise: null, sunset: null, uvIndexMax: 2 }] }) }]);
  const handle = createFetchHandler(app);
  const close = async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { handle, key, close };
}

const trees = await Promise.all(ROOTS.map(handlerOf));
for (const path of ["/v1/spots/supertubos/forecast?days=1", "/v1/spots/supertubos", "/v1/spots/supertubos/now", "/v1/usage"]) {
  const totals = ROOTS.map(() => 0);
  // Round 0 only warms both trees up (JIT, caches): the tree run first would otherwise pay for it.
  for (let round = 0; round <= ROUNDS; round++) {
    // Each round swaps which tree goes first, so an order effect (GC, caches) falls on both alike.
    for (const [i, tree] of round % 2 ? [...trees.entries()].reverse() : [...trees.entries()]) {
      const request = () => new Request(`http://127.0.0.1${path}`, { headers: { "X-API-Key": tree.key } });
      const started = performance.now();
      for (let n = 0; n < REQUESTS; n++) {
        const res = await tree.handle(request());
        if (res.status !== 200) throw new Error(`${ROOTS[i]} ${path}: ${res.status}`);
        await res.arrayBuffer();
      }
      if (round > 0) totals[i]! += ((performance.now() - started) * 1000) / REQUESTS;
    }
  }
  console.log(path, ROOTS.map((root, i) => `${root}: ${(totals[i]! / ROUNDS).toFixed(2)} µs`).join(" | "), `Δ ${((totals[0]! - totals[1]!) / ROUNDS).toFixed(2)} µs`);
}
for (const tree of trees) await tree.close();
