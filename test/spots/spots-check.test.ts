/**
 * `surfcast spots check` and the corrections overlay: the check's rules on a made-up catalog and geography (pure),
 * the overlay's format and application, the shipped overlay against the default catalog (read at run time, never
 * copied), and the console command through the compiled binary.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { checkCatalog, FAR_FROM_COAST_KM, type CheckReport, type CountryShape, type Geography } from "../../src/spots/check";
import { applyOverlay, DEFAULT_OVERLAY, parseOverlay } from "../../src/spots/overlay";
import { parseImport } from "../../src/spots/formats";
import type { Spot } from "../../src/spots/types";
import { cli, installDir } from "../support/binary";
import { startFakeOpenMeteo } from "../support/fake-open-meteo";
import { BINARY, CATALOG_PATH } from "../support/env";

const portugal: CountryShape = { name: "Portugal", west: -9.5, south: 37, east: -6.2, north: 42.2, centroid: { lat: 39.6, lng: -8 } };
const geo: Geography = {
  // The coast is the meridian 9.4° W: distance grows eastward (about 86 km per degree at these latitudes).
  coastKm: (_lat, lng, maxKm) => {
    const km = Math.abs(lng + 9.4) * 86;
    return km <= maxKm ? km : null;
  },
  country: (name) => (name === "Portugal" ? portugal : null),
};
let n = 0;
const spot = (name: string, lat: number, lng: number, country = "Portugal"): Spot => ({ id: `s${++n}`, hexId: n.toString(16).padStart(16, "0"), name, country, region: null, lat, lng, facing: null, tideless: false, timezone: "Europe/Lisbon" });

describe("catalog check rules", () => {
  const report: CheckReport = checkCatalog(
    [
      spot("Supertubos", 39.34, -9.36), // fine
      spot("Inland Pool", 39.5123, -8.8765), // ~43 km inland
      spot("Placeholder", 39.61, -8.01), // on the centroid, inland
      spot("Atlas Point", 40.5, -7.5), // 40°30′ N 7°30′ W, inland: a gazetteer's country coordinates
      spot("Southern Sign", -38.7, -9.39), // latitude sign flipped
      spot("Eastern Sign", 38.7, 9.39), // longitude sign flipped (and far from this coast)
      spot("Twice", 41.1, -9.39),
      spot("twice", 41.104, -9.391), // same folded name, ~460 m away
      spot("Twice", 41.6, -9.39), // same name, far away: not a duplicate
      spot("Elsewhere", 10, 10, "Atlantis"), // unknown country: coast check only
    ],
    geo,
  );
  const names = (kind: string) => report.findings.filter((f) => f.kind === kind).map((f) => f.name);

  test("each kind with its count", () => {
    expect(report.spots).toBe(10);
    expect(names("far_from_coast")).toEqual(["Inland Pool", "Placeholder", "Atlas Point", "Eastern Sign", "Elsewhere"]);
    expect(names("country_centroid")).toEqual(["Placeholder", "Atlas Point"]);
    expect(names("wrong_hemisphere")).toEqual(["Southern Sign", "Eastern Sign"]);
    expect(names("duplicate")).toEqual(["twice"]);
    expect(report.counts).toEqual({ far_from_coast: 5, country_centroid: 2, wrong_hemisphere: 2, duplicate: 1 });
    expect(report.unknownCountries).toEqual(["Atlantis"]);
  });

  test("findings carry the distance and say why", () => {
    const inland = report.findings.find((f) => f.name === "Inland Pool" && f.kind === "far_from_coast")!;
    expect(inland.distanceKm).toBeGreaterThan(FAR_FROM_COAST_KM);
    expect(inland.detail).toContain("km from the nearest coastline");
    expect(report.findings.find((f) => f.name === "Southern Sign")!.detail).toContain("latitude sign flipped");
    expect(report.findings.find((f) => f.kind === "duplicate")!.distanceKm).toBeLessThan(1);
  });
});

describe("corrections overlay", () => {
  test("an entry is an id, exactly one corrected field and a reason", () => {
    expect(parseOverlay({ corrections: [{ id: "00000000000000aa", lat: 1.5, reason: "sign" }] })).toEqual([{ id: "00000000000000aa", field: "lat", value: 1.5, reason: "sign" }]);
    for (const bad of [
      { id: "00000000000000aa", lat: 1, lng: 2, reason: "two fields" },
      { id: "00000000000000aa", lat: 1 },
      { id: "nothex", lat: 1, reason: "x" },
      { id: "00000000000000aa", hexId: "x", reason: "not correctable" },
    ])
      expect(() => parseOverlay({ corrections: [bad] })).toThrow(/catalog overlay/);
  });

  test("the shipped overlay: every correction matches a default-catalog record; Terranova (Baja Sur) is in the north again", () => {
    const parsed = parseImport(readFileSync(CATALOG_PATH, "utf8")).records;
    const { records, unmatched } = applyOverlay(parsed, DEFAULT_OVERLAY);
    expect(unmatched).toEqual([]);
    expect(records).toHaveLength(5877);
    for (const c of DEFAULT_OVERLAY) expect(c.reason.length).toBeGreaterThan(20);
    const terranova = records.find((r) => r.name === "Terranova")!;
    expect(terranova.lat).toBeGreaterThan(23);
    expect(terranova.hexId).not.toBe(parsed.find((r) => r.name === "Terranova")!.hexId);
  });
});

test("surfcast spots check --json through the binary: counts per kind over the loaded (corrected) catalog", () => {
  const result = cli(installDir("spots-check"), ["spots", "check", "--json"]);
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as CheckReport;
  expect(report.spots).toBe(5877);
  expect(report.counts.wrong_hemisphere).toBe(0);
  expect(report.counts.far_from_coast).toBeGreaterThan(30);
  expect(report.findings.some((f) => f.name === "Eisbach" && f.kind === "far_from_coast")).toBe(true);
  expect(report.counts.duplicate).toBeGreaterThan(0);
  const text = cli(installDir("spots-check-text"), ["spots", "check"]);
  expect(text.stdout).toMatch(/^checked 5877 spots: \d+ far from any coastline, \d+ on a country centroid, 0 sign in the wrong hemisphere/);
}, 60_000);

test("spots check lists where the wave models read no sea: every model (no forecast served), or some of them", async () => {
  const fake = await startFakeOpenMeteo();
  try {
    const dir = installDir("spots-check-models");
    const run = async (args: string[], env: Record<string, string> = {}) => {
      const proc = Bun.spawn([BINARY, "--data-dir", dir, ...args], {
        env: { ...process.env, SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_OPEN_METEO_RETRIES: "0", ...env },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      return { code: await proc.exited, stdout, stderr };
    };
    // One model, on land at Supertubos: no hour of 0 m is served, and the check says why.
    fake.setModel("best_match", { zero: true });
    const single = await run(["refresh", "--spots", "supertubos"], { SURFCAST_WAVE_MODELS: "best_match" });
    expect(single.code).toBe(3); // nothing refreshed
    expect(single.stderr).toContain("no wave model sees sea at some spots");
    const report = await run(["spots", "check"]);
    expect(report.stdout).toMatch(/no wave model sees sea, so no forecast is served \(1\)[^\n]*\n {2}supertubos {2}Supertubos \(Portugal\)[^\n]*best_match: zero series/);
    // Several models, one of them on land: the spot is forecast from the others, and that model is named.
    fake.reset();
    fake.setModel("ncep_gfswave025", { zero: true });
    expect((await run(["refresh", "--spots", "supertubos"])).code).toBe(0);
    const json = JSON.parse((await run(["spots", "check", "--json"])).stdout) as { modelGaps: Record<string, { leftOut: Record<string, string>; sealess: boolean }> };
    expect(json.modelGaps.supertubos).toMatchObject({ leftOut: { ncep_gfswave025: "zero series" }, sealess: false });
    // Every model counted again: the entry goes.
    fake.reset();
    expect((await run(["refresh", "--spots", "supertubos"])).code).toBe(0);
    expect((await run(["spots", "check"])).stdout).not.toContain("wave model");
  } finally {
    await fake.close();
  }
}, 60_000);
