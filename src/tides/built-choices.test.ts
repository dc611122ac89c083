/**
 * Station choices decided at build (./built-choices.ts): the build's file holds what the tide database's worker
 * chooses, and the service takes a choice from it where the build made one, asking the worker for any other spot.
 */
import { afterAll, describe, expect, spyOn, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../db";
import { ManualClock } from "../core/clock";
import { gzipJson, readGzipJson } from "../core/gzip-json";
import { log } from "../core/log";
import type { Spot } from "../spots/types";
import { BuiltChoices, CHOICE_RULE, choiceKey, decideAll, type BuiltChoicesData } from "./built-choices";
import { builtChoicesFile } from "./built-choices-file";
import { StationDatabase } from "./station-database";
import { TideService } from "./service";
import { sqliteTideStore } from "./sqlite-store";
import { tempDir } from "../../test/support/env";
import { fakeSpotService } from "../../test/support/fake-spots";

const WORKER = new URL("./station-worker.ts", import.meta.url);
const database = new StationDatabase(WORKER);
afterAll(() => database.close());

const spot = (id: string, lat: number, lng: number): Spot => ({ id, hexId: id.padStart(16, "0"), name: id, country: "Portugal", region: null, lat, lng, facing: null, tideless: null, timezone: "UTC" });

describe("station choices decided at build", () => {
  test.skipIf(builtChoicesFile === null)("the build's file holds what the worker chooses (every 500th position)", async () => {
    const data = readGzipJson<BuiltChoicesData>(builtChoicesFile!);
    expect(data.rule).toBe(CHOICE_RULE);
    const keys = Object.keys(data.choices).filter((_, i) => i % 500 === 0);
    const asked = keys.map((key) => {
      const [lat, lng, override] = key.split(",");
      return { spot: { lat: Number(lat), lng: Number(lng) }, override: override === "null" ? null : override === "true" };
    });
    await database.load();
    const built = new BuiltChoices(builtChoicesFile);
    expect(asked.map((a) => built.find(a.spot, a.override))).toEqual(database.choose(asked));
  });

  test("the service takes the build's choice without the tide database, and asks it for any other spot", async () => {
    const nazare = spot("nazare", 39.6012, -9.0707);
    const imported = spot("imported", 39.6013, -9.0872);
    // A build's file for one spot, made through the worker.
    const file = join(tempDir("built-choices"), "tide-choices.json.gz");
    writeFileSync(file, gzipJson(decideAll("test", [{ ...nazare, override: null }], (s, override) => database.choose([{ spot: s, override }])[0]!)));
    const spots = [nazare];
    const db = openDatabase(tempDir("built-choices"));
    const insert = (s: Spot) => db.$client.query("INSERT INTO spots (id, hex_id, name, country, lat, lng) VALUES (?, ?, ?, ?, ?, ?)").run(s.id, s.hexId, s.name, s.country, s.lat, s.lng);
    insert(nazare);
    const tides = new TideService(sqliteTideStore(db), new ManualClock(Date.parse("2025-01-11T10:20:00Z")), fakeSpotService(spots), WORKER, new BuiltChoices(file));
    const info = spyOn(log, "info");
    try {
      const report = await tides.maintainWindow();
      expect(report).toMatchObject({ spots: 1, chosen: 1, extended: 1 });
      expect((await tides.sourceOf(nazare.id))).toMatchObject({ source: "station" });
      expect(info.mock.calls.map(([message]) => message)).not.toContain("tide database loaded");

      spots.push(imported);
      insert(imported);
      expect((await tides.sourceOf(imported.id))).toMatchObject({ source: "station" });
      expect(info.mock.calls.map(([message]) => message)).toContain("tide database loaded");
    } finally {
      info.mockRestore();
      tides.close();
    }
  });

  test("a file made with another rule or database decides nothing", async () => {
    const dir = tempDir("built-choices");
    const choices = { [choiceKey({ lat: 1, lng: 2 }, null)]: { tideless: true, station: null, reason: "no tide station within 200 km" } };
    const write = (name: string, rule: string) => {
      writeFileSync(join(dir, name), gzipJson({ rule, catalog: "test", records: {}, choices } satisfies BuiltChoicesData));
      return new BuiltChoices(join(dir, name));
    };
    expect(write("this-rule.json.gz", CHOICE_RULE).find({ lat: 1, lng: 2 }, null)?.choice).toEqual(choices["1,2,null"]!);
    expect(write("this-rule.json.gz", CHOICE_RULE).find({ lat: 1, lng: 2 }, false)).toBeNull();
    const warn = spyOn(log, "warn").mockImplementation(() => {});
    try {
      expect(write("other-rule.json.gz", "v0; @neaps/tide-database 0.1").find({ lat: 1, lng: 2 }, null)).toBeNull();
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });
});
