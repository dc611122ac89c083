/**
 * Search ranking: table tests against the real catalog (expected first results checked by hand), and the
 * tier order on a small synthetic catalog where every tier is present.
 */
import { describe, expect, test } from "bun:test";
import { openDatabase } from "../db";
import { SpotService } from "./service";
import { sqliteCatalog } from "./sqlite-store";
import { SearchIndex, type Searchable } from "./search";
import { fold } from "./normalize";
import { tempDir } from "../../test/support/env";

const spots = await SpotService.open(sqliteCatalog(openDatabase(tempDir("spots-search"))));
const ids = (q: string, limit = 10) => spots.search({ q, limit }).map((s) => s.id);

describe("ranking on the default catalog", () => {
  // [query, expected first result(s), in order]
  const table: [string, string[]][] = [
    ["nazare", ["praia-da-nazare"]],
    ["Nazaré", ["praia-da-nazare"]],
    ["NAZARÉ", ["praia-da-nazare"]],
    ["praia nazare", ["praia-da-nazare"]],
    ["Pipeline", ["pipeline", "cipolla-pipeline"]],
    // tier 0 is ordered by how many spots share the region (Oahu's 61 before LA County's 47 and Nicaragua's 27)
    ["pipe", ["pipeline", "pipe", "pipes"]],
    ["bells beach", ["bells-beach"]],
    ["BELLS BEACH", ["bells-beach"]],
    ["Aguçadoura", ["agucadoura"]],
    ["agucadoura", ["agucadoura"]],
    ["biología", ["biologia"]],
    ["BIOLOGIA", ["biologia"]],
    ["Brimurð", ["brimurd"]],
    ["brimurd", ["brimurd"]],
    ["jaws", ["jaws"]],
    ["mavericks", ["mavericks"]],
    ["teahupo'o", ["teahupoo"]],
    ["snapper", ["snapper-rocks"]],
    ["huntington", ["huntington-beach", "klein-huntington"]],
    ["backdoor", ["backdoor-usa", "backdoor-australia", "backdoor-brazil-rio-de-janeiro-norte", "backdoor-brazil-bahia-sul", "backdoor-italy", "backdoor-haifa"]],
    ["back door", ["backdoor-australia"]],
    ["la graviere", ["la-graviere"]],
    ["lagraviere", ["la-graviere"]],
    ["puerto escondido", ["puerto-escondido", "puerto-escondido-left"]],
    ["pipeline hawaii", ["pipeline"]],
    ["malibu", ["malibu-usa", "malibu-panama", "baja-malibu"]],
    // typo tier: only when nothing better fills the limit, and always after real matches
    ["pipline", ["pipeline"]],
    ["mavricks", ["mavericks"]],
    ["uluwatoo", ["uluwatu"]],
    ["chicama", ["chicama", "chicala"]],
  ];
  for (const [q, expected] of table) {
    test(`${JSON.stringify(q)} → ${expected.join(", ")}`, () => {
      expect(ids(q).slice(0, expected.length)).toEqual(expected);
    });
  }

  test("case and diacritics do not matter: the same results, in the same order", () => {
    for (const group of [["nazare", "Nazaré", "NAZARÉ", "nAzArE"], ["Agucadoura", "AGUÇADOURA"], ["riviere", "Rivière", "RIVIÈRE"]]) {
      const first = ids(group[0]!, 50);
      expect(first.length).toBeGreaterThan(0);
      for (const q of group) expect(ids(q, 50)).toEqual(first);
    }
  });

  test("country and region queries: spots of that place (names matching the word come first)", () => {
    const portugal = spots.search({ q: "portugal", limit: 50 });
    expect(portugal).toHaveLength(50);
    expect(portugal.every((s) => s.country === "Portugal")).toBe(true);
    const sanDiego = spots.search({ q: "san diego", limit: 50 });
    expect(sanDiego).toHaveLength(50);
    expect(sanDiego.every((s) => s.region === "California, San Diego County")).toBe(true);
    const oahu = spots.search({ q: "oahu", limit: 20 });
    expect(oahu[0]!.name).toBe("Avalanche Oahu"); // the name match wins over region matches
    expect(oahu.slice(1).every((s) => s.region === "Hawaii, Oahu")).toBe(true);
  });

  test("place names: a town finds the spots within 10 km of it, closest first (GeoNames, dist/towns.json)", () => {
    const hossegor = spots.search({ q: "hossegor", limit: 10 });
    expect(hossegor.map((s) => s.id)).toContain("la-graviere");
    expect(hossegor.every((s) => s.region === "Landes")).toBe(true);
    for (const q of ["jeffreys bay", "Jeffreys", "JEFFREYS BAY"]) {
      const found = spots.search({ q, limit: 10 });
      expect(found.map((s) => s.id)).toContain("supertubes-j-bay");
      // the 9 spots within 10 km of Jeffreys Bay; "jeffreys" then reaches towns that only have the word in an alternate name
      expect(found.slice(0, 9).every((s) => s.country === "South Africa")).toBe(true);
    }
  });

  test("an exact country or region ranks above a partial name match", () => {
    const france = spots.search({ q: "france", limit: 50 });
    expect(france).toHaveLength(50);
    expect(france.every((s) => s.country === "France")).toBe(true);
    expect(ids("el frances", 1)).toEqual(["el-frances"]);
  });

  test("ties are deterministic: shorter (folded) name, then alphabetical, then id", async () => {
    const other = await SpotService.open(sqliteCatalog(openDatabase(tempDir("spots-search-2"))));
    for (const q of ["beach", "point", "sweden", "rincon"]) expect(other.search({ q, limit: 50 }).map((s) => s.id)).toEqual(ids(q, 50));
    const sweden = spots.search({ q: "sweden", limit: 50 }).map((s) => fold(s.name));
    expect(sweden.length).toBeGreaterThan(5);
    expect(sweden).toEqual([...sweden].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)));
  });

  test("limit bounds the answer; nothing found is an empty array; no query lists everything", () => {
    expect(ids("beach", 1)).toHaveLength(1);
    expect(ids("beach", 50)).toHaveLength(50);
    expect(ids("qqqqqqqq")).toEqual([]);
    expect(ids("--")).toEqual([]);
  });
});

describe("tier order (synthetic catalog)", () => {
  const make = (id: string, name: string, country = "Testland", region: string | null = null, aliases: string[] = []): Searchable => ({ id, name, country, region, aliases });
  const catalog = [
    make("typo", "Raef Bay"),
    make("region", "Lighthouse", "Testland", "Reef Coast"),
    make("mixed", "Harbour Reef", "Testland", "Northshore"),
    make("alias", "Big Wave Spot", "Testland", null, ["Reef"]),
    make("substring", "Coralreef"),
    make("word-prefix", "Outer Reefs"),
    make("prefix", "Reef Break"),
    make("exact", "Reef"),
    make("country", "Dune", "Reef"),
  ];
  const index = new SearchIndex(catalog);
  const search = (q: string, limit = 20) => index.search(q, limit).map((i) => catalog[i]!.id);

  test("name start, whole words, exact country, word prefix, substring, alias, region words, then typos", () => {
    // "Harbour Reef" has "reef" as a whole word, "Outer Reefs" only as a word prefix: the exact country comes between.
    expect(search("reef")).toEqual(["exact", "prefix", "mixed", "country", "word-prefix", "substring", "alias", "region", "typo"]);
    expect(search("reef", 3)).toEqual(["exact", "prefix", "mixed"]);
  });

  test("tier 0: fewer words beyond the query first, then the spot whose region more spots share, then exact first", () => {
    const tier0 = [
      make("small-exact", "Pipe", "Small"),
      make("big-longer", "Pipeline", "Big"),
      make("big-2", "Big Two", "Big"),
      make("two-words", "Pipe Point", "Big"),
    ];
    const index0 = new SearchIndex(tier0);
    expect(index0.search("pipe", 10).map((i) => tier0[i]!.id)).toEqual(["big-longer", "small-exact", "two-words"]);
  });

  test("towns: spots near a town the query names come after every real match, the closer first", () => {
    const withTowns = new SearchIndex(catalog, [
      { names: ["soorts", "soorts hossegor"], spots: Int32Array.of(5, 6), km: Uint8Array.of(3, 1) },
      { names: ["reefton"], spots: Int32Array.of(0), km: Uint8Array.of(0) },
    ]);
    const ids = (q: string) => withTowns.search(q, 20).map((i) => catalog[i]!.id);
    expect(ids("hossegor")).toEqual(["prefix", "word-prefix"]);
    expect(ids("soorts hossegor")).toEqual(["prefix", "word-prefix"]);
    expect(ids("reefton")).toEqual(["typo"]);
    expect(ids("reef").at(-2)).toBe("region"); // the town "Reefton" adds Raef Bay before its typo match
    expect(ids("reef").at(-1)).toBe("typo");
  });

  test("multi-word: words split between name and place match; a place-only query is a place match", () => {
    expect(search("harbour northshore")).toEqual(["mixed"]);
    expect(search("reef coast")).toEqual(["region"]);
  });

  test("typo matches only fill what real matches leave, after them, shorter names first", () => {
    expect(search("reefs")).toEqual(["word-prefix", "exact", "prefix", "mixed", "alias"]);
    expect(search("raef")).toEqual(["typo", "exact", "prefix", "mixed", "alias"]);
    expect(search("raef", 1)).toEqual(["typo"]);
    expect(search("rf")).toEqual([]); // too short for typos
  });
});
