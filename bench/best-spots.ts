/**
 * "Where to surf now" and the upstream budget of the surf intelligence (issue #16):
 *  - GET /v1/spots/best's service call, in-process, for 100 km radii around seeded catalog spots, with every
 *    spot in range having a forecast (the fixtures' three documents, shared) — the warm path, outlooks cached —
 *    plus the one-time cost of turning a stored document into an outlook (the cold path, per spot);
 *  - a full refresh's Open-Meteo call weight over the shipped catalog, computed from the planned requests, with
 *    and without the extra marine variable of issue #15, against the 1.5 × spots budget.
 * Run alone: `bun bench/best-spots.ts` (prints both sections); `make bench` includes them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../src/app";
import { BOUNDS } from "../src/core/bounds";
import { ManualClock } from "../src/core/clock";
import { BestSpotsService, outlookOf, type Outlook } from "../src/forecast/best-spots";
import { assembleDocument, type StoredForecast } from "../src/forecast/document";
import { callWeight, FORECAST_DAILY, FORECAST_DAYS, FORECAST_HOURLY, MARINE_HOURLY, parseResponse } from "../src/forecast/openmeteo";
import { planBatches } from "../src/forecast/refresh";
import { OPEN_METEO_FIXTURES } from "../test/support/env";
import { seededRng } from "./prng";
import { fmt, type Section } from "./report";
import { summarize, timeEach } from "./stats";

/** The fixtures' three locations as stored documents (the same hours the fake serves). */
function fixtureDocuments(): StoredForecast[] {
  const read = (name: string) => readFileSync(join(OPEN_METEO_FIXTURES, name), "utf8");
  const marine = parseResponse(read("marine_multi.json"), "marine", 3);
  const forecast = parseResponse(read("forecast_multi.json"), "forecast", 3);
  return [0, 1, 2].map((i) => assembleDocument(marine[i]!, forecast[i]!, 270, (t) => t.map(() => null)));
}

export function bestSpotsSection(app: App, quick: boolean): Section {
  const section: Section = {
    title: "Where to surf now: GET /v1/spots/best in-process (issue #16)",
    intro:
      "`BestSpotsService.find` for 100 km radii around seeded catalog spots (level and hours 1..72 drawn at random, limit 10). Every spot in range has a forecast: the fixtures' three 7-day documents, shared by all spots, their outlooks cached as in a warm server. The cold row is the one-time cost per spot of turning a stored document into an outlook (JSON.parse + typed arrays), paid the first time an area is ranked after a refresh.",
    header: ["benchmark", "calls", "spots in range (mean)", "mean µs", "p50 µs", "p99 µs", "target", "verdict"],
    rows: [],
    notes: [],
  };
  const spots = app.spots.all();
  const documents = fixtureDocuments();
  const bodies = documents.map((d) => JSON.stringify(d));
  const outlooks: Outlook[] = documents.map(outlookOf);
  const firstHour = Date.parse(documents[0]!.hours[0]!.time);
  const clock = new ManualClock(firstHour + 30 * 3_600_000 + 600_000);
  const service = new BestSpotsService(app.spots, { outlook: (s) => outlooks[s.id.length % 3]! }, clock);
  const rng = seededRng(16);
  const calls = quick ? 300 : 3000;
  const levels = BOUNDS.level.values;
  const queries = Array.from({ length: calls }, () => {
    const s = rng.pick(spots);
    return { lat: s.lat, lng: s.lng, radius: 100, limit: 10, level: rng.pick(levels), hours: rng.int(1, 72), units: "metric" as const };
  });
  const inRangeOf = (q: (typeof queries)[number]) => app.spots.nearby({ ...q, limit: Infinity }).length;
  const counts = queries.map(inRangeOf);
  const inRange = counts.reduce((a, b) => a + b, 0) / queries.length;
  const t = timeEach(queries, (q) => service.find(q));
  section.rows!.push(["best spots, radius 100 km (warm)", fmt.int(t.count), fmt.int(inRange), fmt.us(t.meanUs), fmt.us(t.p50Us), fmt.us(t.p99Us), "mean < 2 ms", fmt.verdict(t.meanUs < 2000)]);
  // The densest areas of the catalog: the 5 % of queries with the most spots in range, each asked 10 times.
  const dense = queries.filter((_, i) => counts[i]! >= [...counts].sort((a, b) => b - a)[Math.floor(counts.length / 20)]!);
  const denseRuns = dense.flatMap((q) => Array.from({ length: 10 }, () => q));
  const d = timeEach(denseRuns, (q) => service.find(q));
  const denseRange = dense.reduce((n, q) => n + inRangeOf(q), 0) / dense.length;
  section.rows!.push(["best spots, radius 100 km, densest 5 % (warm)", fmt.int(d.count), fmt.int(denseRange), fmt.us(d.meanUs), fmt.us(d.p50Us), fmt.us(d.p99Us), "mean < 2 ms", fmt.verdict(d.meanUs < 2000)]);
  const cold = summarize(
    Array.from({ length: quick ? 200 : 1000 }, (_, i) => {
      const start = Bun.nanoseconds();
      outlookOf(JSON.parse(bodies[i % 3]!) as StoredForecast);
      return Bun.nanoseconds() - start;
    }),
  );
  section.rows!.push(["outlook from a stored document (cold, per spot)", fmt.int(cold.count), "1", fmt.us(cold.meanUs), fmt.us(cold.p50Us), fmt.us(cold.p99Us), "—", "—"]);
  section.notes!.push(
    `The most crowded 100 km radius of this run held ${fmt.int(Math.max(...counts))} spots.`,
    "A cold area costs about (spots in range × the cold row) once; the outlooks (~1.5 KB a spot, ~9 MB for the whole catalog) are kept until the next refresh.",
  );
  return section;
}

export function upstreamWeightSection(catalogPath: string, count: number): Section {
  const catalog = JSON.parse(readFileSync(catalogPath, "utf8")) as { lat: string; lng: string }[];
  const spots = catalog
    .map((s, i) => ({ id: String(i), lat: Number(s.lat), lng: Number(s.lng) }))
    .filter((s) => Number.isFinite(s.lat) && Number.isFinite(s.lng));
  const batches = planBatches(spots, 500);
  const marine = batches.reduce((n, b) => n + b.marine.length, 0);
  const forecast = batches.reduce((n, b) => n + b.forecast.length, 0);
  const forecastWeight = callWeight(FORECAST_HOURLY.length + FORECAST_DAILY.length, FORECAST_DAYS);
  const budget = 1.5 * count;
  const rowFor = (what: string, marineVars: number) => {
    const perMarine = callWeight(marineVars, FORECAST_DAYS);
    const weight = marine * perMarine + forecast * forecastWeight;
    return [what, String(marineVars), perMarine.toFixed(1), fmt.int(weight), `${(weight / count).toFixed(3)}×`, fmt.verdict(weight <= budget)];
  };
  return {
    title: "Upstream call weight of a full refresh (issue #16, with #15)",
    intro: `Computed from the refresh plan of the shipped catalog (${fmt.int(count)} spots): ${fmt.int(marine)} marine + ${fmt.int(forecast)} forecast locations after grid dedup, Open-Meteo weight max(1, nVars/10 × max(1, days/14)) per location, ${FORECAST_DAYS} days; the forecast request (8 variables) weighs 1.0 per location. Budget: 1.5 × spots = ${fmt.int(budget)}.`,
    header: ["marine request", "marine variables", "weight per marine location", "refresh weight", "× spots", "within 1.5 ×"],
    rows: [
      rowFor("before #16 (7 variables)", 7),
      rowFor("#16: + secondary, tertiary swell, wind sea", MARINE_HOURLY.length),
      rowFor("#16 + #15's sea_level_height_msl", MARINE_HOURLY.length + 1),
      rowFor("#16 + #15 without the tertiary swell", MARINE_HOURLY.length + 1 - 3),
    ],
    notes: [
      "Combined with #15 the marine request has 17 variables (1.7 per location) and a full refresh exceeds the budget by about 2 %. Dropping the tertiary swell (the smallest partition, rarely the one that breaks) brings it to 14 variables and ~1.35 ×; `test/forecast/refresh.test.ts` fails when the budget is exceeded, so the merge must choose.",
    ],
  };
}

if (import.meta.main) {
  const { loadConfig } = await import("../src/config");
  const { openApp } = await import("../src/app");
  const { renderSection } = await import("./report");
  const { CATALOG_PATH, tempDir } = await import("../test/support/env");
  const app = await openApp(loadConfig({ dataDir: tempDir("bench-best"), port: 0, host: "127.0.0.1", scheduler: false }));
  console.log(renderSection(bestSpotsSection(app, process.argv.includes("--quick"))));
  console.log(renderSection(upstreamWeightSection(CATALOG_PATH, app.spots.all().length)));
  await app.close();
}
