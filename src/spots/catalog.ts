/**
 * The catalog's pure rules: what a spot record is, its identity (the 16-hex id), its public slug id with the
 * collision rule, and the aliases its name implies. No I/O: table-tested directly (see docs/spots.md).
 */
import { fold, slugify } from "./normalize";
import type { DerivedSpotFacts, Spot } from "./types";

/** One spot as an import (or the default catalog) describes it, validated. */
export interface SpotRecord {
  name: string;
  country: string;
  region: string | null;
  lat: number;
  lng: number;
  /** Aliases given by the import (not the ones derived from the name). */
  aliases: string[];
  /** Import overrides: bearing toward open water in degrees [0, 360), and the tideless flag. */
  facing: number | null;
  tideless: boolean | null;
}

/** A spot as stored: the record plus both ids. */
export interface StoredSpot extends SpotRecord {
  id: string;
  hexId: string;
}

export const HEX_ID = /^[0-9a-f]{16}$/;

/** Path segments of /v1/spots/… endpoints: a spot with such a slug could never be fetched by it. */
const RESERVED_SLUGS: ReadonlySet<string> = new Set(["nearby", "best"]);

/** `"USA, California, San Diego County"` → country `USA`, region `California, San Diego County`. */
export function splitCountryPath(path: string): { country: string; region: string | null } {
  const segments = path
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return { country: segments[0] ?? "", region: segments.length > 1 ? segments.slice(1).join(", ") : null };
}

/** Rounds to 5 decimals (~1 m) and prints without a sign on zero, so `-0.000001` and `0` agree. */
function coordinateKey(x: number): string {
  const r = Math.round(x * 1e5) / 1e5;
  return (r === 0 ? 0 : r).toFixed(5);
}

/**
 * The raw 16-hex id: the first 16 hex digits of SHA-256 over the record's identity — folded name, folded
 * country, latitude and longitude rounded to 5 decimals, joined by U+001F. Spelling, casing, accents, region
 * and number formatting can change without changing the identity (re-imports update such spots in place).
 */
export function hexIdOf(r: Pick<SpotRecord, "name" | "country" | "lat" | "lng">): string {
  const identity = [fold(r.name), fold(r.country), coordinateKey(r.lat), coordinateKey(r.lng)].join("\u001f");
  return new Bun.CryptoHasher("sha256").update(identity).digest("hex").slice(0, 16);
}

/**
 * Aliases implied by the name: `X (Y)` gives X and Y, `A / B` gives A and B. Names the import gave are kept
 * separately (`SpotRecord.aliases`).
 */
export function derivedAliases(name: string): string[] {
  const out: string[] = [];
  const paren = /^(.*?)\s*\(\s*([^()]*?)\s*\)\s*$/.exec(name);
  if (paren) out.push(paren[1]!, paren[2]!);
  if (name.includes("/")) out.push(...name.split("/"));
  return [...new Set(out.map((a) => a.trim()).filter((a) => a !== "" && a !== name))];
}

// ── slug ids ─────────────────────────────────────────────────────────────────────────────────────

type IdSubject = Pick<StoredSpot, "hexId" | "name" | "country" | "region" | "lat" | "lng">;

const baseSlug = (s: IdSubject): string => slugify(s.name) || "spot";

/** Slugs of the country, then of each region segment: the words added, one at a time, to tell spots apart. */
const qualifiers = (s: IdSubject): string[] =>
  [s.country, ...(s.region ?? "").split(",")].map(slugify).filter((q) => q !== "");

function candidate(s: IdSubject, level: number): string {
  const q = qualifiers(s);
  return [baseSlug(s), ...q.slice(0, Math.min(level, q.length))].join("-");
}

const byPlace = (a: IdSubject, b: IdSubject): number => a.lat - b.lat || a.lng - b.lng || (a.hexId < b.hexId ? -1 : a.hexId > b.hexId ? 1 : 0);

/**
 * Gives each new spot a slug no one holds yet (`taken`: the ids of spots that keep theirs). Deterministic for
 * a given input, whatever its order:
 * 1. the name's slug (`agucadoura`) when no other new spot has the same one and it is free;
 * 2. otherwise qualifiers are added one at a time — country, then each region segment — and a spot takes the
 *    first candidate that no other remaining spot of its group shares and that is free
 *    (`backdoor-usa`, `backdoor-brazil-bahia-sul`);
 * 3. spots still tied after every qualifier get `-1`, `-2`, … in order of latitude, longitude, hex id.
 * A slug never looks like a 16-hex id, so the two kinds of id cannot be confused, and is never `nearby` or
 * `best` (endpoint paths under /v1/spots/).
 */
export function assignSlugs(spots: readonly IdSubject[], taken: ReadonlySet<string>): Map<string, string> {
  const used = new Set(taken);
  const ids = new Map<string, string>();
  const isFree = (slug: string) => !used.has(slug) && !HEX_ID.test(slug) && !RESERVED_SLUGS.has(slug);
  const give = (s: IdSubject, slug: string) => {
    used.add(slug);
    ids.set(s.hexId, slug);
  };

  const groups = Map.groupBy(spots, baseSlug);
  const ordered = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([base, members]) => ({ base, members: members.sort(byPlace) }));

  // Pass 1: unique names claim their bare slug before any qualified slug is built.
  const contested: IdSubject[][] = [];
  for (const { base, members } of ordered) {
    if (members.length === 1 && isFree(base)) give(members[0]!, base);
    else contested.push(members);
  }

  // Pass 2: qualify the rest.
  for (const members of contested) {
    let rest = members;
    const deepest = Math.max(...rest.map((s) => qualifiers(s).length));
    for (let level = 1; level <= deepest && rest.length > 0; level++) {
      const counts = new Map<string, number>();
      for (const s of rest) counts.set(candidate(s, level), (counts.get(candidate(s, level)) ?? 0) + 1);
      const tied: IdSubject[] = [];
      for (const s of rest) {
        const slug = candidate(s, level);
        if (counts.get(slug) === 1 && isFree(slug)) give(s, slug);
        else tied.push(s);
      }
      rest = tied;
    }
    for (const s of rest) {
      const full = candidate(s, deepest);
      let n = 1;
      while (!isFree(`${full}-${n}`)) n++;
      give(s, `${full}-${n}`);
    }
  }
  return ids;
}

/**
 * The public Spot of a stored one: the spec's fields in the spec's order, plus `hexId` and the derived facts
 * (an import's override, else what the forecast and tide domains computed, else null).
 */
export const toSpot = (s: StoredSpot, timezone: string, derived?: DerivedSpotFacts): Spot =>
  Object.freeze({
    id: s.id,
    name: s.name,
    country: s.country,
    region: s.region,
    lat: s.lat,
    lng: s.lng,
    hexId: s.hexId,
    facing: s.facing ?? derived?.facing ?? null,
    tideless: s.tideless ?? derived?.tideless ?? null,
    timezone,
  });
