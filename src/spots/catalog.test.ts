/**
 * Spot catalog: the default catalog's counts and country/region split, folding and slugs, the hex id rule,
 * the collision rule, and id stability across loads and input order.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { openDatabase, closeDatabase } from "../db";
import { SpotService } from "./service";
import { sqliteCatalog } from "./sqlite-store";
import { assignSlugs, derivedAliases, hexIdOf, splitCountryPath } from "./catalog";
import { parseImport } from "./formats";
import { defaultRecords } from "./default-catalog";
import { planImport } from "./import";
import { fold, slugify } from "./normalize";
import { CATALOG_PATH, tempDir } from "../../test/support/env";

const source = readFileSync(CATALOG_PATH, "utf8");
const raw = JSON.parse(source) as { name: string; lat: string; lng: string; country: string }[];

function openFresh(): Promise<SpotService> {
  return SpotService.open(sqliteCatalog(openDatabase(tempDir("spots-catalog"))));
}

const spots = await openFresh();

describe("default catalog", () => {
  test("5,877 spots: 12 without coordinates and one exact duplicate dropped", () => {
    expect(raw).toHaveLength(5890);
    expect(spots.all()).toHaveLength(5877);
    const file = parseImport(source);
    expect(file.total).toBe(5890);
    expect(file.problems).toHaveLength(13);
    expect(file.problems.filter((p) => p.message.startsWith("duplicate"))).toHaveLength(1);
    expect(file.problems.filter((p) => p.message.startsWith("lat must be a number"))).toHaveLength(12);
  });

  test("country is the first segment, region the rest joined by ', ' or null; names as the source spells them", () => {
    const pipeline = spots.get("pipeline");
    expect(pipeline).toEqual({ id: "pipeline", name: "Pipeline", country: "USA", region: "Hawaii, Oahu", lat: 21.66784799238, lng: -158.05057168007, hexId: pipeline.hexId, facing: null, tideless: null, timezone: "Pacific/Honolulu" });
    expect(spots.get("agucadoura").name).toBe("Aguçadoura");
    const byName = new Map(spots.all().map((s) => [`${s.name}|${s.country}|${s.region}`, s]));
    for (const r of raw.filter((r) => r.lat !== "x")) {
      const segments = r.country.split(",").map((s) => s.trim());
      const key = `${r.name}|${segments[0]}|${segments.length > 1 ? segments.slice(1).join(", ") : null}`;
      expect(byName.has(key)).toBe(true);
    }
    expect(spots.all().filter((s) => s.region === null).length).toBeGreaterThan(0);
    expect(splitCountryPath("USA, California, San Diego County")).toEqual({ country: "USA", region: "California, San Diego County" });
    expect(splitCountryPath("Portugal")).toEqual({ country: "Portugal", region: null });
    expect(splitCountryPath(" Turks   Caicos ,  North ")).toEqual({ country: "Turks   Caicos", region: "North" });
  });

  test("every spot has exactly the spec's fields plus hexId, facing, tideless and timezone, in order", () => {
    for (const s of spots.all()) {
      expect(Object.keys(s)).toEqual(["id", "name", "country", "region", "lat", "lng", "hexId", "facing", "tideless", "timezone"]);
      expect(typeof s.lat).toBe("number");
      expect(typeof s.lng).toBe("number");
    }
  });
});

describe("ids", () => {
  test("slugs: lower-case ASCII words joined by hyphens, diacritics folded", () => {
    expect(fold("Aguçadoura")).toBe("agucadoura");
    expect(fold("  NAZARÉ ")).toBe("nazare");
    expect(fold("Brimurð Ørnø Straße")).toBe("brimurd orno strasse");
    expect(slugify("Barre d'étel")).toBe("barre-detel");
    expect(slugify("'s-Gravenzande")).toBe("s-gravenzande");
    expect(slugify("Côte sauvage - Phare de la Coubre  (lighthouse)")).toBe("cote-sauvage-phare-de-la-coubre-lighthouse");
    expect(slugify("°°")).toBe("");
    for (const s of spots.all()) expect(s.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  test("unique slugs and hex ids across the catalog; no slug looks like a hex id", () => {
    const all = spots.all();
    expect(new Set(all.map((s) => s.id)).size).toBe(all.length);
    expect(new Set(all.map((s) => s.hexId)).size).toBe(all.length);
    for (const s of all) {
      expect(s.hexId).toMatch(/^[0-9a-f]{16}$/);
      expect(s.id).not.toMatch(/^[0-9a-f]{16}$/);
    }
  });

  test("hex id: first 16 hex of SHA-256 over folded name, folded country, lat and lng at 5 decimals", () => {
    const pipeline = spots.get("pipeline");
    const identity = ["pipeline", "usa", "21.66785", "-158.05057"].join("\u001f");
    expect(pipeline.hexId).toBe(createHash("sha256").update(identity).digest("hex").slice(0, 16));
    const base = { name: "Praia da Nazaré", country: "Portugal", lat: 39.6, lng: -9.08 };
    expect(hexIdOf({ ...base, name: "PRAIA DA NAZARE" })).toBe(hexIdOf(base));
    expect(hexIdOf({ ...base, lat: 39.600000001 })).toBe(hexIdOf(base));
    expect(hexIdOf({ ...base, lat: 39.6001 })).not.toBe(hexIdOf(base));
    expect(hexIdOf({ ...base, country: "Spain" })).not.toBe(hexIdOf(base));
    expect(hexIdOf({ ...base, lat: -0.000001, lng: 0 })).toBe(hexIdOf({ ...base, lat: 0, lng: 0 }));
  });

  test("collisions: country, then region segments, then a number", () => {
    const repeats = (names: string[]) => {
      const counts = new Map<string, number>();
      for (const n of names) counts.set(n.toLowerCase(), (counts.get(n.toLowerCase()) ?? 0) + 1);
      return [...counts.values()].filter((n) => n > 1).length;
    };
    // 158 names repeat in the source; one of them (17th Ave) only through the exact duplicate.
    expect(repeats(raw.filter((r) => r.lat !== "x").map((r) => r.name))).toBe(158);
    expect(repeats(spots.all().map((s) => s.name))).toBe(157);
    const ids = new Set(spots.all().map((s) => s.id));
    for (const id of ["backdoor-usa", "backdoor-australia", "backdoor-italy", "backdoor-brazil-bahia-sul", "backdoor-brazil-rio-de-janeiro-norte", "backdoor-haifa"]) {
      expect(ids.has(id)).toBe(true);
    }
    expect(ids.has("backdoor")).toBe(false);
    expect(spots.get("backdoor-usa").region).toBe("Hawaii, Oahu");
    // Same name, same country path: numbered by latitude.
    const [a, b] = [spots.get("redsands-australia-nsw-south-coast-1"), spots.get("redsands-australia-nsw-south-coast-2")];
    expect(a.name).toBe("Redsands");
    expect(a.lat).toBeLessThan(b.lat);
  });

  test("collision rule on small inputs: bare name when unique and free, qualifiers otherwise, numbers last", () => {
    const s = (hexId: string, name: string, country: string, region: string | null, lat = 0) => ({ hexId, name, country, region, lat, lng: 0 });
    const ids = assignSlugs(
      [
        s("a", "Reef", "Chile", null),
        s("b", "Reef", "Peru", "North"),
        s("c", "Reef", "Peru", "South"),
        s("d", "Reef", "Peru", "South", 1),
        s("e", "Reef Chile", "Peru", null),
        s("f", "Point", "Chile", null),
        s("g", "deadbeefdeadbeef", "Chile", null),
      ],
      new Set(["point"]),
    );
    expect(Object.fromEntries(ids)).toEqual({
      e: "reef-chile",
      a: "reef-chile-1",
      b: "reef-peru-north",
      c: "reef-peru-south-1",
      d: "reef-peru-south-2",
      f: "point-chile",
      g: "deadbeefdeadbeef-chile",
    });
  });

  test("stable: the same ids when loaded twice, and whatever the order of the records", async () => {
    const again = await openFresh();
    expect(again.all().map((s) => [s.id, s.hexId])).toEqual(spots.all().map((s) => [s.id, s.hexId]));
    // The default catalog as loaded: the source with the corrections overlay applied.
    const records = defaultRecords(source);
    const shuffled = [...records].reverse();
    const fromShuffled = planImport([], shuffled, true).add;
    const expected = new Map(spots.all().map((s) => [s.hexId, s.id]));
    expect(fromShuffled).toHaveLength(5877);
    for (const s of fromShuffled) expect(s.id).toBe(expected.get(s.hexId)!);
  });

  test("reopening does not re-import; a changed default catalog is re-applied keeping ids", async () => {
    const dir = tempDir("spots-reopen");
    const db = openDatabase(dir);
    const first = await SpotService.open(sqliteCatalog(db));
    db.$client.exec("UPDATE meta SET value = 'stale' WHERE key = 'spots.default_sha256'");
    db.$client.exec("UPDATE spots SET name = 'PIPELINE' WHERE id = 'pipeline'");
    const second = await SpotService.open(sqliteCatalog(db));
    expect(second.get("pipeline").name).toBe("Pipeline");
    expect(second.all().map((s) => s.id)).toEqual(first.all().map((s) => s.id));
    // Once an operator imported, the default is no longer re-applied.
    db.$client.exec("UPDATE meta SET value = 'import' WHERE key = 'spots.source'");
    db.$client.exec("UPDATE meta SET value = 'stale' WHERE key = 'spots.default_sha256'");
    db.$client.exec("UPDATE spots SET name = 'PIPELINE' WHERE id = 'pipeline'");
    expect((await SpotService.open(sqliteCatalog(db))).get("pipeline").name).toBe("PIPELINE");
    closeDatabase(db);
  });

  test("aliases derived from names: `X (Y)` and `A / B`", () => {
    expect(derivedAliases("Åsa (Aasa)")).toEqual(["Åsa", "Aasa"]);
    expect(derivedAliases("Agamemnon/Kouloura Island")).toEqual(["Agamemnon", "Kouloura Island"]);
    expect(derivedAliases("Pipeline")).toEqual([]);
  });
});
