/**
 * Spot search: case- and diacritic-insensitive, over name, aliases, country and region, best match first.
 * Every string is folded once at load (normalize.ts). A query ranks only candidates: the owners of the words
 * its most selective word starts (enough when tiers 0–2 fill the limit), else the entries holding its rarest
 * letter n-gram; a bounded top-k keeps the best, no sort of all matches. Pure: built from plain values.
 *
 * Ranking (docs/spots.md) — lower tier first:
 *   0 exact name · 1 name prefix · 2 every query word starts a word of the name · 3 name substring ·
 *   4 alias (exact, prefix, word prefix, substring) · 5 words split between name/alias and place
 *   ("pipeline hawaii") · 6 country / region (exact country, exact region segment, word prefix, substring) ·
 *   7 typo tolerance, only when the real tiers leave room under `limit`.
 * Inside a tier: the finer grade (fewer partial words, fewer typos…), then the shorter name, then the name
 * alphabetically (folded), then the id.
 */
import { fold, words } from "./normalize";

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
  country: string;
  regionSegments: string[];
  place: Text;
  /** Every word of name and aliases: what a word of a multi-word query may hit besides the place. */
  ownWords: string[];
  /** ownWords and the place's words. */
  allWords: string[];
  /** The compact name, aliases and place, space-separated: a query word not in here cannot match a real tier. */
  haystack: string;
}

interface Query {
  folded: string;
  compact: string;
  words: string[];
}

const TIER_TYPO = 7;
/** Grades inside a tier stay below this, so `tier * GRADES + grade` orders tiers first. */
const GRADES = 64;

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

/** Grade 0..3 of a match against one text (exact, prefix, word prefix, substring), or -1. */
function textGrade(q: Query, t: Text): number {
  if (t.folded === q.folded) return 0;
  if (t.folded.startsWith(q.folded)) return 1;
  if (partialWords(q.words, t.words) >= 0) return 2;
  if (t.folded.includes(q.folded) || t.compact.includes(q.compact)) return 3;
  return -1;
}

const score = (tier: number, grade: number): number => tier * GRADES + Math.min(grade, GRADES - 1);

/** `score(tier, grade)` for the real tiers, or -1. */
function rank(q: Query, e: Entry): number {
  if (e.name.folded === q.folded) return score(0, 0);
  if (e.name.folded.startsWith(q.folded)) return score(1, 0);
  const partial = partialWords(q.words, e.name.words);
  if (partial >= 0) return score(2, partial);
  if (e.name.folded.includes(q.folded) || e.name.compact.includes(q.compact)) return score(3, 0);
  let alias = -1;
  for (const a of e.aliases) {
    const g = textGrade(q, a);
    if (g >= 0 && (alias < 0 || g < alias)) alias = g;
  }
  if (alias >= 0) return score(4, alias);
  const place = partialWords(q.words, e.place.words);
  // Words split between name and place ("pipeline hawaii"); a query the place answers alone is a place match.
  if (q.words.length > 1 && place < 0) {
    const mixed = partialWords(q.words, e.allWords);
    if (mixed >= 0) return score(5, mixed);
  }
  if (e.country === q.folded) return score(6, 0);
  if (e.regionSegments.includes(q.folded)) return score(6, 1);
  if (place >= 0) return score(6, Math.min(2 + place, GRADES - 2));
  if (e.place.folded.includes(q.folded)) return score(6, GRADES - 1);
  return -1;
}

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

/** Bit per letter/digit present (digits share bits with letters: a cheap filter, not an identity). */
function letterMask(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i++) mask |= 1 << (word.charCodeAt(i) % 32);
  return mask;
}

function bitCount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
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

/** Keeps the `limit` lowest scores seen, sorted; scores are unique (they embed the entry's tie rank). */
class TopK {
  readonly scores: number[] = [];
  readonly items: number[] = [];
  constructor(private readonly limit: number) {}

  offer(score: number, item: number): void {
    const n = this.scores.length;
    if (n === this.limit && score >= this.scores[n - 1]!) return;
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
  /** Entry index → its place in the tie order (shorter name, then folded name, then id). */
  private readonly tieRank: Int32Array;
  /**
   * Gram (letter, bigram, trigram) → entries whose haystack holds it (ascending, once each): one postings array sliced by
   * `gramStarts`. Typed arrays, so it is cheap to build at every start.
   */
  private readonly gramStarts = new Int32Array(GRAM_SPACE + 1);
  private readonly postings: Int32Array;
  /** Distinct name and alias words, sorted (prefix ranges by binary search), for the typo tier. */
  private readonly vocabulary: string[];
  /**
   * The same words by length (a word within its typo budget has a close length), with their letter masks:
   * each edit adds at most one letter the other word lacks, which rules out most words before any DP.
   */
  private readonly vocabularyByLength = new Map<number, { words: string[]; masks: Int32Array }>();
  /** Word → entries that have it in their name or an alias. */
  private readonly owners = new Map<string, number[]>();
  /** Per-entry mark of the last query that visited it (dedupe without allocating a set per query). */
  private readonly visited: Int32Array;
  private queryStamp = 0;

  constructor(spots: readonly Searchable[]) {
    this.entries = spots.map((s) => {
      const name = textOf(s.name);
      const aliases = s.aliases.map(textOf);
      const regionSegments = (s.region ?? "").split(",").map(fold).filter((r) => r !== "");
      const place = textOf(`${s.country} ${s.region ?? ""}`);
      const ownWords = [...new Set([...name.words, ...aliases.flatMap((a) => a.words)])];
      const haystack = [name.compact, ...aliases.map((a) => a.compact), place.compact].join(" ");
      return { name, aliases, country: fold(s.country), regionSegments, place, ownWords, allWords: [...ownWords, ...place.words], haystack };
    });

    const order = this.entries.map((_, i) => i);
    const key = (i: number) => this.entries[i]!.name.folded;
    order.sort((a, b) => key(a).length - key(b).length || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) || (spots[a]!.id < spots[b]!.id ? -1 : 1));
    this.tieRank = new Int32Array(spots.length);
    this.visited = new Int32Array(spots.length);
    order.forEach((entry, position) => (this.tieRank[entry] = position));

    // Two passes over every gram: count each one's entries, then fill the postings in place.
    const seenBy = new Int32Array(GRAM_SPACE);
    const eachGram = (visit: (gram: number, entry: number) => void) => {
      seenBy.fill(-1);
      this.entries.forEach((e, i) =>
        forEachGram(e.haystack, (gram) => {
          if (seenBy[gram] === i) return;
          seenBy[gram] = i;
          visit(gram, i);
        }),
      );
    };
    eachGram((gram) => this.gramStarts[gram + 1]!++);
    for (let g = 0; g < GRAM_SPACE; g++) this.gramStarts[g + 1]! += this.gramStarts[g]!;
    this.postings = new Int32Array(this.gramStarts[GRAM_SPACE]!);
    const cursor = this.gramStarts.slice(0, GRAM_SPACE);
    eachGram((gram, entry) => (this.postings[cursor[gram]!++] = entry));

    this.entries.forEach((e, i) => {
      for (const w of e.ownWords) {
        const list = this.owners.get(w);
        if (list) list.push(i);
        else this.owners.set(w, [i]);
      }
    });
    this.vocabulary = [...this.owners.keys()].sort();
    for (const length of new Set(this.vocabulary.map((w) => w.length))) {
      const sameLength = this.vocabulary.filter((w) => w.length === length);
      this.vocabularyByLength.set(length, { words: sameLength, masks: Int32Array.from(sameLength, letterMask) });
    }
  }

  /** Indexes (into the array the index was built from) of the best `limit` matches, best first. */
  search(text: string, limit: number): number[] {
    const folded = fold(text);
    if (folded === "") return [];
    const q: Query = { folded, compact: folded.replaceAll(" ", ""), words: words(folded) };
    const top = this.nameMatches(q, limit) ?? this.scan(q, this.candidates(q.words), limit);
    if (!top.full) this.offerTypos(q, top);
    return top.items;
  }

  /**
   * Fast path: tiers 0–2 all need every query word to start a word of the name, so their entries are among
   * the owners of the words starting with the most selective query word. When they fill `limit`, no later
   * tier can enter the answer; otherwise null (the full scan decides).
   */
  private nameMatches(q: Query, limit: number): TopK | null {
    let best: { from: number; to: number; owners: number } | null = null;
    for (const word of q.words) {
      const from = this.lowerBound(word);
      let to = from;
      let owners = 0;
      while (to < this.vocabulary.length && this.vocabulary[to]!.startsWith(word)) owners += this.owners.get(this.vocabulary[to++]!)!.length;
      if (best === null || owners < best.owners) best = { from, to, owners };
    }
    if (best === null || best.owners < limit) return null;
    const top = new TopK(limit);
    const n = this.entries.length;
    const stamp = ++this.queryStamp;
    for (let v = best.from; v < best.to; v++) {
      for (const i of this.owners.get(this.vocabulary[v]!)!) {
        if (this.visited[i] === stamp) continue;
        this.visited[i] = stamp;
        const r = rank(q, this.entries[i]!);
        if (r >= 0 && r < score(3, 0)) top.offer(r * n + this.tieRank[i]!, i);
      }
    }
    return top.full ? top : null;
  }

  private scan(q: Query, candidates: Int32Array, limit: number): TopK {
    const top = new TopK(limit);
    const n = this.entries.length;
    for (const i of candidates) {
      const r = rank(q, this.entries[i]!);
      if (r >= 0) top.offer(r * n + this.tieRank[i]!, i);
    }
    return top;
  }

  /**
   * Entries that may match a real tier at all: each needs every query word somewhere in its haystack, so they
   * are among the entries holding the rarest gram of any query word (its trigrams; bigram or letter for
   * shorter words).
   */
  private candidates(queryWords: string[]): Int32Array {
    let best: Int32Array | null = null;
    for (const word of queryWords) {
      forEachGram(word, (gram) => {
        if (gramSize(gram) !== Math.min(word.length, 3)) return;
        const list = this.postings.subarray(this.gramStarts[gram]!, this.gramStarts[gram + 1]!);
        if (best === null || list.length < best.length) best = list;
      });
    }
    return best ?? new Int32Array(0);
  }

  /** First vocabulary position whose word is not below `word`. */
  private lowerBound(word: string): number {
    let lo = 0;
    let hi = this.vocabulary.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.vocabulary[mid]! < word) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Vocabulary words within `word`'s typo budget (edits) or starting with it (0 edits). */
  private closeWords(word: string): Map<string, number> {
    const out = new Map<string, number>();
    for (let i = this.lowerBound(word); i < this.vocabulary.length && this.vocabulary[i]!.startsWith(word); i++) out.set(this.vocabulary[i]!, 0);
    const budget = typoBudget(word);
    const mask = letterMask(word);
    for (let len = word.length - budget; len <= word.length + budget; len++) {
      const bucket = this.vocabularyByLength.get(len);
      if (!bucket) continue;
      for (let k = 0; k < bucket.words.length; k++) {
        const other = bucket.masks[k]!;
        if (bitCount(mask & ~other) > budget || bitCount(other & ~mask) > budget) continue;
        const w = bucket.words[k]!;
        if (out.has(w)) continue;
        const d = editDistance(word, w, budget);
        if (d <= budget) out.set(w, d);
      }
    }
    return out;
  }

  /**
   * Last resort: every query word within its typo budget of (or a prefix of) a word of the name or an alias.
   * Candidates come from the query word with the fewest owners; the other words are checked per candidate.
   */
  private offerTypos(q: Query, top: TopK): void {
    if (!q.words.some((w) => typoBudget(w) > 0)) return;
    const close = q.words.map((w) => this.closeWords(w));
    const ownerCount = (m: Map<string, number>) => [...m.keys()].reduce((sum, w) => sum + this.owners.get(w)!.length, 0);
    const driver = close.reduce((best, m) => (ownerCount(m) < ownerCount(best) ? m : best));
    const candidates = new Set([...driver.keys()].flatMap((w) => this.owners.get(w)!));
    const already = new Set(top.items);
    const n = this.entries.length;
    for (const i of candidates) {
      if (already.has(i)) continue;
      let total = 0;
      for (const m of close) {
        let best = Infinity;
        for (const w of this.entries[i]!.ownWords) best = Math.min(best, m.get(w) ?? Infinity);
        total += best;
      }
      if (total > 0 && Number.isFinite(total)) top.offer(score(TIER_TYPO, total) * n + this.tieRank[i]!, i);
    }
  }
}
