/**
 * Spot objects' derived fields (facing, tideless, timezone) and the spot guide: the pure guide rules, the time
 * zone lookup, and GET /v1/spots/{id} once a facing and a tide station exist (validated against the document).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureFacings, loadFacings } from "../../src/forecast/facings";
import { spotGuide } from "../../src/spots/guide";
import { timezoneAt } from "../../src/spots/timezone";
import { startTestServer, type TestServer } from "../support/inprocess";
import { waitFor } from "../support/wait";

describe("spotGuide", () => {
  test.each([
    // facing, offshore wind arc, swell window
    [270, [45, 135], [180, 0]],
    [10, [145, 235], [280, 100]],
    [322.5, [97.5, 187.5], [232.5, 52.5]],
  ] as const)("facing %p: offshore %p, swell window %p", (facing, offshore, window) => {
    const g = spotGuide(facing, null);
    expect([g.offshoreWind!.from, g.offshoreWind!.to]).toEqual([...offshore]);
    expect([g.swellWindow!.from, g.swellWindow!.to]).toEqual([...window]);
    expect(g.offshoreWind!.method).toContain("180° ± 45°");
    expect(g.tideStation).toBeNull();
  });

  test("unknown facing: no wind or swell arc; the station keeps its distance, rounded to 100 m", () => {
    const g = spotGuide(null, { id: "noaa/1", name: "Somewhere", distanceKm: 12.345 });
    expect(g.offshoreWind).toBeNull();
    expect(g.swellWindow).toBeNull();
    expect(g.tideStation).toMatchObject({ id: "noaa/1", name: "Somewhere", distanceKm: 12.3 });
    expect(g.tideStation!.method).toContain("tide station");
  });
});

test("timezoneAt: the IANA zone at the spot", () => {
  expect(timezoneAt(21.665, -158.053)).toBe("Pacific/Honolulu");
  expect(timezoneAt(39.344, -9.363)).toBe("Europe/Lisbon");
  expect(timezoneAt(-8.815, 115.0867)).toBe("Asia/Makassar");
  expect(timezoneAt(-33.89, 151.27)).toBe("Australia/Sydney");
});

describe("GET /v1/spots/{id} with a computed facing and a chosen tide station", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer();
    key = await server.key("scale");
  });
  afterAll(() => server.close());

  test("before: facing and tideless null, no guide arcs; after: both on every spot object, and the guide", async () => {
    const before = (await (await server.get("/v1/spots/pipeline", key)).json()) as any;
    expect(before).toMatchObject({ facing: null, tideless: null, timezone: "Pacific/Honolulu", guide: { offshoreWind: null, swellWindow: null, tideStation: null } });

    const spot = server.app.spots.get("pipeline");
    await ensureFacings(server.app.stores.forecasts, [spot]);
    await server.app.tides.get("pipeline", 1); // chooses the station
    // Derived facts are checked at most once a second.
    const after = await waitFor("the facing and the station to be served", async () => {
      const res = await server.get("/v1/spots/pipeline", key);
      const body = res.status === 200 ? ((await res.json()) as any) : null;
      return body?.facing !== null && body?.tideless !== null && body;
    }, 5_000);
    const facing = (await loadFacings(server.app.stores.forecasts)).get("pipeline")!;
    expect(facing).toBeGreaterThan(300); // Pipeline faces north-west
    expect(after.facing).toBe(facing);
    expect(after.tideless).toBe(false);
    expect(after.guide.offshoreWind).toMatchObject({ from: (facing + 135) % 360, to: (facing + 225) % 360 });
    expect(after.guide.swellWindow).toMatchObject({ from: facing - 90, to: (facing + 90) % 360 });
    expect(after.guide.tideStation.distanceKm).toBeGreaterThan(0);
    expect(after.guide.tideStation.distanceKm).toBeLessThan(200);
    const tides = await server.app.tides.get("pipeline", 1);
    expect(after.guide.tideStation.id).toBe(tides.station!.id);

    const near = (await (await server.get("/v1/spots/nearby?lat=21.665&lng=-158.053&radius=1", key)).json()) as any[];
    expect(near.find((s) => s.id === "pipeline")).toMatchObject({ facing: after.facing, tideless: false, timezone: "Pacific/Honolulu" });
  }, 30_000); // loads the land index and the tide database once
});
