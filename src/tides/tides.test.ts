/**
 * Tides: the station rule, the stored window and its daily move, served extremes and the hourly tide — on the
 * real tide database and the default catalog (read from CATALOG_PATH at run time, never copied).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { openDatabase, type Db } from "../db";
import { DAY_MS, ManualClock } from "../core/clock";
import { plainPacer, type Pacer } from "../core/pacing";
import type { Spot } from "../spots/types";
import { TideService, type WindowReport } from "./service";
import { BuiltChoices } from "./built-choices";
import { sqliteTideStore } from "./sqlite-store";
import { chooseStation, MAX_STATION_DISTANCE_KM, NEGLIGIBLE_RANGE_M, type StationCandidate } from "./stations";
import { windowAt, windowWork } from "./window";
import { alternating, tideAt } from "./prediction";
import type { SeaLevelSeries, TideExtreme, TidesResponse } from "./types";
import { seaLevelSeries } from "../../test/support/fake-sea-level";
import { join } from "node:path";
import { CATALOG_PATH, ROOT, tempDir } from "../../test/support/env";
import { fakeSpotService } from "../../test/support/fake-spots";
import { writeElsewhere } from "../../test/support/elsewhere";
import { waitFor } from "../../test/support/wait";

const HOUR = 3_600_000;

/** A week of the fake model's hourly sea level at a spot, from 00:00 UTC of `now`'s day (what a refresh fetches). */
function modelWeek(spot: Pick<Spot, "lat" | "lng">, now: number): SeaLevelSeries {
  const time = Array.from({ length: 168 }, (_, i) => Math.floor(now / DAY_MS) * DAY_MS + i * HOUR);
  return { time, values: seaLevelSeries(spot.lat, spot.lng, time) };
}

// ── pure rules ───────────────────────────────────────────────────────────────────────────────────
const candidate = (id: string, name: string, distanceKm: number, type: "reference" | "subordinate" = "reference"): StationCandidate => ({
  id,
  name,
  type,
  source: "test",
  distanceKm,
  datum: "MLLW",
});

describe("station rule", () => {
  const lagoon = candidate("lagoon", "Melbourne Causeway", 3);
  const ocean = candidate("ocean", "Canova Beach", 5, "subordinate");
  const far = candidate("far", "Cocoa Beach", 32);
  const ranges: Record<string, number> = { lagoon: 0.08, ocean: 1.37, far: 1.46 };
  const rangeOf = (id: string) => ranges[id]!;

  test("a damped lagoon gauge next to the beach loses to an open-coast station", async () => {
    const choice = chooseStation(null, [lagoon, ocean, far], rangeOf);
    expect(choice.tideless).toBe(false);
    expect(choice.station?.id).toBe("ocean");
    expect(choice.reason).toContain("Melbourne Causeway");
  });

  test("enclosed-water names are penalised even with a real range", async () => {
    const harbour = candidate("harbour", "Coffs Harbour Marina", 2);
    const choice = chooseStation(null, [harbour, candidate("open", "Point Lookout", 15)], () => 1.5);
    expect(choice.station?.id).toBe("open");
  });

  test("no station within the distance → tideless", async () => {
    const choice = chooseStation(null, [candidate("x", "Antalya", MAX_STATION_DISTANCE_KM + 1)], () => 1);
    expect(choice).toMatchObject({ tideless: true, station: null });
    expect(choice.reason).toContain("no tide station within");
  });

  test("only negligible ranges → tideless", async () => {
    const choice = chooseStation(null, [candidate("a", "Lake gauge", 10), candidate("b", "Other", 20)], () => NEGLIGIBLE_RANGE_M / 2);
    expect(choice).toMatchObject({ tideless: true, station: null });
    expect(choice.reason).toContain("negligible");
  });

  test("the import override wins both ways", async () => {
    expect(chooseStation(true, [ocean], rangeOf)).toMatchObject({ tideless: true, station: null });
    const forced = chooseStation(false, [candidate("x", "Far away", 900)], () => 0.05);
    expect(forced.tideless).toBe(false);
    expect(forced.station?.id).toBe("x");
    expect(forced.reason).toStartWith("override: tidal");
  });
});

describe("window", () => {
  const now = Date.parse("2025-03-10T15:30:00Z");
  const target = windowAt(now);

  test("runs from yesterday's UTC midnight to nine days after today's", async () => {
    expect(new Date(target.start).toISOString()).toBe("2025-03-09T00:00:00.000Z");
    expect(new Date(target.end).toISOString()).toBe("2025-03-19T00:00:00.000Z");
  });

  test("work needed to reach the target", async () => {
    expect(windowWork(null, target)).toEqual({ kind: "full" });
    expect(windowWork(target, target)).toEqual({ kind: "none" });
    const yesterday = windowAt(now - DAY_MS);
    expect(windowWork(yesterday, target)).toEqual({ kind: "extend", from: yesterday.end });
    expect(windowWork(windowAt(now - 20 * DAY_MS), target)).toEqual({ kind: "full" });
    expect(windowWork(windowAt(now + DAY_MS), target)).toEqual({ kind: "full" });
  });
});

describe("reading predicted series", () => {
  const step = 600_000;
  const levels = Float64Array.from({ length: 200 }, (_, i) => Math.sin((2 * Math.PI * i * step) / (12 * HOUR)));
  const curve = { startMs: 0, stepMs: step, levels };
  const turns = [
    { time: 3 * HOUR, type: "high" as const, height: 1 },
    { time: 9 * HOUR, type: "low" as const, height: -1 },
  ];

  test("height off the curve, state toward the next turning point, slope after the last one", async () => {
    expect(tideAt(curve, turns, 0)).toEqual({ height: 0, state: "rising" });
    expect(tideAt(curve, turns, 3 * HOUR).height).toBeCloseTo(1, 3);
    expect(tideAt(curve, turns, 3 * HOUR - 2 * 60_000).state).toBe("rising");
    expect(tideAt(curve, turns, 3 * HOUR).state).toBe("falling");
    expect(tideAt(curve, turns, 9 * HOUR - 60_000).state).toBe("falling");
    expect(tideAt(curve, turns, 9 * HOUR + 60_000).state).toBe("rising");
    expect(tideAt(curve, [], 15 * HOUR + 60_000).state).toBe("falling");
  });

  test("extremes are made to alternate, keeping the higher high and the lower low", async () => {
    const e = (time: number, type: "high" | "low", height: number) => ({ time, type, height });
    const series = [e(1, "low", -0.1), e(2, "high", 0.62), e(3, "high", 0.16), e(4, "low", -0.06), e(5, "low", -0.2), e(6, "high", 0.5)];
    expect(alternating(series)).toEqual([e(1, "low", -0.1), e(2, "high", 0.62), e(5, "low", -0.2), e(6, "high", 0.5)]);
  });
});

test("one copy of the tide database: neaps resolves the top-level package (npm override)", async () => {
  const fromNeaps = Bun.resolveSync("@neaps/tide-database", join(ROOT, "node_modules/neaps/dist"));
  expect(fromNeaps).toBe(Bun.resolveSync("@neaps/tide-database", ROOT));
});

// ── the service on the whole default catalog ────────────────────────────────────────────────────
interface CatalogRecord {
  name: string;
  country: string;
  lat: string;
  lng: string;
}

/** The default catalog as spots (ids are positional here; the catalog service makes the real slugs). */
async function catalogSpots(): Promise<Spot[]> {
  const records = (await Bun.file(CATALOG_PATH).json()) as CatalogRecord[];
  return records
    .filter((r) => Number.isFinite(Number.parseFloat(r.lat)) && Number.isFinite(Number.parseFloat(r.lng)))
    .map((r, i) => {
      const [country = "", ...rest] = r.country.split(",").map((s) => s.trim());
      return { id: `spot-${i}`, hexId: i.toString(16).padStart(16, "0"), name: r.name, country, region: rest.join(", ") || null, lat: Number(r.lat), lng: Number(r.lng), facing: null, tideless: null, timezone: "UTC" };
    });
}

function insertSpots(db: Db, spots: Spot[]): void {
  const put = db.$client.query("INSERT INTO spots (id, hex_id, name, country, region, lat, lng) VALUES (?, ?, ?, ?, ?, ?, ?)");
  db.$client.transaction(() => {
    for (const s of spots) put.run(s.id, s.hexId, s.name, s.country, s.region, s.lat, s.lng);
  })();
}


function springRange(extremes: TideExtreme[]): number {
  let range = 0;
  for (let i = 1; i < extremes.length; i++) range = Math.max(range, Math.abs(extremes[i]!.height - extremes[i - 1]!.height));
  return range;
}

function expectWellFormed(extremes: TideExtreme[], from: number, days: number): void {
  expect(extremes.length).toBeGreaterThanOrEqual(days * 2 - 1);
  for (const [i, e] of extremes.entries()) {
    expect(e.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const t = Date.parse(e.time);
    expect(t).toBeGreaterThanOrEqual(from);
    expect(t).toBeLessThan(from + days * DAY_MS);
    expect(Math.round(e.height * 1000) / 1000).toBe(e.height);
    const prev = extremes[i - 1];
    if (!prev) continue;
    expect(t).toBeGreaterThan(Date.parse(prev.time));
    expect(e.type).not.toBe(prev.type);
    if (e.type === "high") expect(e.height).toBeGreaterThan(prev.height);
    else expect(e.height).toBeLessThan(prev.height);
  }
}

describe("tides over the default catalog", () => {
  // A few days before the full moon of 2025-01-13, so the 7 days served include spring tides.
  const clock = new ManualClock(Date.parse("2025-01-11T10:20:00Z"));
  let spots: Spot[];
  let db: Db;
  let tides: TideService;
  let report: WindowReport | null;
  const byName = (name: string, region: RegExp = /./) => {
    const spot = spots.find((s) => s.name === name && region.test(`${s.country}, ${s.region}`));
    if (!spot) throw new Error(`no catalog spot named ${name}`);
    return spot;
  };
  const stationRow = (spotId: string) =>
    db.$client.query<{ tideless: number; station_id: string | null; station_name: string | null; reason: string }, [string]>("SELECT * FROM spot_tide_station WHERE spot_id = ?").get(spotId);

  // The whole catalog's window: ~15 s alone, several times that beside the suite's other files on a slow host.
  beforeAll(async () => {
    spots = await catalogSpots();
    db = openDatabase(tempDir("tides"));
    insertSpots(db, spots);
    // Without the build's choices: the rule runs here, through the tide database's worker (src/tides/built-choices.test.ts checks the build's).
    tides = new TideService(sqliteTideStore(db), clock, fakeSpotService(spots), undefined, new BuiltChoices(null));
    report = await tides.maintainWindow();
  }, 300_000);

  test("the full pass chooses every spot's station and stores the window", async () => {
    expect(report).not.toBeNull();
    console.log("tide window pass over the catalog:", report);
    expect(report!.spots).toBe(spots.length);
    expect(report!.chosen).toBe(spots.length);
    const rows = db.$client.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM spot_tide_station").get()!;
    expect(rows.n).toBe(spots.length);
    const meta = Object.fromEntries(db.$client.query<{ key: string; value: string }, []>("SELECT key, value FROM meta WHERE key LIKE 'tides.window.%'").all().map((r) => [r.key, r.value]));
    expect(meta).toEqual({ "tides.window.start": "2025-01-10T00:00:00.000Z", "tides.window.end": "2025-01-20T00:00:00.000Z" });
    const bounds = db.$client.query<{ lo: number; hi: number }, []>("SELECT MIN(time) AS lo, MAX(time) AS hi FROM tide_extremes").get()!;
    expect(bounds.lo).toBeGreaterThanOrEqual(Date.parse("2025-01-10T00:00:00Z"));
    expect(bounds.lo).toBeLessThan(Date.parse("2025-01-10T13:00:00Z"));
    expect(bounds.hi).toBeLessThan(Date.parse("2025-01-20T00:00:00Z"));
    expect(bounds.hi).toBeGreaterThan(Date.parse("2025-01-19T11:00:00Z"));
  });

  test("Great Lakes and Black Sea spots: no station serves them; tideless once the model confirms it, never by accident before", async () => {
    const closed = spots.filter((s) => s.country === "Bulgaria" || /great lakes|black[- ]sea/i.test(`${s.country}, ${s.region}`));
    expect(closed.length).toBeGreaterThanOrEqual(35);
    for (const spot of closed) {
      expect({ spot: spot.name, tideless: stationRow(spot.id)?.tideless }).toEqual({ spot: spot.name, tideless: 1 });
      // Before the model was read: tideless only where every station in reach has a negligible range.
      const before = (await tides.get(spot.id, 7));
      if (!before.tideless) expect(before).toMatchObject({ extremes: [], unavailable: "awaiting_model", source: null });
      else expect(before.tidelessReason).toStartWith("negligible tide");
    }
    (await tides.acceptSeaLevel(closed.map((s) => ({ spotId: s.id, series: modelWeek(s, clock.now()) }))));
    for (const spot of closed) {
      const after = (await tides.get(spot.id, 7));
      expect(after).toMatchObject({ tideless: true, extremes: [], datum: null, station: null, source: null, unavailable: null });
      expect(after.tidelessReason).toMatch(/^(no sea-level data|negligible tide)/);
    }
  });

  test("a coast far from any usable station (Morocco's Atlantic) gets the model's tides instead of being tideless", async () => {
    const morocco = spots.filter((s) => s.country === "Morocco" && s.lng < -6);
    expect(morocco.length).toBeGreaterThan(40);
    const farFromStations = morocco.filter((s) => stationRow(s.id)?.tideless === 1);
    expect(farFromStations.length).toBeGreaterThan(20);
    for (const spot of farFromStations) expect((await tides.get(spot.id, 7))).toMatchObject({ tideless: false, extremes: [], unavailable: "awaiting_model" });
    // A spot removed by an import while the refresh ran is skipped, not a failed batch.
    const gone = { spotId: "removed-since-planned", series: modelWeek(farFromStations[0]!, clock.now()) };
    (await tides.acceptSeaLevel([gone, ...farFromStations.map((s) => ({ spotId: s.id, series: modelWeek(s, clock.now()) }))]));
    for (const spot of farFromStations) {
      const served = (await tides.get(spot.id, 7));
      expect(served).toMatchObject({ tideless: false, datum: "MSL", station: null, unavailable: null, source: { type: "model", variable: "sea_level_height_msl" } });
      expect(served.extremes.length).toBeGreaterThanOrEqual(24);
      expect(springRange(served.extremes)).toBeGreaterThan(2);
      const hours = Array.from({ length: 24 }, (_, i) => Date.parse("2025-01-12T00:00:00Z") + i * HOUR);
      const hourly = (await tides.hourly(spot.id, hours, modelWeek(spot, clock.now())));
      expect(hourly.every((h) => h !== null)).toBe(true);
    }
  });

  test("ocean coasts of Hawaii, France, Portugal, California and Florida have tides", async () => {
    const open = spots.filter((s) => ["France", "Portugal"].includes(s.country) || (s.country === "USA" && /Hawaii|California|Florida/.test(s.region ?? "")));
    expect(open.length).toBeGreaterThan(400);
    const tideless = open.filter((s) => stationRow(s.id)?.tideless !== 0).map((s) => `${s.name} (${s.region})`);
    expect(tideless).toEqual([]);
  });

  test("Boardwalk (Melbourne Beach) is not predicted from the Indian River lagoon", async () => {
    const boardwalk = byName("Boardwalk", /Florida/);
    const row = stationRow(boardwalk.id)!;
    expect(row.tideless).toBe(0);
    expect(row.station_name).not.toMatch(/Causeway|River|Lagoon/i);
    const served = (await tides.get(boardwalk.id, 7));
    expect(served.station?.name).toBe(row.station_name!);
    expect(springRange(served.extremes)).toBeGreaterThan(0.7);
  });

  const plausible: [string, RegExp, number, number][] = [
    ["La Graviere", /France, Landes/, 2, 4.5],
    ["Praia da Nazaré", /Portugal/, 2, 4.5],
    ["Pipeline", /Hawaii/, 0.2, 1.2],
    ["Boardwalk", /Florida/, 0.7, 1.6],
    ["Cocoa Beach Pier", /Florida/, 0.7, 1.6],
  ];
  for (const [name, region, lo, hi] of plausible) {
    test(`${name}: spring range ${lo}–${hi} m, alternating highs and lows from now on`, async () => {
      const spot = byName(name, region);
      const served: TidesResponse = (await tides.get(spot.id, 7));
      expect(served).toMatchObject({ spot: { id: spot.id, name: spot.name }, units: "metric", tideless: false });
      expect(served.datum).toMatch(/^(MLLW|LAT|MSL|CD|MLWS|NLLW|LLWLT)$/);
      expect(served.station).toMatchObject({ id: expect.any(String), name: expect.any(String), source: expect.any(String) });
      expect(served.station!.distanceKm).toBeLessThanOrEqual(MAX_STATION_DISTANCE_KM);
      expectWellFormed(served.extremes, clock.now(), 7);
      const range = springRange(served.extremes);
      expect(range).toBeGreaterThanOrEqual(lo);
      expect(range).toBeLessThanOrEqual(hi);
    });
  }

  test("days limits the span served", async () => {
    const spot = byName("Praia da Nazaré", /Portugal/);
    const one = (await tides.get(spot.id, 1)).extremes;
    const seven = (await tides.get(spot.id, 7)).extremes;
    expectWellFormed(one, clock.now(), 1);
    expect(one.length).toBeLessThanOrEqual(5);
    expect(seven.slice(0, one.length)).toEqual(one);
  });

  test("hourly tide is null exactly for tideless spots and rises from each low to the next high", async () => {
    const hours = Array.from({ length: 168 }, (_, i) => Date.parse("2025-01-11T10:00:00Z") + i * HOUR);
    const greatLake = spots.find((s) => /great lakes/i.test(s.region ?? ""))!;
    expect((await tides.hourly(greatLake.id, hours)).every((h) => h === null)).toBe(true);
    for (const [name, region] of plausible) {
      const spot = byName(name, region);
      const hourly = (await tides.hourly(spot.id, hours));
      const extremes = (await tides.get(spot.id, 7)).extremes.map((e) => ({ ...e, t: Date.parse(e.time) }));
      let checked = 0;
      hours.forEach((t, i) => {
        const h = hourly[i]!;
        expect(h).not.toBeNull();
        const next = extremes.find((e) => e.t > t);
        const prev = extremes.findLast((e) => e.t <= t);
        if (!next || !prev) return;
        expect({ name, at: new Date(t).toISOString(), state: h.state }).toEqual({ name, at: new Date(t).toISOString(), state: next.type === "high" ? "rising" : "falling" });
        const [lo, hi] = next.type === "high" ? [prev.height, next.height] : [next.height, prev.height];
        expect(h.height).toBeGreaterThanOrEqual(lo - 0.01);
        expect(h.height).toBeLessThanOrEqual(hi + 0.01);
        checked++;
      });
      expect(checked).toBeGreaterThan(150);
      // The states follow the curve itself: two rising hours in a row never go down (beyond a wiggle), and vice versa.
      for (let i = 1; i < hourly.length; i++) {
        const [a, b] = [hourly[i - 1]!, hourly[i]!];
        if (a.state === "rising" && b.state === "rising") expect(b.height).toBeGreaterThan(a.height - 0.02);
        if (a.state === "falling" && b.state === "falling") expect(b.height).toBeLessThan(a.height + 0.02);
      }
    }
  });

  test("the daily move predicts only the new day, prunes the old one and keeps the series seamless", async () => {
    const spot = byName("La Graviere", /France, Landes/);
    const before = (await tides.get(spot.id, 7)).extremes;
    clock.advance(DAY_MS);
    // The pass pauses after each batch of 10 spots, and says every 4th batch that its short-lived garbage can go.
    const paced = { pauses: 0, young: 0 };
    const pacer: Pacer = { ...plainPacer, pause: () => (paced.pauses++, plainPacer.pause()), dropYoung: () => void paced.young++ };
    const moved = await tides.maintainWindow({ pacer });
    expect(moved!.chosen).toBe(0);
    expect(paced).toEqual({ pauses: Math.ceil(spots.length / 10), young: Math.floor(Math.ceil(spots.length / 10) / 4) });
    const bounds = db.$client.query<{ lo: number; hi: number }, []>("SELECT MIN(time) AS lo, MAX(time) AS hi FROM tide_extremes").get()!;
    expect(bounds.lo).toBeGreaterThanOrEqual(Date.parse("2025-01-11T00:00:00Z"));
    expect(bounds.hi).toBeGreaterThanOrEqual(Date.parse("2025-01-20T12:00:00Z"));
    expect(bounds.hi).toBeLessThan(Date.parse("2025-01-21T00:00:00Z"));
    const after = (await tides.get(spot.id, 7)).extremes;
    expectWellFormed(after, clock.now(), 7);
    const overlap = before.filter((e) => Date.parse(e.time) >= clock.now());
    expect(after.slice(0, overlap.length)).toEqual(overlap);
  });

  test("a spot added later is computed on demand; an import override (by another process) wins and is applied again", async () => {
    const nazare = byName("Praia da Nazaré", /Portugal/);
    const late: Spot = { ...nazare, id: "late-spot", hexId: "ffffffffffffffff" };
    spots.push(late);
    insertSpots(db, [late]);
    const served = (await tides.get(late.id, 3));
    expect(served.tideless).toBe(false);
    expectWellFormed(served.extremes, clock.now(), 3);

    writeElsewhere(db, "UPDATE spots SET tideless_override = 1 WHERE id = ?", [late.id]);
    await waitFor("the override to be noticed", async () => (await tides.get(late.id, 3)).tideless);
    expect((await tides.get(late.id, 3))).toMatchObject({ tideless: true, extremes: [] });
    expect(stationRow(late.id)?.reason).toStartWith("override");
    expect((await tides.hourly(late.id, [clock.now()]))).toEqual([null]);

    const lake = spots.find((s) => /great lakes/i.test(s.region ?? ""))!;
    writeElsewhere(db, "UPDATE spots SET tideless_override = 0 WHERE id = ?", [lake.id]);
    await waitFor("the override to be noticed", async () => !(await tides.get(lake.id, 3)).tideless);
    writeElsewhere(db, "UPDATE spots SET tideless_override = NULL WHERE id = ?", [lake.id]);
    await waitFor("the cleared override to be noticed", async () => (await tides.get(lake.id, 3)).tideless);
  });

  test("an unknown spot is not_found", async () => {
    expect(() => tides.get("no-such-spot", 7)).toThrow(/No spot/);
  });
});
