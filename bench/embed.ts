/**
 * Embed page render time, server side (#23): `/embed/{id}` of a 3-spot embed through the embed handler
 * in-process (no network, no browser), on a data dir with forecasts. The first view draws three charts; a repeat
 * view in the same minute is the cached page; the first view of a new minute rebuilds only the "now" blocks.
 * Targets: under 10 ms server time after the first view, under 150 KB of HTML.
 *   bun bench/embed.ts     alone: its own data dir, the fake Open-Meteo and a refresh of three spots; prints the table
 *   (make bench runs it as one section of the full report, on the bench's data dir)
 */
import { loadConfig } from "../src/config";
import { openApp } from "../src/app";
import { ManualClock } from "../src/core/clock";
import { createAccount, createKey } from "../src/access/accounts";
import { createEmbedHandler } from "../src/embed/http";
import { refreshForecasts } from "../src/server/refresh";
import { startFakeOpenMeteo } from "../test/support/fake-open-meteo";
import { tempDir } from "../test/support/env";
import { mounted } from "./mounted";
import { fmt, renderSection, type Section } from "./report";

const RUNS = 500;
const MINUTES = 20;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

export async function embedSection(dataDir: string): Promise<Section> {
  const title = "Embed page (3 spots, server side)";
  const clock = new ManualClock(Date.now());
  const app = await openApp(loadConfig({ dataDir, port: 0, host: "127.0.0.1", scheduler: false }, { SURFCAST_LOG_LEVEL: "warn" }), clock);
  try {
    const spots = app.spots.nearby({ lat: 21.66, lng: -158.05, radius: 30, limit: 50 }).filter((s) => app.forecasts.versionOf(s.id) !== null).slice(0, 3);
    if (spots.length < 3) return { title, notes: ["not measured: fewer than 3 spots with a forecast near Pipeline"] };
    await createAccount(app.stores.access, clock, "embed-bench@example.com", "scale", { dailyLimit: 100_000_000, minuteLimit: 100_000 });
    const key = await createKey(app.stores.access, clock, "embed-bench@example.com", "embed bench");
    await app.keys.reload();
    const embed = await app.embeds.create(key.id, { spots: spots.map((s) => s.id) });
    const handler = createEmbedHandler(app);
    const path = `/embed/${embed.id}`;
    const view = async (query = "") => {
      const started = performance.now();
      // Without the scheduler no first forecast is fetched on demand: nothing but the meter's first load waits.
      const res = await handler(new Request(`http://localhost${path}${query}`), path, mounted("embed", path).mount);
      return { ms: performance.now() - started, res };
    };
    const first = await view();
    const size = (await first.res.text()).length;
    const repeat: number[] = [];
    for (let i = 0; i < RUNS; i++) repeat.push((await view()).ms);
    const minute: number[] = [];
    for (let i = 0; i < MINUTES; i++) {
      clock.advance(60_000);
      minute.push((await view()).ms);
    }
    const screen = (await view("?mode=screen")).ms;
    repeat.sort((a, b) => a - b);
    minute.sort((a, b) => a - b);
    const ok = (ms: number) => fmt.verdict(ms < 10);
    const ms = (n: number) => n.toFixed(3);
    return {
      title,
      intro: `GET ${"`"}/embed/{id}${"`"} of a 3-spot embed (${spots.map((s) => s.name).join(", ")}) through the embed handler in-process, each view admitted and counted by the meter. Target: < 10 ms after the first view; page < 150 KB.`,
      header: ["view", "p50 ms", "p95 ms", "< 10 ms"],
      rows: [
        ["first view (draws 3 charts)", ms(first.ms), "", ""],
        [`repeat view, same minute (${RUNS} views)`, ms(percentile(repeat, 0.5)), ms(percentile(repeat, 0.95)), ok(percentile(repeat, 0.95))],
        [`first view of a new minute (${MINUTES} minutes: "now" rebuilt, charts kept)`, ms(percentile(minute, 0.5)), ms(percentile(minute, 0.95)), ok(percentile(minute, 0.95))],
        ["screen mode, first view", ms(screen), "", ""],
      ],
      notes: [`page size: ${(size / 1024).toFixed(1)} KB of HTML, target < 150 KB: ${fmt.verdict(size < 150 * 1024)}; plus the stylesheet, fetched once.`],
    };
  } finally {
    await app.close();
  }
}

if (import.meta.main) {
  const dataDir = tempDir("bench-embed");
  const fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  const app = await openApp(loadConfig({ dataDir, port: 0, host: "127.0.0.1", scheduler: false }, { ...process.env, SURFCAST_LOG_LEVEL: "warn", SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url }));
  await refreshForecasts(app, { spots: app.spots.nearby({ lat: 21.66, lng: -158.05, radius: 30, limit: 3 }) });
  await app.close();
  await fake.close();
  console.log(renderSection(await embedSection(dataDir)));
}
