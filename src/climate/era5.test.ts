import { describe, expect, test } from "bun:test";
import { era5Query, openMeteoEra5, parseYear } from "./era5";

const RANGE = { year: 2025, start: "2025-01-01", end: "2025-12-31" };
const FIRST = Date.UTC(2025, 0, 1) / 1000;
const hours = 365 * 24;
const answer = (overrides: Record<string, unknown> = {}, hourly: Record<string, unknown> = {}) => ({
  latitude: 39.5,
  longitude: -9.5,
  hourly: { time: Array.from({ length: hours }, (_, i) => FIRST + i * 3600), wave_height: new Array(hours).fill(1.25), ...hourly },
  ...overrides,
});

test("era5Query: the Marine API's ERA5-Ocean over one year; the archive's wind in km/h; the key when there is one", () => {
  const marine = era5Query({ lat: 39.5, lng: -9.5 }, RANGE, ["wave_height"], undefined, true);
  expect(Object.fromEntries(marine)).toEqual({ latitude: "39.5", longitude: "-9.5", hourly: "wave_height", start_date: "2025-01-01", end_date: "2025-12-31", timezone: "GMT", timeformat: "unixtime", models: "era5_ocean", cell_selection: "sea" });
  const archive = era5Query({ lat: 39.5, lng: -9.5 }, RANGE, ["wind_speed_10m"], "k3y", false);
  expect(archive.get("wind_speed_unit")).toBe("kmh");
  expect(archive.get("models")).toBeNull();
  expect(archive.get("apikey")).toBe("k3y");
});

describe("parseYear: every hour of the year, or nothing", () => {
  test("a whole year: the grid point and each variable's values, nulls kept", () => {
    const parsed = parseYear(answer({}, { wave_height: [null, ...new Array(hours - 1).fill(1.25)] }), RANGE, ["wave_height"]);
    expect(parsed.lat).toBe(39.5);
    expect(parsed.lng).toBe(-9.5);
    expect(parsed.series[0]!.slice(0, 2)).toEqual([null, 1.25]);
    expect(parsed.series[0]).toHaveLength(hours);
  });

  test.each([
    ["the server's error", answer({ error: true, reason: "Parameter 'end_date' is out of allowed range" }), "out of allowed range"],
    ["an hour missing", answer({}, { time: Array.from({ length: hours - 1 }, (_, i) => FIRST + i * 3600) }), "not every hour"],
    ["a year starting late", answer({}, { time: Array.from({ length: hours }, (_, i) => FIRST + 3600 + i * 3600) }), "not every hour"],
    ["a variable left out", answer({}, { wave_height: undefined }), "no wave_height"],
    ["a variable cut short", answer({}, { wave_height: [1] }), "no wave_height"],
    ["no hourly section", { latitude: 39.5 }, "not every hour"],
  ])("%s is refused", (_, body, message) => {
    expect(() => parseYear(body, RANGE, ["wave_height"])).toThrow(message);
  });
});

test("a refusal is the server's reason, the API key never in it", async () => {
  const source = openMeteoEra5({
    marineUrl: "http://upstream",
    archiveUrl: "http://upstream",
    apiKey: "s3cr3t",
    timeoutMs: 1000,
    fetch: async (url) => new Response(JSON.stringify({ error: true, reason: `Cannot read ${url}` }), { status: 400 }),
  });
  const failure = await source({ lat: 39.5, lng: -9.5 }, { from: 2025, to: 2025 }).catch((error: Error) => error.message);
  expect(failure).toStartWith("/v1/marine: HTTP 400: Cannot read http://upstream/v1/marine?");
  expect(failure).toContain("apikey=[apikey]");
  expect(failure).not.toContain("s3cr3t");
});
