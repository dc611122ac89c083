import { describe, expect, test } from "bun:test";
import { en } from "./en";
import { EMBED_LANGS, fill, LANGUAGE_NAMES, stringsOf, TRANSLATIONS } from "./index";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("every language has every string", () => {
  test("the six languages, English first", () => expect(EMBED_LANGS).toEqual(["en", "es", "fr", "pt", "de", "it"]));

  for (const lang of EMBED_LANGS) {
    test(`${lang}: every string of English, none empty, the same {values}`, () => {
      const given = TRANSLATIONS[lang]!;
      for (const [name, english] of Object.entries(en)) {
        const text = given[name as keyof typeof en];
        expect({ name, given: typeof text === "string" && text.trim() !== "" }).toEqual({ name, given: true });
        expect({ name, placeholders: placeholders(text!) }).toEqual({ name, placeholders: placeholders(english) });
      }
      expect(Object.keys(given).sort()).toEqual(Object.keys(en).sort());
      expect(stringsOf(lang).compass.split(" ")).toHaveLength(16);
    });
  }

  test("the words a page shows are translated: no language but English shows the English of a label", () => {
    const labels = ["tide", "surfNow", "wavesNow", "rising", "falling", "offshore", "onshore", "cross", "beginner", "intermediate", "advanced", "tableSummary", "creditsCaution", "noTideHere", "title"] as const;
    for (const lang of EMBED_LANGS.filter((l) => l !== "en")) for (const label of labels) expect({ lang, label, same: stringsOf(lang)[label] === en[label] }).toEqual({ lang, label, same: false });
  });

  test("the attribution's names and licence stay as they are in every language", () => {
    for (const lang of EMBED_LANGS) {
      expect(placeholders(stringsOf(lang).creditsData)).toEqual(["licence", "source"]);
      expect(placeholders(stringsOf(lang).creditsForecastBy)).toEqual(["surfcast"]);
    }
  });
});

describe("fallback", () => {
  test("a language without strings reads English, never a key name", () => {
    expect(stringsOf("xx")).toEqual(en);
    expect(LANGUAGE_NAMES).toEqual({ en: "English", es: "Español", fr: "Français", pt: "Português", de: "Deutsch", it: "Italiano" });
  });

  test("fill puts values in and leaves an unknown name as written", () => {
    expect(fill("high {high} at {time}", { high: "1,5", time: "07:00" })).toBe("high 1,5 at 07:00");
    expect(fill("{a} {b}", { a: 1 })).toBe("1 {b}");
  });
});
