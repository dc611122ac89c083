/**
 * Footprint (#22): the tide database lives in a worker thread and predictions come from stored station records.
 * A record predicts exactly what the database's station does; the worker chooses as the rule does in process; the
 * worker ends and gives its memory back.
 */
import { describe, expect, test } from "bun:test";
import { near, stationsById } from "@neaps/tide-database";
import { useStation, type Station } from "@neaps/tide-predictor";
import { predictCurve, predictExtremes, recordOf } from "./record";
import { StationDatabase } from "./station-database";
import { choose } from "./engine";
import { waitFor } from "../../test/support/wait";

const WORKER = new URL("./station-worker.ts", import.meta.url);
const DAY = 86_400_000;
const start = Date.UTC(2026, 10, 20);

/** A reference station and a subordinate one near the Bay of Biscay and Hawaii (the subordinate predicts through its reference). */
function stationsOfType(type: "reference" | "subordinate", lat: number, lng: number): Station {
  const found = near({ lat, lng, maxResults: 50, filter: (s) => s.kind === "tide" && s.type === type })[0];
  if (!found) throw new Error(`no ${type} station near ${lat},${lng}`);
  return stationsById.get(found[0].id) as unknown as Station;
}

describe("station records", () => {
  for (const [type, lat, lng] of [["reference", 43.66, -1.44], ["subordinate", 21.66, -158.05], ["subordinate", 38.6, -9.4]] as const) {
    test(`a ${type} station's record predicts the same extremes and curve as the database (${lat}, ${lng})`, () => {
      const station = stationsOfType(type, lat, lng);
      const record = JSON.parse(JSON.stringify(recordOf(station))) as ReturnType<typeof recordOf>; // as stored
      const fromDatabase = useStation(station).getExtremesPrediction({ start: new Date(start), end: new Date(start + 3 * DAY) }).extremes;
      const fromRecord = useStation(record as unknown as Station).getExtremesPrediction({ start: new Date(start), end: new Date(start + 3 * DAY) }).extremes;
      expect(fromRecord.length).toBeGreaterThan(4);
      expect(fromRecord).toEqual(fromDatabase);
      expect(predictExtremes(record, start, start + 3 * DAY).length).toBeGreaterThan(4);
      const curve = predictCurve(record, start, start + DAY, 600_000);
      expect(curve.levels.length).toBe(145);
    });
  }

  test("the worker chooses what the rule chooses in process, with the chosen station's record", async () => {
    const database = new StationDatabase(WORKER);
    try {
      await database.load();
      const spots = [
        { id: "hossegor", name: "La Graviere", country: "France", region: "Aquitaine", lat: 43.66, lng: -1.44 },
        { id: "pipe", name: "Pipeline", country: "USA", region: "Hawaii", lat: 21.66, lng: -158.05 },
        { id: "alps", name: "Lake", country: "Switzerland", region: null, lat: 46.9, lng: 8.2 },
      ];
      const answers = database.choose(spots.map((spot) => ({ spot, override: null })));
      expect(answers).toEqual(spots.map((spot) => choose(spot, null)));
      expect(answers[0]!.record?.id).toBe(answers[0]!.choice.station!.id);
      expect(answers[2]!.choice.tideless).toBe(true);
      expect(answers[2]!.record).toBeNull();
      expect(database.records([answers[1]!.choice.station!.id])).toEqual([answers[1]!.record!]);
    } finally {
      database.close();
    }
  });

  test("the worker ends after its idle time and starts again on the next call", async () => {
    const database = new StationDatabase(WORKER, 300);
    try {
      await database.load();
      const [id] = [near({ lat: 43.66, lng: -1.44, maxResults: 1 })[0]![0].id];
      expect(database.records([id!])).toHaveLength(1);
      expect(database.active).toBe(true);
      await waitFor("the idle worker to end", () => !database.active, 5_000);
      expect(database.records([id!])).toHaveLength(1); // a synchronous call starts it again
      expect(database.active).toBe(true);
    } finally {
      database.close();
    }
  });

  test("a load slower than the idle time completes (the countdown starts once loaded)", async () => {
    const database = new StationDatabase(WORKER, 20); // loading takes ~400 ms
    try {
      await database.load();
      expect(database.records([near({ lat: 43.66, lng: -1.44, maxResults: 1 })[0]![0].id])).toHaveLength(1);
    } finally {
      database.close();
    }
  }, 20_000);

  test("an unknown station is a clear error, and the worker goes on answering", () => {
    const database = new StationDatabase(WORKER);
    try {
      expect(() => database.records(["no-such-station"])).toThrow(/unknown tide station no-such-station/);
      expect(database.records([near({ lat: 43.66, lng: -1.44, maxResults: 1 })[0]![0].id])).toHaveLength(1);
    } finally {
      database.close();
    }
  });
});
