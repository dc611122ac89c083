/**
 * "Where to surf now" (GET /v1/spots/best): the per-spot rule and the ranking on a hand-computed small world,
 * then the endpoint through the real HTTP server — ranking, strict 400s, usage counting as `spots.best` — with
 * every response validated against the served document.
 */
import { sqliteDb } from "../support/inprocess";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { outlookOf, rankBestSpots, spotOutlook, type BestSpot } from "../../src/forecast/best-spots";
import { writeDocuments } from "../../src/forecast/sqlite-store";
import type { ForecastHour } from "../../src/forecast/types";
import { ManualClock, startTestServer, type TestServer } from "../support/inprocess";

const H = 3_600_000;
const T0 = Date.parse("2026-11-21T00:00:00Z");
const at = (hour: number) => new Date(T0 + hour * H).toISOString().slice(0, 19) + "Z";
const SUN = { sunrise: at(7.5), sunset: at(17.5) };
const SUN2 = { sunrise: at(24 + 7.5), sunset: at(24 + 17.5) };

/** 48 hours from 00:00Z with the given intermediate rating per hour (others 1). */
function hoursOf(rate: (hour: number) => number): ForecastHour[] {
  return Array.from({ length: 48 }, (_, h) => ({
    time: at(h), waveHeight: 1, swellHeight: 1, wavePeriod: 10, waveDirection: 270, windSpeed: 5, windDirection: 90, windGust: 8,
    windDirectionType: h < 12 ? "offshore" : "onshore", airTemperature: 15, waterTemperature: 16, weatherCode: 1, tide: null,
    rating: { beginner: 1, intermediate: rate(h), advanced: 1 }, swells: [], surf: { min: h, max: h + 1 },
  }));
}
const DAILY = [{ date: "2026-11-21", ...SUN, uvIndexMax: 1 }, { date: "2026-11-22", ...SUN2, uvIndexMax: 1 }];
const outlook = (hours: ForecastHour[]) => outlookOf({ hours, daily: DAILY });

// The small world, seen at 09:25Z over the next 24 hours (09:00 → 09:00 next day):
const WORLD = {
  a: (h: number) => (h >= 10 && h <= 12 ? 4 : 2), // 4 over 10–13 h: rating 4, 3 hours
  b: (h: number) => (h === 14 || h === 15 ? 4 : 2), // 4 over 14–16 h: rating 4 too
  c: (h: number) => (h >= 20 && h <= 22 ? 5 : h === 11 ? 3 : 1), // its 5s are at night: rating 3 at 11 h
  d: () => 1, // flat: rating 1, no window
};

describe("spotOutlook and rankBestSpots (pure)", () => {
  const from = T0 + 9 * H;
  const to = from + 24 * H;

  test("per spot: best daylight window, surf over the window, wind at its start", () => {
    expect(spotOutlook(outlook(hoursOf(WORLD.a)), from, to, "intermediate")).toEqual({
      rating: 4, best: { start: at(10), end: at(13), rating: 4 }, surf: { min: 10, max: 13 }, windDirectionType: "offshore", confidence: "medium",
    });
    // Night hours never count: the 5s at 20–22 h are left for the 3 at 11 h.
    expect(spotOutlook(outlook(hoursOf(WORLD.c)), from, to, "intermediate")!.best).toEqual({ start: at(11), end: at(12), rating: 3 });
    // Flat: rating 1, no window; surf and wind of the first hour.
    expect(spotOutlook(outlook(hoursOf(WORLD.d)), from, to, "intermediate")).toEqual({ rating: 1, best: null, surf: { min: 9, max: 10 }, windDirectionType: "offshore", confidence: "medium" });
    // No hour in the span: left out.
    expect(spotOutlook(outlook(hoursOf(WORLD.a)), T0 + 60 * H, T0 + 70 * H, "intermediate")).toBeNull();
  });

  test("the models' agreement: of two equally long windows the surer one; the window's least sure hour names it", () => {
    // Rating 4 over 10–12 h (models disagree) and 14–16 h (they agree): the later, surer one is the best.
    const hours = hoursOf((h) => (h === 10 || h === 11 || h === 14 || h === 15 ? 4 : 2)).map((hour, h) => ({
      ...hour,
      confidence: { level: h === 10 || h === 11 ? ("low" as const) : h === 15 ? ("medium" as const) : ("high" as const), models: 3, waveHeight: { min: 1, median: 1, max: 1 } },
    }));
    const found = spotOutlook(outlook(hours), from, to, "intermediate")!;
    expect(found.best).toEqual({ start: at(14), end: at(16), rating: 4 });
    expect(found.confidence).toBe("medium");
    // Without confidence (documents stored before it) the earliest of equally long windows, as before.
    expect(spotOutlook(outlook(hoursOf((h) => (h === 10 || h === 11 || h === 14 || h === 15 ? 4 : 2))), from, to, "intermediate")!.best!.start).toBe(at(10));
  });

  test("ranking: rating first, then the surer window, then distance, then id; limited", () => {
    const entry = (id: string, rating: number, distanceKm: number, confidence = "medium") => ({ spot: { id, distanceKm }, rating, confidence }) as unknown as BestSpot;
    const ranked = rankBestSpots([entry("x", 3, 1, "high"), entry("y", 4, 9), entry("z", 4, 2), entry("w", 4, 2), entry("v", 4, 30, "high"), entry("u", 4, 1, "low")], 5);
    expect(ranked.map((e) => e.spot.id)).toEqual(["v", "w", "z", "y", "u"]);
  });
});

describe("GET /v1/spots/best", () => {
  let server: TestServer;
  let key: string;
  const clock = new ManualClock(T0 + 9 * H + 25 * 60_000);
  let ids: string[];
  const CENTRE = { lat: 39.344, lng: -9.363 }; // Peniche

  beforeAll(async () => {
    server = await startTestServer({ clock });
    key = await server.key("scale");
    const near = server.app.spots.nearby({ ...CENTRE, radius: 30, limit: 50 });
    expect(near.length).toBeGreaterThan(5);
    // Four spots of the world, in order of distance; the others have no forecast and are left out.
    ids = near.slice(0, 4).map((s) => s.id);
    const rules = [WORLD.d, WORLD.b, WORLD.a, WORLD.c];
    writeDocuments(sqliteDb(server.app), clock.now(), ids.map((spotId, i) => ({ spotId, body: JSON.stringify({ hours: hoursOf(rules[i]!), daily: DAILY }) })));
  });
  afterAll(() => server.close());

  const call = async (query: string) => {
    const res = await server.get(`/v1/spots/best?${query}`, key);
    return { status: res.status, body: (await res.json()) as any };
  };

  test("ranked by the best rating for the level, then distance; spots without a forecast left out", async () => {
    const { status, body } = await call(`lat=${CENTRE.lat}&lng=${CENTRE.lng}&radius=30`);
    expect(status).toBe(200);
    // b (2nd closest) and a (3rd) both rate 4: b first, being closer; then c (3), then d (1).
    expect(body.map((e: any) => [e.spot.id, e.rating])).toEqual([[ids[1], 4], [ids[2], 4], [ids[3], 3], [ids[0], 1]]);
    expect(body[0].best).toEqual({ start: at(14), end: at(16), rating: 4 });
    expect(body[0].windDirectionType).toBe("onshore");
    expect(body[3].best).toBeNull();
    expect(body[0].spot.distanceKm).toBeLessThanOrEqual(body[1].spot.distanceKm);
  });

  test("level, hours and limit: beginner is flat everywhere; one hour ahead sees only 09:00; limit cuts", async () => {
    const beginner = (await call(`lat=${CENTRE.lat}&lng=${CENTRE.lng}&level=beginner`)).body;
    expect(beginner.every((e: any) => e.rating === 1 && e.best === null)).toBe(true);
    const oneHour = (await call(`lat=${CENTRE.lat}&lng=${CENTRE.lng}&hours=1`)).body;
    expect(oneHour.map((e: any) => e.rating)).toEqual([2, 2, 1, 1]); // at 09:00 a and b rate 2, c and d 1
    expect((await call(`lat=${CENTRE.lat}&lng=${CENTRE.lng}&limit=2`)).body).toHaveLength(2);
    expect((await call(`lat=0&lng=-30&radius=100`)).body).toEqual([]);
  });

  test.each([
    ["lng=-9.3", "'lat' is required"],
    ["lat=39.3&lng=-9.3&level=expert", "'level' must be one of beginner, intermediate, advanced"],
    ["lat=39.3&lng=-9.3&hours=0", "'hours' must be an integer from 1 to 72"],
    ["lat=39.3&lng=-9.3&hours=73", "'hours'"],
    ["lat=39.3&lng=-9.3&hours=1.5", "'hours'"],
    ["lat=39.3&lng=-9.3&radius=101", "'radius'"],
    ["lat=39.3&lng=-9.3&limit=51", "'limit'"],
    ["lat=39.3&lat=39.4&lng=-9.3", "more than once"],
    ["lat=NaN&lng=-9.3", "'lat'"],
  ])("400 for %s", async (query, mentions) => {
    const { status, body } = await call(query);
    expect(status).toBe(400);
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.message).toContain(mentions);
  });

  test("counted in usage as spots.best (400s included), with the rate-limit headers", async () => {
    const k = await server.key("starter");
    const ok = await server.get(`/v1/spots/best?lat=${CENTRE.lat}&lng=${CENTRE.lng}`, k);
    expect(ok.headers.get("x-ratelimit-remaining")).not.toBeNull();
    await server.get("/v1/spots/best?lat=1", k);
    await server.app.meter.flush();
    const usage = (await (await server.get("/v1/usage", k)).json()) as any;
    expect(usage.days.at(-1)).toMatchObject({ total: 2, byEndpoint: { "spots.best": 2, "spots.nearby": 0 } });
  });
});
