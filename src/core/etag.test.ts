import { expect, test } from "bun:test";
import { noneMatchHolds } from "./etag";

const tag = '"abc-1-br"';

test("the tag sent back, weak or strong, matches (weak comparison)", () => {
  expect(noneMatchHolds(tag, tag)).toBe(true);
  expect(noneMatchHolds(`W/${tag}`, tag)).toBe(true);
  expect(noneMatchHolds(tag, `W/${tag}`)).toBe(true);
  expect(noneMatchHolds(`  W/${tag}  `, tag)).toBe(true);
});

test("a list matches when one of its tags does, commas inside a tag included", () => {
  expect(noneMatchHolds(`"x", ${tag}`, tag)).toBe(true);
  expect(noneMatchHolds(`"a,b",W/${tag}`, tag)).toBe(true);
  expect(noneMatchHolds(`"x", "y"`, tag)).toBe(false);
  expect(noneMatchHolds(`"a,${tag.slice(1)}`, tag)).toBe(false);
});

test("* matches any current representation", () => {
  expect(noneMatchHolds("*", tag)).toBe(true);
  expect(noneMatchHolds(" * ", tag)).toBe(true);
});

test("absent, empty, unquoted or another tag: no match", () => {
  expect(noneMatchHolds(null, tag)).toBe(false);
  expect(noneMatchHolds("", tag)).toBe(false);
  expect(noneMatchHolds("abc-1-br", tag)).toBe(false);
  expect(noneMatchHolds('"abc-1"', tag)).toBe(false);
  expect(noneMatchHolds('w/"abc-1-br"', tag)).toBe(false);
});
