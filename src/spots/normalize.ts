/**
 * Text folding shared by ids, search and import identity: one definition, so a slug, a search token and
 * a query typed with or without accents all agree. Pure functions.
 */

/** Latin letters that Unicode does not decompose into a base letter plus a mark. */
const UNDECOMPOSABLE: Record<string, string> = {
  ø: "o", đ: "d", ð: "d", ħ: "h", ı: "i", ł: "l", ŀ: "l", ß: "ss", æ: "ae", œ: "oe", þ: "th", ŧ: "t",
};
const UNDECOMPOSABLE_RE = new RegExp(`[${Object.keys(UNDECOMPOSABLE).join("")}]`, "g");
const MARKS = /\p{M}+/gu;
/** Apostrophes join (O'Neill → oneill), every other non-alphanumeric character separates words. */
const APOSTROPHES = /['’‘`´ʼ]/g;
const SEPARATORS = /[^a-z0-9]+/g;
/** Text `fold` would return unchanged: lower-case ASCII words separated by single spaces. */
const PLAIN_WORDS = /^[a-z0-9]+(?: [a-z0-9]+)*$/;

/**
 * Lower-case ASCII words separated by single spaces: diacritics folded (Aguçadoura → agucadoura), apostrophes
 * dropped, punctuation and runs of spaces turned into one space. Non-Latin letters without an ASCII
 * counterpart are dropped.
 */
export function fold(text: string): string {
  const lower = text.toLowerCase();
  // Most queries are already plain words (every search keystroke folds its text): nothing to fold.
  if (PLAIN_WORDS.test(lower)) return lower;
  return lower
    .normalize("NFKD")
    .replace(MARKS, "")
    .replace(UNDECOMPOSABLE_RE, (c) => UNDECOMPOSABLE[c]!)
    .replace(APOSTROPHES, "")
    .replace(SEPARATORS, " ")
    .trim();
}

export const words = (folded: string): string[] => (folded === "" ? [] : folded.split(" "));

/** `lower-case-ascii-words`; "" when the text has no letter or digit at all. */
export const slugify = (text: string): string => words(fold(text)).join("-");
