/**
 * Tides: the station rule, the stored window and its daily move, served extremes and the hourly tide — on the
 * real tide database and the default catalog (read from CATALOG_PATH at run time, never copied).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { openDatabase, type Db } from "../src/db";
import { DAY_MS, ManualClock } from "../src/core/clock";
import { notFound } from "../src/core/errors";
import type { SpotService } from "../src/spots/service";
import type { Spot } from "../src/spots/types";
import { TideService, type WindowReport } from "../src/tides/service";
import { chooseStation, MAX_STATION_DISTANCE_KM, NEGLIGIBLE_RANGE_M, type StationCandidate } from "../src/tides/stations";
import { windowAt, windowWork } from "../src/tides/window";
import { tideAt } from "../src/tides/hourly";
import type { TideExtreme, TidesResponse } from "../src/tides/types";
import { CATALOG_PATH, tempDir } from "./support/env";

const HOUR = 3_600_000;

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

  test("a damped lagoon gauge next to the beach loses to an open-coast station", () => {
    const choice = chooseStation(null, [lagoon, ocean, far], rangeOf);
    expect(choice.tideless).toBe(false);
    expect(choice.station?.id).toBe("ocean");
    expect(choice.reason).toContain("Melbourne Causeway");
  });

  test("enclosed-water names are penalised even with a real range", () => {
    const harbour = candidate("harbour", "Coffs Harbour Marina", 2);
    const choice = chooseStation(null, [harbour, candidate("open", "Point Lookout", 15)], () => 1.5);
    expect(choice.station?.id).toBe("open");
  });

  test("no station within the distance → tideless", () => {
    const choice = chooseStation(null, [candidate("x", "Antalya", MAX_STATION_DISTANCE_KM + 1)], () => 1);
    expect(choice).toMatchObject({ tideless: true, station: null });
    expect(choice.reason).toContain("no tide station within");
  });

  test("only negligible ranges → tideless", () => {
    const choice = chooseStation(null, [candidate("a", "Lake gauge", 10), candidate("b", "Other", 20)], () => NEGLIGIBLE_RANGE_M / 2);
    expect(choice).toMatchObject({ tideless: true, station: null });
    expect(choice.reason).toContain("negligible");
  });

  test("the import override wins both ways", () => {
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

  test("runs from yesterday's UTC midnight to nine days after today's", () => {
    expect(new Date(target.start).toISOString()).toBe("2025-03-09T00:00:00.000Z");
    expect(new Date(target.end).toISOString()).toBe("2025-03-19T00:00:00.000Z");
  });

  test("work needed to reach the target", () => {
    expect(windowWork(null, target)).toEqual({ kind: "full" });
    expect(windowWork(target, target)).toEqual({ kind: "none" });
    const yesterday = windowAt(now - DAY_MS);
    expect(windowWork(yesterday, target)).toEqual({ kind: "extend", from: yesterday.end });
    expect(windowWork(windowAt(now - 20 * DAY_MS), target)).toEqual({ kind: "full" });
    expect(windowWork(windowAt(now + DAY_MS), target)).toEqual({ kind: "full" });
  });
});

test("tideAt reads height and rising/falling off the curve", () => {
  const step = 600_000;
  const levels = Float64Array.from({ length: 200 }, (_, i) => Math.sin((2 * Math.PI * i * step) / (12 * HOUR)));
  const curve = { startMs: 0, stepMs: step, levels };
  expect(tideAt(curve, 0)).toEqual({ height: 0, state: "rising" });
  expect(tideAt(curve, 3 * HOUR).height).toBeCloseTo(1, 3);
  expect(tideAt(curve, 3 * HOUR - 2 * 60_000).state).toBe("rising");
  expect(tideAt(curve, 3 * HOUR + 2 * 60_000).state).toBe("falling");
  expect(tideAt(curve, 9 * HOUR + 60_000).state).toBe("rising");
});
