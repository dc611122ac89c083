/**
 * `surfcast spots import` through the compiled binary's console (JSON, GeoJSON, CSV; bad rows reported and
 * skipped; --replace; ids kept on re-import; cascades), and the binary serving the same ids as the
 * in-process loader from a fresh data dir.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { openDatabase, closeDatabase } from "../../src/db";
import { SpotService } from "../../src/spots/service";
import { sqliteCatalog } from "../../src/spots/sqlite-store";
import { cli, createKey, startServer } from "../support/binary";
import { apiFetch } from "../support/http";
import { ROOT, tempDir } from "../support/env";
import { waitFor } from "../support/wait";

const FIXTURES = resolve(ROOT, "test/fixtures/spots");
const fixture = (name: string) => join(FIXTURES, name);

type Row = { id: string; hexId: string; name: string; country: string; region: string | null; facing: number | null; tideless: number | null };

function rows(dir: string): Map<string, Row> {
  const db = new Database(join(dir, "surfcast.db"), { readonly: true });
  const all = db
    .query("SELECT id, hex_id AS hexId, name, country, region, facing_override AS facing, tideless_override AS tideless FROM spots")
    .all() as Row[];
  db.close();
  return new Map(all.map((r) => [r.id, r]));
}

function aliases(dir: string, spotId: string): string[] {
  const db = new Database(join(dir, "surfcast.db"), { readonly: true });
  const list = (db.query("SELECT alias FROM spot_aliases WHERE spot_id = ? ORDER BY alias").all(spotId) as { alias: string }[]).map((r) => r.alias);
  db.close();
  return list;
}

describe("spots import (compiled binary)", () => {
  test("JSON: bad records reported by index and skipped, overrides and aliases stored, re-import keeps ids", () => {
    const dir = tempDir("spots-import-json");
    const r = cli(dir, ["spots", "import", fixture("spots.json")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("read 7 JSON records: 3 valid, 4 skipped");
    expect(r.stdout).toContain("3 added, 0 updated, 0 unchanged, 0 removed, 4 skipped; catalog now 5880 spots");
    expect(r.stderr).toContain("skipped index 2: lat must be a number");
    expect(r.stderr).toContain("skipped index 3: duplicate of the spot at index 0");
    expect(r.stderr).toContain("skipped index 5: not an object");
    expect(r.stderr).toContain("skipped index 6: lat must be a number from -90 to 90, got 95");

    const before = rows(dir);
    const cafe = before.get("cafe-point-kaffeespitze")!;
    expect(cafe).toMatchObject({ name: "Café Point (Kaffeespitze)", country: "Nordland", region: null, facing: 275, tideless: 0 });
    expect(before.get("inland-wave")).toMatchObject({ region: "Flussgebiet, Stadtwelle", tideless: 1, facing: null });
    expect(before.get("testbucht-reef")).toMatchObject({ region: "Testkreis" });
    expect(aliases(dir, "cafe-point-kaffeespitze")).toEqual(["Coffee Point"]);

    const again = cli(dir, ["spots", "import", fixture("spots.json")]);
    expect(again.stdout).toContain("0 added, 0 updated, 3 unchanged, 0 removed");
    expect(rows(dir)).toEqual(before);
  });

  test("CSV: quoted fields, aliases, overrides; bad lines reported by line number", () => {
    const dir = tempDir("spots-import-csv");
    const r = cli(dir, ["spots", "import", fixture("spots.csv")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("read 6 CSV rows: 3 valid, 3 skipped");
    expect(r.stderr).toContain('skipped line 4: lat must be a number from -90 to 90, got "abc"');
    expect(r.stderr).toContain("skipped line 5: expected 8 fields, got 3");
    expect(r.stderr).toContain('skipped line 6: facing must be a number from 0 to 360, got "400"');
    const all = rows(dir);
    expect(all.get("harbour-wall-north")).toMatchObject({ name: "Harbour Wall, North", region: "Testkreis", facing: 10, tideless: null });
    expect(all.get("eastside")).toMatchObject({ facing: 90, tideless: 1 });
    expect(aliases(dir, "harbour-wall-north")).toEqual(["Harbour Mole", "Nordmole"]);
  });

  test("GeoJSON (OpenStreetMap-like): Points only, alt_name as aliases, addr:country code as the country", () => {
    const dir = tempDir("spots-import-geojson");
    const r = cli(dir, ["spots", "import", fixture("spots.geojson")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("read 5 GeoJSON features: 3 valid, 2 skipped");
    expect(r.stderr).toContain("skipped feature 2: not a Point feature");
    expect(r.stderr).toContain("skipped feature 3: missing name");
    const all = rows(dir);
    expect(all.get("praia-teste")).toMatchObject({ country: "Portugal", region: "Leiria" });
    expect(aliases(dir, "praia-teste")).toEqual(["Teste Beach", "Teste Norte"]);
    expect(all.get("antimeridian-pass")).toMatchObject({ country: "Testonesia", facing: 180 });
  });

  test("--replace: the catalog becomes exactly the file; survivors keep ids; removed spots' rows cascade", () => {
    const dir = tempDir("spots-import-replace");
    expect(cli(dir, ["spots", "import", fixture("spots.json")]).code).toBe(0);
    const reefId = "testbucht-reef";
    const reefHex = rows(dir).get(reefId)!.hexId;

    // Per-spot rows of other domains, for a spot that survives and one that goes away.
    const db = openDatabase(dir);
    for (const spot of [reefId, "pipeline"]) {
      db.$client.query("INSERT INTO forecast_documents (spot_id, updated_at, body) VALUES (?, 0, '{}')").run(spot);
      db.$client.query("INSERT INTO tide_extremes (spot_id, time, type, height) VALUES (?, 0, 'high', 1)").run(spot);
    }
    closeDatabase(db);

    // The GeoJSON spells the same reef "TESTBUCHT REEF": same identity, so it is updated in place.
    const r = cli(dir, ["spots", "import", fixture("spots.geojson"), "--replace"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("2 added, 1 updated, 0 unchanged, 5879 removed, 2 skipped; catalog now 3 spots");
    const all = rows(dir);
    expect([...all.keys()].sort()).toEqual(["antimeridian-pass", "praia-teste", reefId]);
    expect(all.get(reefId)).toMatchObject({ hexId: reefHex, name: "TESTBUCHT REEF" });

    const check = new Database(join(dir, "surfcast.db"), { readonly: true });
    const docs = check.query("SELECT spot_id AS id FROM forecast_documents ORDER BY spot_id").all() as { id: string }[];
    const tides = check.query("SELECT spot_id AS id FROM tide_extremes ORDER BY spot_id").all() as { id: string }[];
    check.close();
    expect(docs.map((d) => d.id)).toEqual([reefId]);
    expect(tides.map((d) => d.id)).toEqual([reefId]);

    // A server opened later keeps the operator's catalog (no re-seeding from the default).
    expect(cli(dir, ["accounts", "list"]).code).toBe(0);
    expect(rows(dir).size).toBe(3);

    // Without --replace: added and updated (the CSV spells the reef "Testbucht Reef" again), none removed.
    const more = cli(dir, ["spots", "import", fixture("spots.csv")]);
    expect(more.stdout).toContain("2 added, 1 updated, 0 unchanged, 0 removed, 3 skipped; catalog now 5 spots");
    expect(rows(dir).get(reefId)).toMatchObject({ hexId: reefHex, name: "Testbucht Reef" });
  });

  test("files that cannot be read as a whole are rejected and nothing is imported", () => {
    const dir = tempDir("spots-import-bad");
    const write = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const cases: [string, string][] = [
      [write("broken.json", '[{"name": "A", "lat": 1,'), "not valid JSON"],
      [write("object.json", '{"spots": []}'), "JSON must be an array of spots or a GeoJSON FeatureCollection"],
      [write("columns.csv", "name,latitude,lng,country\nA,1,2,X\n"), "missing column(s) lat; unknown column(s) latitude"],
      [write("quote.csv", 'name,lat,lng,country\n"A,1,2,X\n'), "never closed"],
      [write("empty.csv", ""), "CSV: the file is empty"],
      [join(dir, "missing.json"), "cannot read"],
    ];
    for (const [path, message] of cases) {
      const r = cli(dir, ["spots", "import", path]);
      expect({ path, code: r.code }).toEqual({ path, code: 2 });
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toContain("    at ");
    }
    const none = cli(dir, ["spots", "import", write("none.csv", "name,lat,lng,country\nA,x,2,X\n"), "--replace"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("would empty the catalog");
    expect(rows(dir).size).toBe(5877);
    const usage = cli(dir, ["spots", "export"]);
    expect(usage.code).toBe(2);
    expect(cli(dir, ["spots", "import"]).stderr).toContain("missing FILE");
  });
});

describe("compiled binary serves the embedded catalog", () => {
  test("a fresh data dir gets the 5,877 spots with the same ids as the in-process loader, served over HTTP", async () => {
    const dir = tempDir("spots-binary");
    const key = createKey(dir);
    const binaryIds = [...rows(dir).values()].map((r) => `${r.id} ${r.hexId}`).sort();
    const inProcess = await SpotService.open(sqliteCatalog(openDatabase(tempDir("spots-inprocess"))));
    expect(binaryIds).toHaveLength(5877);
    expect(binaryIds).toEqual(inProcess.all().map((s) => `${s.id} ${s.hexId}`).sort());

    const server = await startServer({ dataDir: dir });
    try {
      const get = async (path: string) => {
        const res = await apiFetch(server.url + path, { headers: { "X-API-Key": key } });
        return { status: res.status, body: (await res.json()) as any };
      };
      const pipeline = inProcess.get("pipeline");
      // facing and tideless are derived at run time (the server's tide pass may have chosen a station already).
      const { facing: _facing, tideless: _tideless, ...fixed } = pipeline;
      const served = await get("/v1/spots/pipeline");
      expect(served.status).toBe(200);
      expect(served.body).toMatchObject(fixed);
      expect(Object.keys(served.body)).toEqual([...Object.keys(pipeline), "guide"]);
      expect((await get(`/v1/spots/${pipeline.hexId.toUpperCase()}`)).body.id).toBe("pipeline");
      expect((await get("/v1/spots?q=Nazar%C3%A9")).body[0].id).toBe("praia-da-nazare");
      expect((await get("/v1/spots/nearby?lat=21.6678&lng=-158.0506&radius=1")).body[0].id).toBe("pipeline");
      expect((await get("/v1/spots/nope")).body.error.code).toBe("not_found");
    } finally {
      await server.stop();
    }
  });
  test("a running server serves an import made next to it by the console, without a restart", async () => {
    const dir = tempDir("spots-live-import");
    const key = createKey(dir);
    const server = await startServer({ dataDir: dir });
    try {
      const get = (path: string) => apiFetch(server.url + path, { headers: { "X-API-Key": key } });
      expect((await get("/v1/spots/cafe-point-kaffeespitze")).status).toBe(404);
      expect(cli(dir, ["spots", "import", fixture("spots.json")]).code).toBe(0);
      const spot = await waitFor("the import to be served", async () => {
        const res = await get("/v1/spots/cafe-point-kaffeespitze");
        return res.status === 200 && res;
      });
      expect(((await spot.json()) as { name: string }).name).toBe("Café Point (Kaffeespitze)");
      expect(((await (await get("/v1/spots?q=Kaffeespitze")).json()) as { id: string }[])[0]!.id).toBe("cafe-point-kaffeespitze");
      const tides = (await (await get("/v1/spots/inland-wave/tides")).json()) as { tideless: boolean };
      expect(tides.tideless).toBe(true); // the import's override, applied on demand
    } finally {
      await server.stop();
    }
  });
});
