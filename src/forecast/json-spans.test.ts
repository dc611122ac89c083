/** The JSON slicer that serves stored forecast hours as their stored text (src/forecast/json-spans.ts). */
import { describe, expect, test } from "bun:test";
import { arrayElements, memberValue, objectMembers } from "./json-spans";

const cases: unknown[] = [
  { hours: [{ time: "2026-11-24T00:00:00Z", rating: { beginner: 3 }, swells: [{ h: 1.2 }, { h: null }] }, { time: "x", n: -0.5e-7 }], daily: [] },
  { a: "quote \" and backslash \\ and ] } [ { , : inside", b: [[], [[1, 2], {}], "]"], c: null, d: true, e: false, f: 1e21 },
  { "key with \"quote\"": { nested: { deeper: [1, "two", { three: 3 }] } }, empty: {}, last: [] },
  { unicode: "Pūpūkea — ñ, 海", n: 12345.678 },
];

describe("objectMembers and arrayElements", () => {
  for (const [i, value] of cases.entries()) {
    test(`case ${i}: every member's text parses to the member, and re-serializes to the same bytes`, () => {
      const text = JSON.stringify(value);
      const members = objectMembers(text);
      expect([...members.keys()]).toEqual(Object.keys(value as object));
      for (const [key, { start, end }] of members) {
        const slice = text.slice(start, end);
        expect(JSON.parse(slice)).toEqual((value as Record<string, unknown>)[key]);
        expect(JSON.stringify(JSON.parse(slice))).toBe(slice);
        if (slice.startsWith("[")) expect(arrayElements(text, start).map((e) => JSON.parse(e))).toEqual((value as Record<string, unknown[]>)[key]!);
      }
    });
  }

  test("a nested object's members, by offset", () => {
    const text = JSON.stringify({ head: 1, hour: { time: "t", rating: { advanced: 5 } } });
    const hour = objectMembers(text).get("hour")!;
    const inner = objectMembers(text, hour.start);
    expect(JSON.parse(text.slice(inner.get("rating")!.start, inner.get("rating")!.end))).toEqual({ advanced: 5 });
  });

  test("an empty object and an empty array", () => {
    expect(objectMembers("{}").size).toBe(0);
    expect(arrayElements("[]", 0)).toEqual([]);
  });
});

describe("memberValue", () => {
  test("one member parsed, absent → undefined, escaped keys decoded", () => {
    const text = JSON.stringify({ time: "2026-11-24T00:00:00Z", rating: { beginner: 2 }, 'a"b': 1 });
    expect(memberValue(text, "rating")).toEqual({ beginner: 2 });
    expect(memberValue(text, "time")).toBe("2026-11-24T00:00:00Z");
    expect(memberValue(text, 'a"b')).toBe(1);
    expect(memberValue(text, "missing")).toBeUndefined();
  });
});
