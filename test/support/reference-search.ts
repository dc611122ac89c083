/**
 * A plain, obviously-correct spot search written from the rules in docs/spots.md ("Search"): every spot is
 * scored on its own with simple string tests, all matches are sorted, the first `limit` kept. Slow on purpose —
 * no index, no early exit, no cache — so the fast path in src/spots/search.ts can be checked against it.
 */
import { fold } from "../../src/spots/normalize";
import type { Searchable } from "../../src/spots/search";
import type { TownMatch } from "../../src/spots/towns";

const words = (folded: string): string[] => (folded === "" ? [] : folded.split(" "));
const compact = (folded: string): string => folded.replaceAll(" ", "");

/** Query words that are not whole words of `target` (each must at least start one), or null. */
function partialCount(query: string[], target: string[]): number | null {
  let partial = 0;
  for (const q of query) {
    if (target.includes(q)) continue;
    if (!target.some((w) => w.startsWith(q))) return null;
    partial++;
  }
  return partial;
}

/** Optimal string alignment distance (insert, delete, substitute, swap of neighbours), full table. */
export function osaDistance(a: string, b: string): number {
  const width = b.length + 1;
  const d = new Int32Array((a.length + 1) * width);
  const at = (i: number, j: number) => i * width + j;
  for (let i = 0; i <= a.length; i++) d[at(i, 0)] = i;
  for (let j = 0; j <= b.length; j++) d[at(0, j)] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[at(i, j)] = Math.min(d[at(i - 1, j)]! + 1, d[at(i, j - 1)]! + 1, d[at(i - 1, j - 1)]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[at(i, j)] = Math.min(d[at(i, j)]!, d[at(i - 2, j - 2)]! + 1);
    }
  }
  return d[at(a.length, b.length)]!;
}

/** Edits a query word may be away from a name or alias word: none under 4 letters, 1 up to 7, 2 from 8. */
const typoBudget = (word: string): number => (word.length < 4 ? 0 : word.length < 8 ? 1 : 2);
/** Words longer than this are only matched exactly or by prefix in the typo tier (as in the fast path). */
const MAX_TYPO_WORD = 48;

interface Prepared {
  name: string;
  nameWords: string[];
  aliases: string[];
  aliasWords: string[][];
  nameCompact: string;
  aliasCompacts: string[];
  ownWords: string[];
  /** ownWords as indexes into the distinct words of every spot (the typo tier measures each distinct word once). */
  ownWordIds: number[];
  country: string;
  regionSegments: string[];
  place: string;
  placeWords: string[];
  /** ownWords then placeWords: what a multi-word query may mix. */
  mixedWords: string[];
  regionSize: number;
  /** Town index → whole km to it, for the towns that cover this spot. */
  towns: Map<number, number>;
}

export class ReferenceSearch {
  private readonly prepared: Prepared[];
  private readonly townWords: string[][][];
  private readonly distinctWords: string[] = [];

  constructor(
    private readonly spots: readonly Searchable[],
    private readonly towns: readonly TownMatch[],
  ) {
    const regionSize = new Map<string, number>();
    for (const s of spots) regionSize.set(`${s.country}|${s.region}`, (regionSize.get(`${s.country}|${s.region}`) ?? 0) + 1);
    const wordIds = new Map<string, number>();
    const idOf = (word: string): number => {
      let id = wordIds.get(word);
      if (id === undefined) wordIds.set(word, (id = this.distinctWords.push(word) - 1));
      return id;
    };
    this.prepared = spots.map((s) => {
      const name = fold(s.name);
      const aliases = s.aliases.map(fold);
      const place = fold(`${s.country} ${s.region ?? ""}`);
      const ownWords = [...words(name), ...aliases.flatMap(words)];
      return {
        name,
        nameWords: words(name),
        aliases,
        aliasWords: aliases.map(words),
        nameCompact: compact(name),
        aliasCompacts: aliases.map(compact),
        ownWords,
        ownWordIds: ownWords.map(idOf),
        country: fold(s.country),
        regionSegments: (s.region ?? "").split(",").map(fold).filter((r) => r !== ""),
        place,
        placeWords: words(place),
        mixedWords: [...ownWords, ...words(place)],
        regionSize: regionSize.get(`${s.country}|${s.region}`)!,
        towns: new Map(),
      };
    });
    this.townWords = towns.map((t) => t.names.map(words));
    towns.forEach((t, k) => t.spots.forEach((i, at) => this.prepared[i]!.towns.set(k, t.km[at]!)));
  }

  /** The spot's sort key for query `q` (compared element by element), or null when no real tier matches. */
  private key(q: string, qw: string[], qc: string, i: number, townGrades: (number | null)[]): number[] | null {
    const s = this.prepared[i]!;
    const nameWordsPartial = partialCount(qw, s.nameWords);
    if (s.name.startsWith(q)) return [0, Math.min(s.nameWords.length - qw.length, 15), -Math.min(s.regionSize, 4095), s.name === q ? 0 : 1];
    if (nameWordsPartial === 0) return [1];
    if (s.country === q) return [2, 0];
    if (s.regionSegments.includes(q)) return [2, 1];
    if (nameWordsPartial !== null) return [3, nameWordsPartial];
    if (s.name.includes(q) || s.nameCompact.includes(qc)) return [4];
    const aliasGrades = s.aliases.map((a, k) =>
      a === q ? 0 : a.startsWith(q) ? 1 : partialCount(qw, s.aliasWords[k]!) !== null ? 2 : a.includes(q) || s.aliasCompacts[k]!.includes(qc) ? 3 : null,
    );
    const alias = aliasGrades.filter((g) => g !== null);
    if (alias.length > 0) return [5, Math.min(...alias)];
    const placeWordsPartial = partialCount(qw, s.placeWords);
    if (qw.length > 1 && placeWordsPartial === null) {
      const mixed = partialCount(qw, s.mixedWords);
      if (mixed !== null) return [6, mixed];
    }
    if (placeWordsPartial !== null) return [7, 2 + placeWordsPartial];
    if (s.place.includes(q)) return [7, 1000];
    // The best town: lowest grade, then nearest.
    let town: number[] | null = null;
    for (const [k, km] of s.towns) {
      const grade = townGrades[k]!;
      if (grade !== null && (town === null || compareKeys([8, grade, km], town) < 0)) town = [8, grade, km];
    }
    return town;
  }

  /** A town's best name grade for `q`: 2 · (0 exact, 1 whole words, 2 prefix, 2 + words only started) + 1 for an alternate name, or null. */
  private townGrade(q: string, qw: string[], t: number): number | null {
    let best: number | null = null;
    this.towns[t]!.names.forEach((name, k) => {
      if (!qw.every((w) => name.includes(w))) return; // every grade needs each query word inside the name
      const partial = partialCount(qw, this.townWords[t]![k]!);
      const match = name === q ? 0 : partial === 0 ? 1 : name.startsWith(q) ? 2 : partial === null ? null : 2 + partial;
      // the town's own name (the first) before its alternate names
      const grade = match === null ? null : 2 * match + (k > 0 ? 1 : 0);
      if (grade !== null && (best === null || grade < best)) best = grade;
    });
    return best;
  }

  /** Indexes of the best `limit` spots for `text`, best first. */
  search(text: string, limit: number): number[] {
    const q = fold(text);
    if (q === "") return [];
    const qw = words(q);
    const qc = compact(q);
    const townGrades = this.towns.map((_, t) => this.townGrade(q, qw, t));
    const scored: { i: number; key: number[] }[] = [];
    this.spots.forEach((_, i) => {
      const key = this.key(q, qw, qc, i, townGrades);
      if (key) scored.push({ i, key });
    });
    const found = scored.sort((a, b) => compareKeys(a.key, b.key) || this.tie(a.i, b.i)).map((m) => m.i);
    if (found.length >= limit) return found.slice(0, limit);
    return [...found, ...this.typos(q, new Set(found))].slice(0, limit);
  }

  /** Typo tier: every query word a prefix of, or within its budget of, a name or alias word; fewer edits first. */
  private typos(q: string, exclude: Set<number>): number[] {
    const qw = words(q);
    if (!qw.some((w) => typoBudget(w) > 0)) return [];
    const edits = (w: string, target: string): number => {
      if (target.startsWith(w)) return 0;
      if (w.length > MAX_TYPO_WORD || target.length > MAX_TYPO_WORD || Math.abs(w.length - target.length) > typoBudget(w)) return Infinity;
      const d = osaDistance(w, target);
      return d <= typoBudget(w) ? d : Infinity;
    };
    // Each query word against each distinct name or alias word, once (NaN: not measured yet).
    const memo = qw.map(() => new Float64Array(this.distinctWords.length).fill(Number.NaN));
    const editsOnce = (k: number, id: number): number => {
      let d = memo[k]![id]!;
      if (Number.isNaN(d)) memo[k]![id] = d = edits(qw[k]!, this.distinctWords[id]!);
      return d;
    };
    const out: { i: number; total: number }[] = [];
    this.prepared.forEach((s, i) => {
      if (exclude.has(i)) return;
      const total = qw.reduce((sum, _, k) => sum + Math.min(Infinity, ...s.ownWordIds.map((o) => editsOnce(k, o))), 0);
      if (total > 0 && Number.isFinite(total)) out.push({ i, total });
    });
    return out.sort((a, b) => a.total - b.total || this.tie(a.i, b.i)).map((m) => m.i);
  }

  /** Ties: shorter folded name, then folded name alphabetically, then id. */
  private tie(a: number, b: number): number {
    const na = this.prepared[a]!.name;
    const nb = this.prepared[b]!.name;
    return na.length - nb.length || (na < nb ? -1 : na > nb ? 1 : 0) || (this.spots[a]!.id < this.spots[b]!.id ? -1 : 1);
  }
}

function compareKeys(a: number[], b: number[]): number {
  for (let k = 0; k < Math.max(a.length, b.length); k++) {
    const d = (a[k] ?? 0) - (b[k] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
