import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HOUR_MS, MINUTE_MS } from "../core/clock";
import { NDBC_FIXTURES } from "../../test/support/env";
import { parseMetFile, parseSpecFile, parseStationTable, type SpecRow } from "./ndbc";
import { candidateStations, chooseBuoy, freshLatest, lastDayHours, latestWaveReading, mergeReadings, readingsByHour, shortStationName, type CandidateState, type Reading } from "./readings";

const real = (name: string) => readFileSync(join(NDBC_FIXTURES, name), "utf8");
const rows = <T>(parsed: { ok: true; rows: T[] } | { ok: false }) => (parsed.ok ? parsed.rows : []);
const at = (iso: string) => Date.parse(iso);

const met41002 = rows(parseMetFile(real("41002.txt")));
const spec41002 = rows(parseSpecFile(real("41002.spec")));

describe("merging .txt and .spec", () => {
  const readings = mergeReadings(met41002, spec41002);

  test("the newest wave row carries the spectral row 10 minutes before it", () => {
    expect(latestWaveReading(readings)).toEqual({
      time: at("2018-08-01T14:50:00Z"),
      waveHeight: 1.2,
      dominantPeriod: 6,
      averagePeriod: 4.5,
      waveDirection: 209,
      swellHeight: 0.6,
      swellPeriod: 8.3,
      swellDirection: 135,
      windWaveHeight: 1,
      windWavePeriod: 5.9,
      windSpeed: 25.2,
      windGust: 28.8,
      windDirection: 150,
      waterTemperature: 28,
      airTemperature: null,
      pressure: 1023,
    });
  });

  test("newest first; a row with no spectral row near it has no swell figures", () => {
    expect(readings.every((r, i) => i === 0 || r.time <= readings[i - 1]!.time)).toBe(true);
    expect(readings[0]).toMatchObject({ time: at("2018-08-01T15:10:00Z"), waveHeight: null, swellHeight: null });
  });

  test("spectral rows older than the .txt rows stand alone", () => {
    const oldest = met41002.at(-1)!.time;
    const alone = readings.filter((r) => r.time < oldest - 20 * MINUTE_MS);
    expect(alone.length).toBeGreaterThan(0);
    expect(alone.every((r) => r.waveHeight !== null && r.windSpeed === null)).toBe(true);
  });

  test("46026: half-hourly spectral rows at :09/:10 and :40 pair with the wave rows at :20 and :50", () => {
    const merged = mergeReadings(rows(parseMetFile(real("46026.txt"))), rows(parseSpecFile(real("46026.spec"))));
    expect(latestWaveReading(merged)).toMatchObject({ time: at("2026-01-06T16:50:00Z"), waveHeight: 2.2, swellHeight: 2, swellDirection: 293 });
    expect(merged.find((r) => r.time === at("2026-01-06T16:20:00Z"))).toMatchObject({ waveHeight: 2.1, swellHeight: 1.7, swellPeriod: 10.8 });
  });

  test("a spectral file alone still gives readings, and no files none", () => {
    expect(latestWaveReading(mergeReadings([], spec41002))).toMatchObject({ time: at("2018-08-01T14:40:00Z"), waveHeight: 1.2, windSpeed: null });
    expect(mergeReadings([], [])).toEqual([]);
  });

  test("a fixed station without waves has no latest wave reading", () => {
    expect(latestWaveReading(mergeReadings(rows(parseMetFile(real("TPLM2.txt"))), []))).toBeNull();
  });
});

describe("the last 24 hours", () => {
  const reading = (iso: string, waveHeight: number | null): Reading => ({ ...mergeReadings([], [{ time: 0 } as SpecRow])[0]!, time: at(iso), waveHeight });

  test("24 hour starts up to now, oldest first", () => {
    const hours = lastDayHours(at("2026-11-21T13:25:00Z"));
    expect(hours).toHaveLength(24);
    expect(hours[0]).toBe(at("2026-11-20T14:00:00Z"));
    expect(hours[23]).toBe(at("2026-11-21T13:00:00Z"));
  });

  test.each([
    ["the reading at the hour", ["12:00", "12:20"], "12:00"],
    ["the nearer of two", ["11:40", "12:10"], "12:10"],
    ["30 minutes away still counts", ["12:30"], "12:30"],
    ["31 minutes away does not", ["12:31", "11:29"], null],
    ["a row without a wave height is passed over", ["12:00x", "12:20"], "12:20"],
  ])("%s", (_, times, expected) => {
    const readings = times.map((t) => reading(`2026-11-21T${t.replace("x", "")}:00Z`, t.endsWith("x") ? null : 1.5)).sort((a, b) => b.time - a.time);
    const found = readingsByHour(readings, [at("2026-11-21T12:00:00Z")]);
    expect(found.map((f) => new Date(f.reading.time).toISOString().slice(11, 16))).toEqual(expected ? [expected] : []);
  });

  test("41002's hours: one reading each, the :50 or :40 wave rows", () => {
    const readings = mergeReadings(met41002, spec41002);
    const hours = lastDayHours(at("2018-08-01T15:10:00Z"));
    const found = readingsByHour(readings, hours);
    expect(found.length).toBeGreaterThan(6);
    expect(found.every((f) => Math.abs(f.reading.time - f.hour) <= 30 * MINUTE_MS && f.reading.waveHeight !== null)).toBe(true);
    expect(found.at(-1)).toMatchObject({ hour: at("2018-08-01T15:00:00Z"), reading: { time: at("2018-08-01T14:50:00Z") } });
  });
});

describe("a spot's buoy", () => {
  const table = parseStationTable(real("activestations-excerpt.xml"));
  const stations = table.ok ? table.stations : [];
  // Banzai Pipeline, Oahu.
  const pipeline = { lat: 21.665, lng: -158.053 };

  test("stations within the radius, nearest first", () => {
    const near = candidateStations(stations, pipeline.lat, pipeline.lng, 100);
    expect(near.map((c) => c.station.id)).toEqual(["51201", "51202"]);
    expect(near[0]!.distanceKm).toBeCloseTo(6.8, 1);
    expect(candidateStations(stations, pipeline.lat, pipeline.lng, 5)).toEqual([]);
  });

  test("a tsunami station is never a candidate", () => {
    const tokyo = stations.find((s) => s.id === "21413")!;
    expect(candidateStations(stations, tokyo.lat, tokyo.lng, 100)).toEqual([]);
  });

  const candidates = (...states: CandidateState[]) => states.map((state, i) => ({ id: `S${i}`, state }));
  test.each([
    ["the nearest with waves", candidates("waves", "waves"), { buoy: { id: "S0", state: "waves" } }],
    ["a station without waves is passed over", candidates("no_waves", "waves"), { buoy: { id: "S1", state: "waves" } }],
    ["an unreadable station too, when a farther one has waves", candidates("unavailable", "waves"), { buoy: { id: "S1", state: "waves" } }],
    ["none in reach", candidates(), { reason: "no_buoy_in_reach" }],
    ["only stations without waves", candidates("no_waves"), { reason: "no_buoy_in_reach" }],
    ["none readable", candidates("no_waves", "unavailable"), { reason: "source_unavailable" }],
  ])("%s", (_, list, expected) => {
    expect(chooseBuoy(list)).toEqual(expected as never);
  });
});

describe("fresh or stale", () => {
  const now = at("2026-11-21T13:00:00Z");
  const readings = (ageMinutes: number) => mergeReadings([], [{ time: now - ageMinutes * MINUTE_MS, waveHeight: 1.4 } as SpecRow]);
  test.each([
    ["25 minutes old", 25, false, { latest: true }],
    ["3 hours old exactly", 180, false, { latest: true }],
    ["older than 3 hours", 181, false, { reason: "stale" }],
    ["older, and the files failing", 181, true, { reason: "source_unavailable" }],
    ["fresh while the files fail: the stored reading", 25, true, { latest: true }],
  ])("%s", (_, age, failing, expected) => {
    const answer = freshLatest(readings(age), now, failing);
    expect("latest" in answer ? { latest: answer.latest.time === now - age * MINUTE_MS } : answer).toEqual(expected as never);
  });

  test("nothing at all is stale, or unavailable", () => {
    expect(freshLatest([], now, false)).toEqual({ reason: "stale" });
    expect(freshLatest([], now + HOUR_MS, true)).toEqual({ reason: "source_unavailable" });
  });
});

describe("a station's short name", () => {
  const cases: [string, string][] = [
    ["SD 1077 - 24 NM SSW of San Francisco, CA (Site of 46012)", "SD 1077"],
    ["NORTHWESTERN HAWAII TWO - 186 NM NW of Kauai Is., HI   ", "NORTHWESTERN HAWAII TWO"],
    ["Waimea Bay, HI (106)", "Waimea Bay, HI (106)"],
    ["Point Reyes Offshore Wave Measuring Station, California", "Point Reyes Offshore Wave Measu…"],
    ["", ""],
  ];
  for (const [name, short] of cases) test(JSON.stringify(name), () => expect(shortStationName(name)).toBe(short));
});
