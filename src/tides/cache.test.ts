/**
 * The kept tide responses: served again only while they are exactly what a fresh computation would return — they
 * change when an extreme passes, when the next one enters the span, when rows are written (window pass, another
 * process) and when the import override changes. Spots are read from CATALOG_PATH at run time, never copied.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { openDatabase, type Db } from "../db";
import { DAY_MS, ManualClock } from "../core/clock";
import type { Spot } from "../spots/types";
import { TideService } from "./service";
import { sqliteTideStore } from "./sqlite-store";
import { CATALOG_PATH, tempDir } from "../../test/support/env";
import { writeElsewhere } from "../../test/support/elsewhere";
import { waitFor } from "../../test/support/wait";
import { catalogRecords, catalogSpot, fakeSpotService } from "../../test/support/fake-spots";
import { atOnce } from "../../test/support/at-once";
import type { MaybePromise } from "../core/maybe-promise";
import { seededRng } from "../../bench/prng";

const HOUR = 3_600_000;
const START = Date.parse("2025-01-11T10:20:00Z");

/** A few catalog spots (looked up by name and country path) as a small catalog. */
async function someSpots(wanted: [string, RegExp][]): Promise<Spot[]> {
  const records = await catalogRecords();
  return wanted.map(([name, country], i) => {
    const r = records.find((r) => r.name === name && country.test(r.country));
    if (!r) throw new Error(`no catalog spot ${name}`);
    return catalogSpot(r, i);
  });
}



describe("kept tide responses", () => {
  const clock = new ManualClock(START);
  let dir: string;
  let db: Db;
  let spots: Spot[];
  let tides: TideService;
  /** The same computation without anything kept: a new service on its own connection (like another process). */
  let fresh: (spotId: string, days: number) => MaybePromise<unknown>;
  const storedTimes = (spotId: string) =>
    db.$client.query<{ time: number }, [string]>("SELECT time FROM tide_extremes WHERE spot_id = ? ORDER BY time").all(spotId).map((r) => r.time);

  beforeAll(async () => {
    spots = await someSpots([
      ["Pipeline", /Hawaii/],
      ["La Graviere", /France/],
      ["Praia da Nazaré", /Portugal/],
    ]);
    dir = tempDir("tides-cache");
    db = openDatabase(dir);
    const put = db.$client.query("INSERT INTO spots (id, hex_id, name, country, region, lat, lng) VALUES (?, ?, ?, ?, ?, ?, ?)");
    for (const s of spots) put.run(s.id, s.hexId, s.name, s.country, s.region, s.lat, s.lng);
    tides = new TideService(sqliteTideStore(db), clock, fakeSpotService(spots));
    await tides.maintainWindow();
    const other = openDatabase(dir);
    fresh = (spotId, days) => new TideService(sqliteTideStore(other), clock, fakeSpotService(spots)).get(spotId, days);
  }, 60_000);

  test("a kept response is served again, frozen, while nothing changes", async () => {
    clock.set(START);
    const first = (await tides.get("spot-0", 7));
    expect(first.extremes.length).toBeGreaterThan(10);
    expect(atOnce(tides.get("spot-0", 7))).toBe(first);
    clock.advance(60_000);
    expect(atOnce(tides.get("spot-0", 7))).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.extremes) && Object.isFrozen(first.extremes[0])).toBe(true);
    expect((await tides.get("spot-0", 3))).not.toBe(first);
  });

  /**
   * The first instant from `start` on after which the next change of a `days` response is of `kind`: the last instant
   * it stays the same, and the stored time of the extreme that passes or enters then.
   */
  function nextChange(spotId: string, days: number, kind: "passes" | "enters"): { from: number; through: number; extreme: number } {
    const times = storedTimes(spotId);
    const span = days * DAY_MS;
    for (let from = START; ; ) {
      const passing = times.find((t) => t >= from)!;
      const entering = times.find((t) => t >= from + span)!;
      if (kind === "passes" && passing < entering - span) return { from, through: passing, extreme: passing };
      if (kind === "enters" && entering - span < passing) return { from, through: entering - span, extreme: entering };
      from = Math.min(passing, entering - span) + 1;
    }
  }

  test("changes exactly when its first extreme passes", async () => {
    const { from, through, extreme } = nextChange("spot-1", 7, "passes");
    clock.set(from);
    const before = (await tides.get("spot-1", 7));
    expect(Date.parse(before.extremes[0]!.time)).toBe(Math.floor(extreme / 1000) * 1000);
    clock.set(through);
    expect(atOnce(tides.get("spot-1", 7))).toBe(before);
    clock.set(through + 1);
    const after = (await tides.get("spot-1", 7));
    expect(after.extremes).toEqual(before.extremes.slice(1));
    expect(after).toEqual(await fresh("spot-1", 7) as typeof after);
  });

  test("changes exactly when the next stored extreme enters the span", async () => {
    const days = 2;
    const { from, through, extreme } = nextChange("spot-2", days, "enters");
    clock.set(from);
    const before = (await tides.get("spot-2", days));
    clock.set(through);
    expect(atOnce(tides.get("spot-2", days))).toBe(before);
    clock.set(through + 1);
    const after = (await tides.get("spot-2", days));
    expect(after.extremes.slice(0, -1)).toEqual(before.extremes);
    expect(Date.parse(after.extremes.at(-1)!.time)).toBe(Math.floor(extreme / 1000) * 1000);
    expect(after).toEqual(await fresh("spot-2", days) as typeof after);
  });

  test("a clock set back does not serve a response computed later", async () => {
    clock.set(START + 6 * HOUR);
    const later = (await tides.get("spot-0", 1));
    clock.set(START);
    const earlier = (await tides.get("spot-0", 1));
    expect(earlier).not.toBe(later);
    expect(earlier).toEqual(await fresh("spot-0", 1) as typeof earlier);
  });

  test("rows written by another connection (another process) are served within a second", async () => {
    clock.set(START);
    const before = (await tides.get("spot-0", 7));
    const first = storedTimes("spot-0").find((t) => t >= START)!;
    writeElsewhere(db, "UPDATE tide_extremes SET height = height + 1 WHERE spot_id = ? AND time = ?", ["spot-0", first]);
    const after = await waitFor("the other connection's rows to be served", async () => {
      const answer = (await tides.get("spot-0", 7));
      return answer.extremes[0]!.height !== before.extremes[0]!.height && answer;
    });
    expect(after.extremes[0]!.height).toBeCloseTo(before.extremes[0]!.height + 1, 6);
    expect(after.extremes.slice(1)).toEqual(before.extremes.slice(1));
  });

  test("an import override (by another process) applies; clearing it restores the station", async () => {
    clock.set(START);
    expect((await tides.get("spot-1", 3)).tideless).toBe(false);
    writeElsewhere(db, "UPDATE spots SET tideless_override = 1 WHERE id = ?", ["spot-1"]);
    await waitFor("the override to be noticed", async () => (await tides.get("spot-1", 3)).tideless);
    expect((await tides.get("spot-1", 3))).toMatchObject({ tideless: true, extremes: [], station: null });
    writeElsewhere(db, "UPDATE spots SET tideless_override = NULL WHERE id = ?", ["spot-1"]);
    const back = await waitFor("the cleared override to be noticed", async () => {
      const answer = (await tides.get("spot-1", 3));
      return !answer.tideless && answer;
    });
    expect(back).toEqual(await fresh("spot-1", 3) as typeof back);
  });

  test("equal to a fresh computation at many random instants, with most of them served from what was kept", async () => {
    const random = seededRng(20250111).next;
    let t = START;
    let kept = 0;
    const last = new Map<string, unknown>();
    for (let i = 0; i < 400; i++) {
      // Mostly small steps (minutes to hours, sometimes back), now and then a jump anywhere in 36 hours.
      t = random() < 0.1 ? START + Math.floor(random() * 36 * HOUR) : Math.max(START, t + Math.floor((random() - 0.2) * 3 * HOUR));
      clock.set(t);
      const spotId = `spot-${Math.floor(random() * spots.length)}`;
      const days = 1 + Math.floor(random() * 7);
      const served = (await tides.get(spotId, days));
      const key = `${spotId}/${days}`;
      if (last.get(key) === served) kept++;
      last.set(key, served);
      expect({ at: new Date(t).toISOString(), key, served }).toEqual({ at: new Date(t).toISOString(), key, served: await fresh(spotId, days) as typeof served });
    }
    expect(kept).toBeGreaterThan(40);
  });

  test("a window pass that writes rows is not served from before it", async () => {
    clock.set(START + DAY_MS);
    const before = (await tides.get("spot-2", 7));
    expect(atOnce(tides.get("spot-2", 7))).toBe(before);
    const moved = await tides.maintainWindow();
    expect(moved?.extended).toBe(spots.length);
    const after = (await tides.get("spot-2", 7));
    expect(after).not.toBe(before);
    expect(after).toEqual(await fresh("spot-2", 7) as typeof after);
  });
});
