import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NDBC_FIXTURES } from "../../test/support/env";
import { compassDegrees, parseMetFile, parseSpecFile, parseStationTable, type Parsed, type SpecRow } from "./ndbc";

const real = (name: string) => readFileSync(join(NDBC_FIXTURES, name), "utf8");
const at = (iso: string) => Date.parse(iso);

function rowsOf<T>(parsed: Parsed<T>): T[] {
  if (!parsed.ok) throw new Error(`not a file: ${parsed.problem}`);
  return parsed.rows;
}

describe("activestations.xml", () => {
  const parsed = parseStationTable(real("activestations-excerpt.xml"));
  const stations = parsed.ok ? parsed.stations : [];
  const byId = (id: string) => stations.find((s) => s.id === id)!;

  test("every station line of the real table, ids upper-cased as the file names spell them", () => {
    expect(stations).toHaveLength(25);
    expect(byId("BUZM3")).toEqual({ id: "BUZM3", name: "Buzzards Bay, MA", lat: 41.397, lng: -71.033, owner: "NDBC", type: "fixed", met: true });
    expect(stations.map((s) => s.id)).toContain("1801593");
  });

  test.each([
    ["entities decoded", "42092", (s: ReturnType<typeof byId>) => s.owner.includes("Texas A&M University")],
    ["trailing spaces of a name trimmed", "51101", (s: ReturnType<typeof byId>) => s.name === "NORTHWESTERN HAWAII TWO - 186 NM NW of Kauai Is., HI"],
    ["integer coordinates", "13001", (s: ReturnType<typeof byId>) => s.lat === 12 && s.lng === -23],
    ["an empty name", "14041", (s: ReturnType<typeof byId>) => s.name === ""],
    ["a TAO row without met flags", "32303", (s: ReturnType<typeof byId>) => s.type === "tao" && !s.met],
    ["met=n", "46042", (s: ReturnType<typeof byId>) => !s.met && s.type === "other"],
  ])("%s (%s)", (_, id, check) => {
    expect(check(byId(id))).toBe(true);
  });

  test.each([
    ["", "empty"],
    ["<!DOCTYPE html><html><head><title>503 Service Unavailable</title></head><body></body></html>", "html"],
    ['<?xml version="1.0"?>\n<stations created="x" count="0">\n</stations>\n', "no_rows"],
    ["Not Found", "no_header"],
  ])("not a station table: %j → %s", (body, problem) => {
    expect(parseStationTable(body)).toEqual({ ok: false, problem: problem as never });
  });
});

describe("realtime2 .txt", () => {
  test("41002: newest first, m/s as km/h, MM as null, PTDY and TIDE not read", () => {
    const rows = rowsOf(parseMetFile(real("41002.txt")));
    expect(rows).toHaveLength(60);
    expect(rows[0]!.time).toBe(at("2018-08-01T15:10:00Z"));
    expect(rows.every((r, i) => i === 0 || r.time < rows[i - 1]!.time)).toBe(true);
    expect(rows[0]).toEqual({
      time: at("2018-08-01T15:10:00Z"),
      windDirection: 160,
      windSpeed: 21.6,
      windGust: 25.2,
      waveHeight: null,
      dominantPeriod: null,
      averagePeriod: null,
      waveDirection: null,
      pressure: 1022.9,
      airTemperature: null,
      waterTemperature: 28,
    });
    const firstWaves = rows.find((r) => r.waveHeight !== null)!;
    expect(firstWaves).toMatchObject({ time: at("2018-08-01T14:50:00Z"), waveHeight: 1.2, dominantPeriod: 6, averagePeriod: 4.5, waveDirection: 209 });
    // At :40 the wave figures are repeated without the dominant period.
    expect(rows.find((r) => r.time === at("2018-08-01T14:40:00Z"))).toMatchObject({ waveHeight: 1.2, dominantPeriod: null, averagePeriod: 4.5 });
  });

  test("46026: waves at :20 and :50", () => {
    const rows = rowsOf(parseMetFile(real("46026.txt")));
    expect(rows).toHaveLength(30);
    expect(rows[0]).toMatchObject({ time: at("2026-01-06T16:50:00Z"), waveHeight: 2.2, dominantPeriod: 9, averagePeriod: 6.7, waveDirection: 296, windSpeed: 25.2, waterTemperature: 14 });
  });

  test("TPLM2, a fixed station: a good file whose wave height is always missing", () => {
    const rows = rowsOf(parseMetFile(real("TPLM2.txt")));
    expect(rows).toHaveLength(48);
    expect(rows.every((r) => r.waveHeight === null && r.dominantPeriod === null && r.waveDirection === null)).toBe(true);
    expect(rows[0]).toMatchObject({ time: at("2022-08-13T18:00:00Z"), windDirection: 10, windSpeed: 14.8, airTemperature: 23.3 });
  });

  test("a historical file: oldest first, 99.00 / 999 / 99.0 sentinels, no PTDY column", () => {
    const rows = rowsOf(parseMetFile(real("tplm2h2020-excerpt.txt")));
    expect(rows).toHaveLength(24);
    expect(rows[0]!.time).toBeGreaterThan(rows[23]!.time);
    expect(rows.at(-1)).toEqual({
      time: at("2020-01-01T00:00:00Z"),
      windDirection: 188,
      windSpeed: 22,
      windGust: 22.3,
      waveHeight: null,
      dominantPeriod: null,
      averagePeriod: null,
      waveDirection: null,
      pressure: 1006.1,
      airTemperature: 9.5,
      waterTemperature: 6.6,
    });
  });

  const header = real("41002.txt").split("\n").slice(0, 2).join("\n") + "\n";
  const allMissing = header + "2018 08 01 15 10  MM   MM   MM    MM    MM    MM  MM     MM    MM    MM    MM   MM   MM    MM\n";
  test.each([
    ["an empty body", "", "empty"],
    ["an HTML error page", "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n", "html"],
    ["a plain 404 body", "Not Found\n", "no_header"],
    ["the header alone", header, "no_rows"],
    ["a file of MM", allMissing, "all_missing"],
    ["the ERDDAP error body", real("erddap-error-404.txt"), "no_header"],
    ["a spectral file's header over no rows", "#YY  MM DD hh mm WVHT\n", "no_rows"],
  ])("%s is not a buoy file", (_, body, problem) => {
    expect(parseMetFile(body)).toEqual({ ok: false, problem: problem as never });
  });

  test("a cut last line and a row with a bad date are dropped, the rest kept", () => {
    const whole = real("46026.txt");
    const cut = whole.slice(0, whole.length - 40);
    const rows = rowsOf(parseMetFile(cut));
    expect(rows).toHaveLength(29);
    const badDate = header + "2018 02 30 15 10 160  6.0  7.0   1.1     6   4.5 209 1022.9    MM  28.0    MM   MM   MM    MM\n" + whole.split("\n")[2] + "\n";
    expect(rowsOf(parseMetFile(badDate)).map((r) => r.time)).toEqual([at("2026-01-06T16:50:00Z")]);
  });

  test("CRLF line endings read the same", () => {
    expect(parseMetFile(real("46026.txt").replaceAll("\n", "\r\n"))).toEqual(parseMetFile(real("46026.txt")));
  });
});

describe("realtime2 .spec", () => {
  test("41002: compass points as degrees, STEEPNESS not read", () => {
    const rows = rowsOf(parseSpecFile(real("41002.spec")));
    expect(rows).toHaveLength(50);
    expect(rows[0]).toEqual({
      time: at("2018-08-01T14:40:00Z"),
      waveHeight: 1.2,
      swellHeight: 0.6,
      swellPeriod: 8.3,
      swellDirection: 135,
      windWaveHeight: 1,
      windWavePeriod: 5.9,
      windWaveDirection: 203,
      averagePeriod: 4.5,
      waveDirection: 209,
    } satisfies SpecRow);
  });

  test("no swell separated: SwH 0.0 with SwP and SwD MM", () => {
    const row = rowsOf(parseSpecFile(real("41002.spec"))).find((r) => r.time === at("2018-08-01T10:40:00Z"))!;
    expect(row).toMatchObject({ swellHeight: 0, swellPeriod: null, swellDirection: null, windWaveDirection: 203 });
  });

  test("44013: -99 as the mean wave direction and N/A steepness are no value", () => {
    const rows = rowsOf(parseSpecFile(real("44013-excerpt.spec")));
    expect(rows).toHaveLength(19);
    expect(rows.find((r) => r.time === at("2022-05-06T22:40:00Z"))).toEqual({
      time: at("2022-05-06T22:40:00Z"),
      waveHeight: 0.2,
      swellHeight: null,
      swellPeriod: null,
      swellDirection: null,
      windWaveHeight: null,
      windWavePeriod: null,
      windWaveDirection: null,
      averagePeriod: 4.1,
      waveDirection: null,
    });
  });

  test("46026: half-hourly rows at irregular minutes", () => {
    const rows = rowsOf(parseSpecFile(real("46026.spec")));
    expect(rows).toHaveLength(43);
    expect(rows.some((r) => new Date(r.time).getUTCMinutes() === 9)).toBe(true);
  });

  test("columns are found by name: a .txt read as a .spec gives the columns they share, the others null", () => {
    const rows = rowsOf(parseSpecFile(real("46026.txt")));
    expect(rows[0]).toMatchObject({ waveHeight: 2.2, swellHeight: null, swellDirection: null } satisfies Partial<SpecRow>);
  });
});

test.each([
  ["N", 0],
  ["NNE", 23],
  ["SSE", 158],
  ["WNW", 293],
  ["NNW", 338],
  ["MM", null],
  ["-99", null],
  ["NO", null],
  ["215", 215],
  ["999", null],
])("compass %s → %p", (token, degrees) => {
  expect(compassDegrees(token)).toBe(degrees);
});
