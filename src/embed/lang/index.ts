/**
 * The languages an embed speaks: one file of strings per language (./en.ts is the reference), the words a page is
 * drawn with, and the values put into them. A string a language lacks is English, never its name.
 * To add a language: docs/embeds.md, "Languages".
 */
import { de } from "./de";
import { en, type Strings } from "./en";
import { es } from "./es";
import { fr } from "./fr";
import { it } from "./it";
import { pt } from "./pt";

/** Every language's strings, by its BCP 47 code (what `<html lang>` and Intl take). English first: the default. */
export const TRANSLATIONS: Readonly<Record<string, Partial<Strings>>> = { en, es, fr, pt, de, it };

export const EMBED_LANGS = Object.keys(TRANSLATIONS) as readonly string[];

/** Each language by its own name (`Português`), for the console's choice. */
export const LANGUAGE_NAMES: Readonly<Record<string, string>> = Object.fromEntries(EMBED_LANGS.map((lang) => [lang, stringsOf(lang).languageName]));
export type { Strings };

/** A language's strings, English where it has none. */
export function stringsOf(lang: string): Strings {
  return { ...en, ...TRANSLATIONS[lang] };
}

/** `template` with each `{name}` replaced by its value; a name without a value stays as written. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}
