/**
 * Spot search: case- and diacritic-insensitive, over name, aliases, country and region, and the names of the
 * towns near each spot; best match first. Every string is folded once at load (normalize.ts). A query ranks only
 * candidates — the spots owning a word that each query word starts (enough when the name tiers fill `limit`),
 * else the spots whose name or aliases hold the query's rarest letter n-grams — and walks places and towns as groups (a
 * country query does not rank every spot of the country one by one); a bounded top-k keeps the best.
 * Pure: built from plain values.
 *
 * Ranking (docs/spots.md) — lower tier first:
 *   0 the name starts with the query (exact or prefix), the spot of the larger region first ·
 *   1 every query word is a whole word of the name · 2 exact country or region segment ·
 *   3 every query word starts a word of the name · 4 name substring · 5 alias (exact, prefix, word prefix,
 *   substring) · 6 words split between name/alias and place ("pipeline hawaii") · 7 country / region words or
 *   substring · 8 a town within TOWN_RADIUS_KM (exact, prefix, word prefix; closer first) ·
 *   9 typo tolerance, only when the real tiers leave room under `limit`.
 * Inside a tier: the finer grade, then the shorter name, then the name alphabetically (folded), then the id.
 */
import { fold, words } from "./normalize";
import type { TownMatch } from "./towns";
import { registerCache } from "../core/caches";

export interface Searchable {
  id: string;
  name: string;
  country: string;
  region: string | null;
  /** Imported and name-derived aliases. */
  aliases: readonly string[];
}

interface Text {
  folded: string;
  compact: string;
  words: string[];
}

interface Entry {
  name: Text;
  aliases: Text[];
  /** Index into the places. */
  place: number;
  /** Every word of name and aliases: what a word of a multi-word query may hit besides the place. */
  ownWords: string[];
  /** ownWords and the place's words. */
  allWords: string[];
}

/** One country + region: every spot that shares it is ranked as a group for the place tiers. */
interface Place {
  country: string;
  regionSegments: string[];
  text: Text;
  /** Its spots in tie order. */
  entries: number[];
}

interface Query {
  folded: string;
  compact: string;
  words: string[];
}

export const TIER = { start: 0, words: 1, placeExact: 2, wordPrefix: 3, substring: 4, alias: 5, split: 6, place: 7, town: 8, typo: 9 } as const;
/**
 * Tier 0's grade: the name's words beyond the query's (capped), then the prominence grade 2 · (cap − spots
 * sharing the spot's country and region), then 1 when the name is longer than the query.
 */
const PROMINENCE_CAP = 4095;
const PROMINENCE_SLOTS = 2 * (PROMINENCE_CAP + 1);
const MAX_EXTRA_WORDS = 15;
/** Grades inside a tier stay below this, so `tier * GRADES + grade` orders tiers first. */
const GRADES = (MAX_EXTRA_WORDS + 1) * PROMINENCE_SLOTS;
/** The place grade of a query found only inside the place's text (no word match). */
const PLACE_SUBSTRING = GRADES - 1;
/** Town grades are `match grade · TOWN_KM_SLOTS + whole km` (the radius is ≤ 15 km). */
const TOWN_KM_SLOTS = 16;

function textOf(s: string): Text {
  const folded = fold(s);
  return { folded, compact: folded.replaceAll(" ", ""), words: words(folded) };
}

/** Number of query words that are not a whole word of `target`, or -1 when one is not even a word prefix. */
function partialWords(query: string[], target: readonly string[]): number {
  let partial = 0;
  for (const q of query) {
    let best = -1;
    for (const w of target) {
      if (w === q) {
        best = 0;
        break;
      }
      if (w.startsWith(q)) best = 1;
    }
    if (best < 0) return -1;
    partial += best;
  }
  return partial;
}

/** partialWords against the words of a folded text, found in place (no split: town names are many). */
function partialWordsIn(query: string[], text: string): number {
  let partial = 0;
  for (const q of query) {
    let best = -1;
    for (let at = text.indexOf(q); at >= 0 && best !== 0; at = text.indexOf(q, at + 1)) {
      if (at > 0 && text.charCodeAt(at - 1) !== SPACE) continue;
      const end = at + q.length;
      best = end === text.length || text.charCodeAt(end) === SPACE ? 0 : 1;
    }
    if (best < 0) return -1;
    partial += best;
  }
  return partial;
}
const SPACE = 32;

/** Grade 0..3 of a match against one text (exact, prefix, word prefix, substring), or -1. */
function textGrade(q: Query, t: Text): number {
  if (t.folded === q.folded) return 0;
  if (t.folded.startsWith(q.folded)) return 1;
  if (partialWords(q.words, t.words) >= 0) return 2;
  if (t.folded.includes(q.folded) || t.compact.includes(q.compact)) return 3;
  return -1;
}

/** Place grade: 0 exact country, 1 exact region segment, 2 + partial words, PLACE_SUBSTRING, or -1. */
function placeGrade(q: Query, p: Place): number {
  if (p.country === q.folded) return 0;
  if (p.regionSegments.includes(q.folded)) return 1;
  const partial = partialWords(q.words, p.text.words);
  if (partial >= 0) return Math.min(2 + partial, PLACE_SUBSTRING - 1);
  return p.text.folded.includes(q.folded) ? PLACE_SUBSTRING : -1;
}

/**
 * Town grade: the best of its names, 2 · (0 exact, 1 whole words, 2 name prefix, 2 + words only started) + 1 for an
 * alternate name (the town's own name first: "jeffreys" is Jeffreys Bay before Manchester-by-the-Sea's alternate
 * "Jeffreys Creek", and both before Jeffreyston), or -1.
 */
function townGrade(q: Query, t: TownMatch): number {
  let best = -1;
  t.names.forEach((name, k) => {
    const partial = partialWordsIn(q.words, name);
    const g = name === q.folded ? 0 : partial === 0 ? 1 : name.startsWith(q.folded) ? 2 : partial > 0 ? 2 + partial : -1;
    if (g >= 0 && (best < 0 || 2 * g + (k > 0 ? 1 : 0) < best)) best = 2 * g + (k > 0 ? 1 : 0);
  });
  return best;
}

const score = (tier: number, grade: number): number => tier * GRADES + Math.min(grade, GRADES - 1);

/** Longest word the typo tier looks at; longer ones only match exactly or by prefix. */
const MAX_TYPO_WORD = 48;
const rows = [new Int32Array(MAX_TYPO_WORD + 1), new Int32Array(MAX_TYPO_WORD + 1), new Int32Array(MAX_TYPO_WORD + 1)];

/** Optimal-string-alignment distance if it is at most `max`, else max + 1 (reuses three rows: no allocation). */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max || a.length > MAX_TYPO_WORD || b.length > MAX_TYPO_WORD) return max + 1;
  let prev2 = rows[0]!;
  let prev = rows[1]!;
  let row = rows[2]!;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const ai = a.charCodeAt(i - 1);
    row[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const bj = b.charCodeAt(j - 1);
      let d = prev[j - 1]! + (ai === bj ? 0 : 1);
      if (prev[j]! + 1 < d) d = prev[j]! + 1;
      if (row[j - 1]! + 1 < d) d = row[j - 1]! + 1;
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj && prev2[j - 2]! + 1 < d) d = prev2[j - 2]! + 1;
      row[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    const spare = prev2;
    prev2 = prev;
    prev = row;
    row = spare;
  }
  return prev[b.length]!;
}

/** a-z → 1..26, 0-9 → 27..36, anything else (the space between haystack parts) → -1. */
function symbolAt(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return c >= 97 && c <= 122 ? c - 96 : c >= 48 && c <= 57 ? c - 21 : -1;
}

/**
 * Unigram (offset 37), bigram (offset 2·37²) and trigram (offset 3·37³) codes of a text, base 37; grams that
 * span a space are skipped: haystack parts are separated by spaces and a query word has none.
 */
function forEachGram(text: string, visit: (gram: number) => void): void {
  let a = -1;
  let b = -1;
  for (let at = 0; at < text.length; at++) {
    const c = symbolAt(text, at);
    if (c >= 0) {
      visit(37 + c);
      if (b >= 0) {
        visit(2 * 37 ** 2 + b * 37 + c);
        if (a >= 0) visit(3 * 37 ** 3 + a * 37 ** 2 + b * 37 + c);
      }
    }
    a = b;
    b = c;
  }
}

/** The size of a gram from its code. */
const gramSize = (gram: number): number => (gram >= 3 * 37 ** 3 ? 3 : gram >= 2 * 37 ** 2 ? 2 : 1);

/** Above every gram code: trigram codes start at 3·37³ and stay below 4·37³. */
const GRAM_SPACE = 4 * 37 ** 3;

/** Typos allowed in a query word: none under 4 letters, 1 up to 7, 2 from 8. */
const typoBudget = (word: string): number => (word.length < 4 ? 0 : word.length < 8 ? 1 : 2);


/** FNV-1a hash of `word` without the characters at `skipA` and `skipB` (-1: none): the deletion variants. */
function deletionHash(word: string, skipA: number, skipB: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    if (i === skipA || i === skipB) continue;
    h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  }
  return h >>> 0;
}

/** Deletion variants the typo index keeps: every word, with one deletion, with two from 6 letters (a budget-2 query word has 8+). */
function forEachDeletion(word: string, deletions: number, visit: (hash: number) => void): void {
  visit(deletionHash(word, -1, -1));
  if (deletions < 1) return;
  for (let a = 0; a < word.length; a++) {
    visit(deletionHash(word, a, -1));
    if (deletions < 2) continue;
    for (let b = a + 1; b < word.length; b++) visit(deletionHash(word, a, b));
  }
}

const DELETION_BUCKETS = 1 << 17;
/** Answers kept per index (a few hundred kB at most). */
const ANSWER_CACHE_SIZE = 2048;

/**
 * Items by the grams of their text (one posting list per letter, bigram and trigram, sliced out of one typed
 * array; the grams present are a sorted typed array, found by binary search): the items that can contain a query
 * word are among those holding its rarest gram.
 */
class GramIndex {
  private readonly grams: Int32Array;
  private readonly starts: Int32Array;
  private readonly postings: Int32Array;
  private readonly scratch: Int32Array;

  constructor(texts: readonly string[]) {
    this.scratch = new Int32Array(texts.length);
    // Two passes over every gram: count each one's items, then fill the postings in place (dense while building).
    const seenBy = new Int32Array(GRAM_SPACE);
    const eachGram = (visit: (gram: number, item: number) => void) => {
      seenBy.fill(-1);
      texts.forEach((text, i) =>
        forEachGram(text, (gram) => {
          if (seenBy[gram] === i) return;
          seenBy[gram] = i;
          visit(gram, i);
        }),
      );
    };
    const counts = new Int32Array(GRAM_SPACE);
    eachGram((gram) => counts[gram]!++);
    const present: number[] = [];
    counts.forEach((count, gram) => count > 0 && present.push(gram));
    this.grams = Int32Array.from(present);
    this.starts = new Int32Array(present.length + 1);
    present.forEach((gram, k) => (this.starts[k + 1] = this.starts[k]! + counts[gram]!));
    this.postings = new Int32Array(this.starts[present.length]!);
    const cursor = new Int32Array(GRAM_SPACE);
    present.forEach((gram, k) => (cursor[gram] = this.starts[k]!));
    eachGram((gram, item) => (this.postings[cursor[gram]!++] = item));
  }

  /** Position of `gram` among the grams present, or -1. */
  private find(gram: number): number {
    let lo = 0;
    let hi = this.grams.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.grams[mid]! < gram) lo = mid + 1;
      else hi = mid;
    }
    return this.grams[lo] === gram ? lo : -1;
  }

  /**
   * The items holding the two rarest grams of the query words (their trigrams; bigram or letter for shorter
   * words), ascending. Valid until the next call (it may be a scratch buffer).
   */
  candidates(queryWords: readonly string[]): Int32Array {
    let best = -1;
    let second = -1;
    let missing = false;
    const count = (at: number) => this.starts[at + 1]! - this.starts[at]!;
    for (const word of queryWords) {
      forEachGram(word, (gram) => {
        if (gramSize(gram) !== Math.min(word.length, 3)) return;
        const at = this.find(gram);
        if (at < 0) missing = true;
        if (at < 0 || at === best || at === second) return;
        if (best === -1 || count(at) < count(best)) {
          second = best;
          best = at;
        } else if (second === -1 || count(at) < count(second)) second = at;
      });
    }
    if (missing || best < 0) return new Int32Array(0);
    const rarest = this.postings.subarray(this.starts[best]!, this.starts[best + 1]!);
    if (second < 0) return rarest;
    // Both lists ascending: a merge keeps the items holding both grams.
    let a = 0;
    let b = this.starts[second]!;
    const bEnd = this.starts[second + 1]!;
    let n = 0;
    while (a < rarest.length && b < bEnd) {
      const x = rarest[a]!;
      const y = this.postings[b]!;
      if (x === y) {
        this.scratch[n++] = x;
        a++;
        b++;
      } else if (x < y) a++;
      else b++;
    }
    return this.scratch.subarray(0, n);
  }
}

/** Sorted strings and the range of those starting with a prefix: a map for short prefixes, binary search inside it. */
class PrefixRanges {
  /** Prefix of up to SHORT_PREFIX characters → its range, `from · 2²¹ + to`. */
  private readonly short = new Map<string, number>();

  constructor(private readonly sorted: readonly string[]) {
    sorted.forEach((w, k) => {
      for (let length = 1; length <= Math.min(SHORT_PREFIX, w.length); length++) {
        const prefix = w.slice(0, length);
        const range = this.short.get(prefix);
        this.short.set(prefix, (range === undefined ? k : Math.floor(range / RANGE_SHIFT)) * RANGE_SHIFT + k + 1);
      }
    });
  }

  /**
   * The last few prefixes asked and their ranges: a query asks for each of its words in several tiers (the name
   * tiers, the typo tier), and a hit on the same string object is one comparison.
   */
  private readonly recent: string[] = [];
  private readonly recentRanges: [number, number][] = [];
  private nextRecent = 0;

  /** [from, to) of the strings starting with `prefix`. */
  range(prefix: string): [number, number] {
    const seen = this.recent.indexOf(prefix);
    if (seen !== -1) return this.recentRanges[seen]!;
    const range = this.find(prefix);
    this.recent[this.nextRecent] = prefix;
    this.recentRanges[this.nextRecent] = range;
    this.nextRecent = (this.nextRecent + 1) % RECENT_PREFIXES;
    return range;
  }

  private find(prefix: string): [number, number] {
    const short = this.short.get(prefix.length <= SHORT_PREFIX ? prefix : prefix.slice(0, SHORT_PREFIX));
    if (short === undefined) return [0, 0];
    const from = Math.floor(short / RANGE_SHIFT);
    const to = short % RANGE_SHIFT;
    if (prefix.length <= SHORT_PREFIX) return [from, to];
    // Every folded character is below "{": the strings starting with `prefix` end before `prefix + "{"`.
    const start = lowerBound(this.sorted, prefix, from, to);
    return [start, lowerBound(this.sorted, prefix + "{", start, to)];
  }
}

/**
 * Words (sorted, so a prefix is a range) and the items owning each, in one typed array: the owners of word v are
 * `owners[ownersBefore[v] .. ownersBefore[v + 1])`, so a range's owner count is a difference.
 */
class WordOwners {
  readonly vocabulary: string[];
  readonly ownersBefore: Int32Array;
  readonly owners: Int32Array;
  private readonly prefixes: PrefixRanges;

  /** Per-query marks of forEachOwnerOfAll: the query's stamp, and how many of its words the item passed. */
  private readonly passedStamp: Int32Array;
  private readonly passed: Int32Array;
  private stamp = 0;

  constructor(byWord: ReadonlyMap<string, readonly number[]>, items: number) {
    this.passedStamp = new Int32Array(items);
    this.passed = new Int32Array(items);
    this.vocabulary = [...byWord.keys()].sort();
    this.ownersBefore = new Int32Array(this.vocabulary.length + 1);
    this.vocabulary.forEach((w, k) => (this.ownersBefore[k + 1] = this.ownersBefore[k]! + byWord.get(w)!.length));
    this.owners = new Int32Array(this.ownersBefore[this.vocabulary.length]!);
    this.vocabulary.forEach((w, k) => this.owners.set(byWord.get(w)!, this.ownersBefore[k]!));
    this.prefixes = new PrefixRanges(this.vocabulary);
  }

  /** [from, to) of the words starting with `prefix`. */
  range(prefix: string): [number, number] {
    return this.prefixes.range(prefix);
  }

  /** Calls `visit` with each owner of the words in [from, to) (an item owning two of them, twice). */
  forEachOwner(from: number, to: number, visit: (item: number) => void): void {
    for (let at = this.ownersBefore[from]!; at < this.ownersBefore[to]!; at++) visit(this.owners[at]!);
  }

  /**
   * Calls `visit` once with each item owning, for every query word, a word that it starts — and some that do not:
   * the ranges are walked from the fewest owners up, counting per item how many words it passed (a mark per item,
   * not a set), and a range with far more owners than the first is not walked (a one-letter word's range can hold
   * most items; the caller's grade tells). A few nanoseconds per owner instead of ranking every owner of one word.
   */
  forEachOwnerOfAll(queryWords: readonly string[], visit: (item: number) => void): void {
    const stamp = ++this.stamp;
    if (queryWords.length === 1) {
      // One word: its range's owners, each once (an item owning two of its words appears twice).
      const [from, to] = this.range(queryWords[0]!);
      for (let at = this.ownersBefore[from]!; at < this.ownersBefore[to]!; at++) {
        const item = this.owners[at]!;
        if (this.passedStamp[item] === stamp) continue;
        this.passedStamp[item] = stamp;
        visit(item);
      }
      return;
    }
    const sorted = queryWords.map((w) => this.range(w)).sort((a, b) => this.ownerCount(a) - this.ownerCount(b));
    const walkable = INTERSECT_FACTOR * Math.max(this.ownerCount(sorted[0]!), INTERSECT_MIN);
    const ranges = sorted.filter((r) => this.ownerCount(r) <= walkable);
    const last = ranges.length - 1;
    ranges.forEach(([from, to], k) => {
      for (let at = this.ownersBefore[from]!; at < this.ownersBefore[to]!; at++) {
        const item = this.owners[at]!;
        if (k === 0) {
          if (this.passedStamp[item] === stamp) continue;
          this.passedStamp[item] = stamp;
        } else if (this.passedStamp[item] !== stamp || this.passed[item] !== k) continue;
        this.passed[item] = k + 1;
        if (k === last) visit(item);
      }
    });
  }

  private ownerCount([from, to]: [number, number]): number {
    return this.ownersBefore[to]! - this.ownersBefore[from]!;
  }
}

/** forEachOwnerOfAll walks a word's range only when it has at most this many times the owners of the rarest (at least INTERSECT_MIN). */
const INTERSECT_FACTOR = 4;
const INTERSECT_MIN = 32;
const RANGE_SHIFT = 2 ** 21;
const SHORT_PREFIX = 3;
/** Prefixes whose ranges PrefixRanges remembers (more than a query has words, mostly). */
const RECENT_PREFIXES = 4;

/** Keeps the `limit` lowest scores seen, sorted; scores are unique (they embed the entry's tie rank). */
class TopK {
  readonly scores: number[] = [];
  readonly items: number[] = [];
  constructor(private readonly limit: number) {}

  /** Whether a score could still enter. */
  admits(score: number): boolean {
    return this.scores.length < this.limit || score < this.scores[this.limit - 1]!;
  }

  offer(score: number, item: number): void {
    if (!this.admits(score)) return;
    const n = this.scores.length;
    let i = n === this.limit ? n - 1 : n;
    while (i > 0 && this.scores[i - 1]! > score) {
      this.scores[i] = this.scores[i - 1]!;
      this.items[i] = this.items[i - 1]!;
      i--;
    }
    this.scores[i] = score;
    this.items[i] = item;
  }

  get full(): boolean {
    return this.scores.length === this.limit;
  }
}

export class SearchIndex {
  private readonly entries: Entry[];
  private readonly places: Place[] = [];
  private readonly towns: readonly TownMatch[];
  /** Entry index → its place in the tie order (shorter name, then folded name, then id). */
  private readonly tieRank: Int32Array;
  /** Entry → its tier-0 prominence grade: 2 · (cap − spots sharing its place). */
  private readonly prominence: Int32Array;
  /** Folded names in sorted order (a prefix is a range), their entries, word counts and tier-0 prominence grades (+1: not exact). */
  private readonly sortedNames: string[];
  private readonly namePrefixes: PrefixRanges;
  private readonly byName: Int32Array;
  private readonly startGrades: Int32Array;
  private readonly nameWordCounts: Int32Array;
  /** Entries by their compact name and aliases; places by their text. */
  private readonly ownGrams: GramIndex;
  private readonly placeGrams: GramIndex;
  /** Words of the town names → their towns. */
  private readonly townWords: WordOwners;
  /** Name and alias words → their entries (the name tiers and the typo tier). */
  private readonly own: WordOwners;
  /** Name, alias and place words → their entries (the split tier). */
  private readonly all: WordOwners;
  /** Deletion variant hash bucket → vocabulary words that have a variant there (symmetric-deletion typo lookup). */
  private readonly deletionStarts = new Int32Array(DELETION_BUCKETS + 1);
  private readonly deletionWords: Int32Array;
  /** The full hash of each variant, so a shared bucket costs no distance computation. */
  private readonly deletionHashes: Int32Array;
  /** Per-query marks, so nothing is allocated per query: entries ranked, entries offered, place grades, vocabulary words tried. */
  private readonly ranked: Int32Array;
  private readonly offered: Int32Array;
  private readonly placeStamp: Int32Array;
  private readonly placeMemo: Int32Array;
  private readonly wordStamp: Int32Array;
  private queryStamp = 0;
  /**
   * The latest answers by limit and folded query (least recently used dropped first): an app searches on every
   * keystroke, and many users type the same first letters and the same places.
   */
  private readonly answers = registerCache(new Map<string, readonly number[]>());

  constructor(spots: readonly Searchable[], towns: readonly TownMatch[] = []) {
    const placeIds = new Map<string, number>();
    this.entries = spots.map((s, i) => {
      const name = textOf(s.name);
      const aliases = s.aliases.map(textOf);
      const key = `${s.country}\u001f${s.region ?? ""}`;
      let place = placeIds.get(key);
      if (place === undefined) {
        place = this.places.length;
        placeIds.set(key, place);
        const regionSegments = (s.region ?? "").split(",").map(fold).filter((r) => r !== "");
        this.places.push({ country: fold(s.country), regionSegments, text: textOf(`${s.country} ${s.region ?? ""}`), entries: [] });
      }
      this.places[place]!.entries.push(i);
      const ownWords = [...new Set([...name.words, ...aliases.flatMap((a) => a.words)])];
      return { name, aliases, place, ownWords, allWords: [...ownWords, ...this.places[place]!.text.words] };
    });
    const n = this.entries.length;

    const order = this.entries.map((_, i) => i);
    const key = (i: number) => this.entries[i]!.name.folded;
    order.sort((a, b) => key(a).length - key(b).length || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) || (spots[a]!.id < spots[b]!.id ? -1 : 1));
    this.tieRank = new Int32Array(n);
    order.forEach((entry, position) => (this.tieRank[entry] = position));
    this.prominence = Int32Array.from(this.entries, (e) => 2 * (PROMINENCE_CAP - Math.min(this.places[e.place]!.entries.length, PROMINENCE_CAP)));
    for (const p of this.places) p.entries.sort((a, b) => this.tieRank[a]! - this.tieRank[b]!);
    this.byName = Int32Array.from(order).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    this.sortedNames = Array.from(this.byName, key);
    this.namePrefixes = new PrefixRanges(this.sortedNames);
    this.startGrades = Int32Array.from(this.byName, (i) => this.prominence[i]! + 1);
    this.nameWordCounts = Int32Array.from(this.byName, (i) => this.entries[i]!.name.words.length);
    this.towns = towns;

    this.ownGrams = new GramIndex(this.entries.map((e) => [e.name.compact, ...e.aliases.map((a) => a.compact)].join(" ")));
    this.placeGrams = new GramIndex(this.places.map((p) => p.text.folded));

    const addOwner = (map: Map<string, number[]>, word: string, entry: number) => {
      const list = map.get(word);
      if (list === undefined) map.set(word, [entry]);
      else if (list[list.length - 1] !== entry) list.push(entry);
    };
    const own = new Map<string, number[]>();
    const all = new Map<string, number[]>();
    const town = new Map<string, number[]>();
    this.entries.forEach((e, i) => {
      for (const w of e.ownWords) addOwner(own, w, i);
      for (const w of e.allWords) addOwner(all, w, i);
    });
    this.towns.forEach((t, k) => {
      for (const name of t.names) for (const w of words(name)) addOwner(town, w, k);
    });
    this.own = new WordOwners(own, n);
    this.all = new WordOwners(all, n);
    this.townWords = new WordOwners(town, this.towns.length);

    const deletionsOf = (word: string) => (word.length > MAX_TYPO_WORD ? -1 : word.length >= 6 ? 2 : 1);
    const eachVariant = (visit: (hash: number, word: number) => void) =>
      this.own.vocabulary.forEach((w, k) => {
        const deletions = deletionsOf(w);
        if (deletions >= 0) forEachDeletion(w, deletions, (hash) => visit(hash, k));
      });
    eachVariant((hash) => this.deletionStarts[(hash & (DELETION_BUCKETS - 1)) + 1]!++);
    for (let b = 0; b < DELETION_BUCKETS; b++) this.deletionStarts[b + 1]! += this.deletionStarts[b]!;
    this.deletionWords = new Int32Array(this.deletionStarts[DELETION_BUCKETS]!);
    this.deletionHashes = new Int32Array(this.deletionWords.length);
    const cursor = this.deletionStarts.slice(0, DELETION_BUCKETS);
    eachVariant((hash, word) => {
      const at = cursor[hash & (DELETION_BUCKETS - 1)]!++;
      this.deletionWords[at] = word;
      this.deletionHashes[at] = hash;
    });

    this.ranked = new Int32Array(n);
    this.offered = new Int32Array(n);
    this.placeStamp = new Int32Array(this.places.length);
    this.placeMemo = new Int32Array(this.places.length);
    this.wordStamp = new Int32Array(this.own.vocabulary.length);
  }

  /** Indexes (into the array the index was built from) of the best `limit` matches, best first. */
  search(text: string, limit: number): readonly number[] {
    const folded = fold(text);
    if (folded === "") return [];
    const key = `${limit} ${folded}`;
    const cached = this.answers.get(key);
    if (cached !== undefined) {
      // Most recently used last: the oldest answer is the first key.
      this.answers.delete(key);
      this.answers.set(key, cached);
      return cached;
    }
    const q: Query = { folded, compact: folded.replaceAll(" ", ""), words: words(folded) };
    const top = this.nameStarts(q, limit) ?? this.realTiers(q, limit);
    if (!top.full) this.offerTypos(q, top);
    // Shared with later callers of the same query: the readonly type keeps them from changing it.
    const answer: readonly number[] = top.items;
    if (this.answers.size >= ANSWER_CACHE_SIZE) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, answer);
    return answer;
  }

  /** The entry's place grade for this query (computed once per place and query). */
  private placeGradeOf(q: Query, place: number): number {
    if (this.placeStamp[place] !== this.queryStamp) {
      this.placeStamp[place] = this.queryStamp;
      this.placeMemo[place] = placeGrade(q, this.places[place]!);
    }
    return this.placeMemo[place]!;
  }

  /** `score(tier, grade)` of the real tiers up to the place tier, or -1. */
  private rank(q: Query, i: number): number {
    const e = this.entries[i]!;
    if (e.name.folded.startsWith(q.folded)) {
      const extraWords = Math.min(e.name.words.length - q.words.length, MAX_EXTRA_WORDS);
      return score(TIER.start, extraWords * PROMINENCE_SLOTS + this.prominence[i]! + (e.name.folded === q.folded ? 0 : 1));
    }
    const partial = partialWords(q.words, e.name.words);
    if (partial === 0) return score(TIER.words, 0);
    const place = this.placeGradeOf(q, e.place);
    if (place === 0 || place === 1) return score(TIER.placeExact, place);
    if (partial > 0) return score(TIER.wordPrefix, partial);
    if (e.name.folded.includes(q.folded) || e.name.compact.includes(q.compact)) return score(TIER.substring, 0);
    let alias = -1;
    for (const a of e.aliases) {
      const g = textGrade(q, a);
      if (g >= 0 && (alias < 0 || g < alias)) alias = g;
    }
    if (alias >= 0) return score(TIER.alias, alias);
    // Words split between name and place ("pipeline hawaii"); a query the place's words answer alone is a place match.
    const placeWords = place >= 0 && place !== PLACE_SUBSTRING;
    if (q.words.length > 1 && !placeWords) {
      const mixed = partialWords(q.words, e.allWords);
      if (mixed >= 0) return score(TIER.split, mixed);
    }
    return place >= 0 ? score(TIER.place, place) : -1;
  }

  private offer(top: TopK, r: number, i: number): void {
    if (r < 0) return;
    this.offered[i] = this.queryStamp;
    top.offer(r * this.entries.length + this.tieRank[i]!, i);
  }

  /**
   * Fast path: when at least `limit` names start with the query, tier 0 alone is the answer. Those names are one
   * range of the sorted names, and their tier-0 grades are precomputed (less the exact bit): no ranking at all.
   */
  private nameStarts(q: Query, limit: number): TopK | null {
    const [from, to] = this.namePrefixes.range(q.folded);
    if (to - from < limit) return null;
    const top = new TopK(limit);
    const n = this.entries.length;
    for (let at = from; at < to; at++) {
      const i = this.byName[at]!;
      const extraWords = Math.min(this.nameWordCounts[at]! - q.words.length, MAX_EXTRA_WORDS);
      const grade = extraWords * PROMINENCE_SLOTS + this.startGrades[at]! - (this.sortedNames[at] === q.folded ? 1 : 0);
      const r = score(TIER.start, grade) * n + this.tieRank[i]!;
      if (top.admits(r)) top.offer(r, i);
    }
    return top;
  }

  /** Every real tier, cheapest and best first, stopping once no later tier can enter the answer. */
  private realTiers(q: Query, limit: number): TopK {
    const top = new TopK(limit);
    const stamp = ++this.queryStamp;
    const n = this.entries.length;
    const rankOnce = (i: number) => {
      if (this.ranked[i] === stamp) return;
      this.ranked[i] = stamp;
      this.offer(top, this.rank(q, i), i);
    };
    // Tiers 0, 1 and 3 (and an alias's word prefixes) need every query word to start a word of the name or an
    // alias. With the exact places (tier 2) they often fill the answer.
    if (q.words.length === 1) this.rankOneWord(q, top, rankOnce);
    else {
      this.own.forEachOwnerOfAll(q.words, rankOnce);
      this.walkPlaces(q, top, true);
    }
    if (!top.admits(score(TIER.substring, 0) * n)) return top;
    // The other name and alias grades need the query, spaces dropped, inside the compact name or an alias. A
    // candidate not ranked yet is not in tiers 0–3 (all ranked above): one the top-k cannot admit even at tier 4 is
    // left unranked ("er": 831 names hold it, ~50 are ranked).
    const candidates = this.ownGrams.candidates([q.compact]);
    const substring = score(TIER.substring, 0) * n;
    for (let k = 0; k < candidates.length; k++) {
      const i = candidates[k]!;
      if (top.admits(substring + this.tieRank[i]!)) rankOnce(i);
    }
    // The split tier: every query word starts a word of the name, an alias or the place. Spots whose place's words
    // answer the whole query are place matches, left to the place walk below. One not ranked yet is in no tier
    // above this one (each was ranked or bounded above): it is ranked only if the top-k could admit it here.
    if (q.words.length > 1) {
      const split = score(TIER.split, 0) * n;
      this.all.forEachOwnerOfAll(q.words, (i) => {
        if (!top.admits(split + this.tieRank[i]!)) return;
        const place = this.placeGradeOf(q, this.entries[i]!.place);
        if (place < 0 || place === PLACE_SUBSTRING) rankOnce(i);
      });
    }
    this.walkPlaces(q, top, false);
    if (top.admits(score(TIER.town, 0) * n)) this.offerTowns(q, top);
    return top;
  }

  /**
   * The name tiers of a one-word query, best first, so that most owners of the words it starts need no ranking: the
   * names starting with it (tier 0: fewer than `limit`, or the fast path would have answered), the owners of the word
   * itself (tier 1 needs it whole in the name) and the exact places (tier 2). Every other owner ranks tier 3 with
   * grade 1 at best: one the top-k cannot admit even so is left unranked.
   */
  private rankOneWord(q: Query, top: TopK, rankOnce: (i: number) => void): void {
    const [from, to] = this.namePrefixes.range(q.folded);
    for (let at = from; at < to; at++) rankOnce(this.byName[at]!);
    const [wordFrom, wordTo] = this.own.range(q.folded);
    if (wordFrom < wordTo && this.own.vocabulary[wordFrom] === q.folded) this.own.forEachOwner(wordFrom, wordFrom + 1, rankOnce);
    this.walkPlaces(q, top, true);
    const n = this.entries.length;
    const best = score(TIER.wordPrefix, 1) * n;
    this.own.forEachOwner(wordFrom, wordTo, (i) => {
      if (top.admits(best + this.tieRank[i]!)) rankOnce(i);
    });
  }

  /**
   * The place tiers (exact ones, or the others): one grade per place and its spots in tie order, so a walk
   * stops at the first spot that cannot enter. Spots already ranked by name keep their rank.
   */
  private walkPlaces(q: Query, top: TopK, exact: boolean): void {
    const n = this.entries.length;
    const candidates = this.placeGrams.candidates(q.words);
    for (let c = 0; c < candidates.length; c++) {
      const p = candidates[c]!;
      const grade = this.placeGradeOf(q, p);
      if (grade < 0 || grade <= 1 !== exact) continue;
      const r = score(exact ? TIER.placeExact : TIER.place, grade);
      const entries = this.places[p]!.entries;
      for (let k = 0; k < entries.length; k++) {
        const i = entries[k]!;
        if (this.ranked[i] === this.queryStamp) continue;
        if (!top.admits(r * n + this.tieRank[i]!)) break;
        this.ranked[i] = this.queryStamp;
        this.offer(top, r, i);
      }
    }
  }

  /**
   * Spots near the towns the query names (every query word starts a word of a town name): each at its best town
   * grade, closer first. Candidates: the towns owning a word that each query word starts.
   */
  private offerTowns(q: Query, top: TopK): void {
    const best = new Map<number, number>();
    const stamp = this.queryStamp;
    this.townWords.forEachOwnerOfAll(q.words, (t) => {
      const town = this.towns[t]!;
      const grade = townGrade(q, town);
      if (grade < 0) return;
      town.spots.forEach((i, k) => {
        if (this.offered[i] === stamp) return;
        const r = score(TIER.town, grade * TOWN_KM_SLOTS + Math.min(town.km[k]!, TOWN_KM_SLOTS - 1));
        if (r < (best.get(i) ?? Infinity)) best.set(i, r);
      });
    });
    for (const [i, r] of best) this.offer(top, r, i);
  }

  /** Vocabulary words (and their positions) within `word`'s typo budget (edits) or starting with it (0 edits). */
  private closeWords(word: string): Map<string, { word: number; edits: number }> {
    const out = new Map<string, { word: number; edits: number }>();
    const vocabulary = this.own.vocabulary;
    const [from, to] = this.own.range(word);
    for (let i = from; i < to; i++) out.set(vocabulary[i]!, { word: i, edits: 0 });
    const budget = typoBudget(word);
    if (budget === 0 || word.length > MAX_TYPO_WORD) return out;
    // Two words within k edits share a variant with at most k deletions on each side (a swap is one deletion each).
    const stamp = ++this.queryStamp;
    forEachDeletion(word, budget, (hash) => {
      const bucket = hash & (DELETION_BUCKETS - 1);
      for (let at = this.deletionStarts[bucket]!; at < this.deletionStarts[bucket + 1]!; at++) {
        if (this.deletionHashes[at] !== (hash | 0)) continue;
        const k = this.deletionWords[at]!;
        if (this.wordStamp[k] === stamp) continue;
        this.wordStamp[k] = stamp;
        const w = vocabulary[k]!;
        if (out.has(w)) continue;
        const d = editDistance(word, w, budget);
        if (d <= budget) out.set(w, { word: k, edits: d });
      }
    });
    return out;
  }

  /**
   * Last resort: every query word within its typo budget of (or a prefix of) a word of the name or an alias.
   * Candidates are the owners of the words close to one query word (the one starting the fewest vocabulary
   * words, a cheap guess at the rarest); the other words are measured only against each candidate's words.
   */
  private offerTypos(q: Query, top: TopK): void {
    if (!q.words.some((w) => typoBudget(w) > 0)) return;
    const ownerCounts = q.words.map((w) => {
      const [from, to] = this.own.range(w);
      return this.own.ownersBefore[to]! - this.own.ownersBefore[from]!;
    });
    const driver = ownerCounts.indexOf(Math.min(...ownerCounts));
    const close = this.closeWords(q.words[driver]!);
    const memo = q.words.map(() => new Map<string, number>());
    /** Edits from query word k to `word`: 0 for a prefix, else the distance within the budget, else Infinity. */
    const edits = (k: number, word: string): number => {
      let d = memo[k]!.get(word);
      if (d === undefined) {
        const w = q.words[k]!;
        const budget = typoBudget(w);
        d = k === driver ? (close.get(word)?.edits ?? Infinity) : word.startsWith(w) ? 0 : budget === 0 ? Infinity : editDistance(w, word, budget);
        if (d > budget) d = Infinity;
        memo[k]!.set(word, d);
      }
      return d;
    };
    const already = new Set(top.items);
    const n = this.entries.length;
    const stamp = ++this.queryStamp;
    for (const v of close.values()) {
      this.own.forEachOwner(v.word, v.word + 1, (i) => {
        if (this.ranked[i] === stamp || already.has(i)) return;
        this.ranked[i] = stamp;
        let total = 0;
        for (let k = 0; k < q.words.length && total < Infinity; k++) {
          let best = Infinity;
          for (const w of this.entries[i]!.ownWords) best = Math.min(best, edits(k, w));
          total += best;
        }
        if (total > 0 && Number.isFinite(total)) top.offer(score(TIER.typo, total) * n + this.tieRank[i]!, i);
      });
    }
  }
}

/** First position in sorted `list` whose word is not below `word`. */
function lowerBound(list: readonly string[], word: string, from = 0, to = list.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < word) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
