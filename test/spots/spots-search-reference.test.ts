/**
 * The fast search (indexes, early exits, answer cache) against a plain reference ranking written from
 * docs/spots.md (test/support/reference-search.ts), on thousands of generated queries over the default catalog
 * and its towns: prefixes, infixes, diacritics and case, multi-word, countries and regions, towns, typos, no match.
 */
import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/db";
import { SearchIndex, type Searchable } from "../../src/spots/search";
import { searchInputs, SpotService } from "../../src/spots/service";
import { sqliteCatalog } from "../../src/spots/sqlite-store";
import { seededRng, type Rng } from "../../bench/prng";
import { ReferenceSearch, osaDistance } from "../support/reference-search";
import { tempDir } from "../support/env";
import { createKey, startServer } from "../support/binary";

const db = openDatabase(tempDir("spots-search-reference"));
await SpotService.open(sqliteCatalog(db));
const [spots, towns] = searchInputs(await sqliteCatalog(db).loadSpots());

const ACCENTS: Record<string, string> = { a: "á", e: "é", i: "ï", o: "ô", u: "ü", c: "ç", n: "ñ" };

/** One generated query of a random kind. */
function generate(rng: Rng, sample: Searchable): string {
  const name = sample.name;
  const nameWords = name.split(/\s+/).filter((w) => w !== "");
  const place = [sample.country, ...(sample.region ?? "").split(",").map((r) => r.trim())].filter((p) => p !== "");
  const town = towns.length > 0 ? rng.pick(rng.pick(towns).names) : "hossegor";
  const word = rng.pick(nameWords.length > 0 ? nameWords : [name]);
  const kinds: (() => string)[] = [
    () => name,
    () => name.slice(0, rng.int(2, 8)),
    () => {
      const from = rng.int(0, Math.max(0, name.length - 3));
      return name.slice(from, from + rng.int(3, 6));
    },
    () => [...name].map((c) => (rng.next() < 0.3 ? (ACCENTS[c.toLowerCase()] ?? c) : c)).join("").toUpperCase(),
    () => `${word} ${rng.pick(place)}`,
    () => nameWords.slice(0, 2).join(" "),
    () => `${rng.pick(nameWords.length > 0 ? nameWords : [name])} ${word.slice(0, rng.int(1, 4))}`,
    () => rng.pick(place),
    () => rng.pick(place).slice(0, rng.int(2, 6)),
    () => town,
    () => town.slice(0, rng.int(2, 7)),
    () => {
      // a typo: one letter dropped, doubled or two swapped
      if (word.length < 4) return word;
      const at = rng.int(1, word.length - 2);
      const edit = rng.int(0, 2);
      return edit === 0 ? word.slice(0, at) + word.slice(at + 1) : edit === 1 ? word.slice(0, at) + word[at] + word.slice(at) : word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
    },
    () => Array.from({ length: rng.int(2, 6) }, () => String.fromCharCode(rng.int(97, 122))).join(""),
  ];
  return rng.pick(kinds)();
}

describe("fast search = reference ranking", () => {
  test("the reference's edit distance is the optimal string alignment distance", () => {
    expect(osaDistance("pipline", "pipeline")).toBe(1);
    expect(osaDistance("uluwatoo", "uluwatu")).toBe(2);
    expect(osaDistance("ab", "ba")).toBe(1);
    expect(osaDistance("ca", "abc")).toBe(3);
  });

  test("the default catalog has its towns (dist/towns.json from `make build`)", () => {
    expect(towns.length).toBeGreaterThan(1000);
  });

  test("700 generated queries, each at limits 1, 3, 10 and 50: the same spots in the same order", () => {
    const fast = new SearchIndex(spots, towns);
    const reference = new ReferenceSearch(spots, towns);
    const rng = seededRng(18);
    const mismatches: string[] = [];
    let nonEmpty = 0;
    const started = performance.now();
    for (let n = 0; n < 700; n++) {
      const q = generate(rng, rng.pick(spots));
      const all = reference.search(q, 50);
      if (all.length > 0) nonEmpty++;
      for (const limit of [1, 3, 10, 50, 10]) {
        // The last search is answered from the cache.
        const got = fast.search(q, limit);
        const want = all.slice(0, limit);
        if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push(`${JSON.stringify(q)} limit ${limit}: got ${got.map((i) => spots[i]!.id)} want ${want.map((i) => spots[i]!.id)}`);
      }
    }
    console.log(`reference comparison: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(nonEmpty).toBeGreaterThan(450);
  }, 180_000);
});

test("the compiled binary embeds the towns: /v1/spots?q=hossegor finds La Gravière", async () => {
  const server = await startServer();
  try {
    const key = createKey(server.dataDir);
    const res = await fetch(`${server.url}/v1/spots?q=hossegor&limit=10`, { headers: { "X-API-Key": key } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }[]).map((s) => s.id)).toContain("la-graviere");
  } finally {
    await server.stop();
  }
}, 60_000);
