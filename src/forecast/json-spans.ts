/**
 * Where the members of a JSON text are, without parsing it: a stored forecast document is ~60 KB of JSON whose
 * hours are served as the very text they were stored as. Parsing it whole to re-serialize each hour made ~1 MB of
 * garbage per document prepared (#22); slicing the stored text makes none and gives the same bytes (the text was
 * written by JSON.stringify, whose output is what JSON.stringify of its parse gives). Pure; the input must be valid
 * JSON (it is read back from our own store).
 */

const QUOTE = 34; // "
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;
const COLON = 58;

/** The end (exclusive) of the string starting with the quote at `at`. */
function stringEnd(text: string, at: number): number {
  let i = at + 1;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    i += c === BACKSLASH ? 2 : 1;
  }
}

/** The end (exclusive) of the value starting at `at` (no leading whitespace: JSON.stringify writes none). */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    let i = at;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || Number.isNaN(c)) return i;
      i++;
    }
  }
  let depth = 0;
  let i = at;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
    i++;
  }
}

/** Calls `visit` with each member of the object at `at`: its key and where its value's text is; stops when it returns true. */
function forEachMember(text: string, at: number, visit: (key: string, start: number, end: number) => boolean | void): void {
  let i = at + 1;
  while (text.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(text, i);
    const raw = text.slice(i + 1, keyEnd - 1);
    const key = raw.includes("\\") ? (JSON.parse(text.slice(i, keyEnd)) as string) : raw;
    if (text.charCodeAt(keyEnd) !== COLON) throw new Error(`not compact JSON at ${keyEnd}`);
    const start = keyEnd + 1;
    const end = valueEnd(text, start);
    if (visit(key, start, end)) return;
    i = text.charCodeAt(end) === COMMA ? end + 1 : end;
  }
}

/** Each member of the object at `at` (default: the whole text): its key, and where its value's text is. */
export function objectMembers(text: string, at = 0): Map<string, { start: number; end: number }> {
  const members = new Map<string, { start: number; end: number }>();
  forEachMember(text, at, (key, start, end) => void members.set(key, { start, end }));
  return members;
}

/** The parsed value of one member of the object at `at`, or undefined without it. */
export function memberValue(text: string, key: string, at = 0): unknown {
  let value: unknown;
  forEachMember(text, at, (k, start, end) => k === key && ((value = JSON.parse(text.slice(start, end))), true));
  return value;
}

/** The text of each element of the array at `at`. */
export function arrayElements(text: string, at: number): string[] {
  const elements: string[] = [];
  let i = at + 1;
  while (text.charCodeAt(i) !== CLOSE_BRACKET) {
    const end = valueEnd(text, i);
    elements.push(text.slice(i, end));
    i = text.charCodeAt(end) === COMMA ? end + 1 : end;
  }
  return elements;
}
