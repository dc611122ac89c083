/**
 * In-process micro-benchmarks over the real catalog: the service calls behind the hot endpoints, timed per call
 * (search, nearby, one hour's rating, one spot's tide window), with generated but seeded inputs.
 */
import { openApp, type App } from "../src/app";
import { loadConfig } from "../src/config";
import type { NearbyParams, SearchParams } from "../src/core/params";
import { rateHour, type RatingInput } from "../src/forecast/rating";
import type { Spot } from "../src/spots/types";
import { seededRng, type Rng } from "./prng";
import { fmt, type Section } from "./report";
import { sectionInOwnProcess } from "./processes";
import { timeEach, type Timing } from "./stats";
import { atOnce } from "../test/support/at-once";

const HEADER = ["benchmark", "calls", "mean µs", "p50 µs", "p99 µs", "target", "verdict"];

/** A row; the target is a p99 bound, and a mean bound when given. */
function row(name: string, t: Timing, target?: { p99Us: number; meanUs?: number }): string[] {
  if (target === undefined) return [name, fmt.int(t.count), fmt.us(t.meanUs), fmt.us(t.p50Us), fmt.us(t.p99Us), "—", "—"];
  const us = (v: number) => (v >= 1000 ? `${v / 1000} ms` : `${v} µs`);
  const bound = `${target.meanUs === undefined ? "" : `mean < ${us(target.meanUs)}, `}p99 < ${us(target.p99Us)}`;
  const met = t.p99Us < target.p99Us && (target.meanUs === undefined || t.meanUs < target.meanUs);
  return [name, fmt.int(t.count), fmt.us(t.meanUs), fmt.us(t.p50Us), fmt.us(t.p99Us), bound, fmt.verdict(met)];
}

const stripMarks = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "");

export function searchQueries(spots: readonly Spot[], rng: Rng, count: number): SearchParams[] {
  const out: SearchParams[] = [];
  while (out.length < count) {
    const spot = rng.pick(spots);
    const firstWord = spot.name.split(/\s+/)[0] ?? spot.name;
    const candidates = [
      spot.name,
      spot.name.slice(0, rng.int(2, 6)),
      firstWord.toLowerCase(),
      stripMarks(spot.name).toUpperCase(),
      spot.country,
      String.fromCharCode(rng.int(97, 122), rng.int(97, 122), rng.int(97, 122)),
    ];
    const q = rng.pick(candidates).trim();
    if (q.length >= 2) out.push({ q: q.slice(0, 200), limit: rng.pick([10, 10, 10, 50]) });
  }
  return out;
}

export function nearbyQueries(spots: readonly Spot[], rng: Rng, count: number): NearbyParams[] {
  const clamp = (v: number, lim: number) => Math.max(-lim, Math.min(lim, v));
  return Array.from({ length: count }, () => {
    const around = rng.next() < 0.7;
    const spot = rng.pick(spots);
    return {
      lat: around ? clamp(spot.lat + (rng.next() - 0.5), 90) : rng.next() * 180 - 90,
      lng: around ? clamp(spot.lng + (rng.next() - 0.5), 180) : rng.next() * 360 - 180,
      radius: rng.pick([0, 10, 50, 50, 100]),
      limit: rng.pick([10, 10, 50]),
    };
  });
}

function ratingInputs(rng: Rng, count: number): RatingInput[] {
  return Array.from({ length: count }, () => ({
    swellHeight: rng.next() * 6,
    wavePeriod: 3 + rng.next() * 17,
    waveDirection: rng.int(0, 359),
    windSpeed: rng.next() * 60,
    windGust: rng.next() * 80,
    windDirection: rng.int(0, 359),
    facing: rng.next() < 0.1 ? null : rng.int(0, 359),
  }));
}

/** The rating stub returns one constant; a real rating tells clean groundswell from onshore slop. */
function ratingIsStub(): boolean {
  const good = rateHour({ swellHeight: 1.5, wavePeriod: 13, waveDirection: 270, windSpeed: 4, windGust: 8, windDirection: 90, facing: 270 });
  const flat = rateHour({ swellHeight: 0.1, wavePeriod: 4, waveDirection: 270, windSpeed: 45, windGust: 70, windDirection: 270, facing: 270 });
  return JSON.stringify(good) === JSON.stringify(flat);
}

export function microSection(app: App, quick: boolean): Section {
  const section: Section = {
    title: "In-process micro-benchmarks",
    intro:
      "Service calls timed one by one without HTTP, over the real catalog (the refreshed data dir), with seeded generated inputs and a warm-up pass, in a process of their own: one that holds what a server holds, not the harness's state (measured inside the harness after the refresh and tide sections, the same search calls took 1.4–2.5× as long).",
    header: HEADER,
    rows: [],
    notes: [],
  };
  const spots = app.spots.all();
  const calls = quick ? 2_000 : 20_000;
  if (spots.length === 0) {
    section.notes!.push("search, nearby, tide window — not measured: the spot catalog is empty (SpotService not implemented yet)");
  } else {
    const rng = seededRng(9);
    section.rows!.push(row(`search (${spots.length} spots)`, timeEach(searchQueries(spots, rng, calls), (p) => app.spots.search(p)), { meanUs: 15, p99Us: 100 }));
    section.rows!.push(row("nearby", timeEach(nearbyQueries(spots, rng, calls), (p) => app.spots.nearby(p)), { p99Us: 500 }));
    const sample = quick ? spots.slice(0, 500) : spots;
    const tideless = sample.every((s) => atOnce(app.tides.get(s.id, 7)).tideless);
    if (tideless) section.notes!.push("tide window — not measured: every spot is tideless (tides not implemented yet)");
    else section.rows!.push(row("tide window, 7 days (get)", timeEach(sample, (s) => app.tides.get(s.id, 7), 50)));
    const hour = 3_600_000;
    const start = Math.floor(Date.now() / hour) * hour;
    const hours = Array.from({ length: 168 }, (_, i) => start + i * hour);
    if (!tideless) section.rows!.push(row("hourly tide, 168 h (for refresh)", timeEach(sample, (s) => app.tides.hourly(s.id, hours), 50)));
  }
  if (ratingIsStub()) section.notes!.push("rateHour — not measured: still the stub (returns a constant)");
  else section.rows!.push(row("rateHour (one hour)", timeEach(ratingInputs(seededRng(10), calls * 5), rateHour)));
  return section;
}

/**
 * The section measured in a fresh process (`bun bench/micro.ts <data dir> [--quick]` prints it as JSON): the
 * timings are not those of whatever the harness did before.
 */
export function isolatedMicroSection(dataDir: string, quick: boolean): Promise<Section> {
  return sectionInOwnProcess("In-process micro-benchmarks", import.meta.path, [dataDir, ...(quick ? ["--quick"] : [])]);
}

if (import.meta.main) {
  process.env.SURFCAST_LOG_LEVEL ??= "warn";
  const app = await openApp(loadConfig({ dataDir: process.argv[2]!, port: 0, host: "127.0.0.1", scheduler: false }));
  app.spots.warm();
  console.log(JSON.stringify(microSection(app, process.argv.includes("--quick"))));
  await app.close();
}
