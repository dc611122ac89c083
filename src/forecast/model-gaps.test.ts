/** Where wave models read no sea: a refresh's findings replace a spot's entry, clear it, or leave it. */
import { expect, test } from "bun:test";
import { mergeModelGaps, parseModelGaps } from "./model-gaps";

const AT = "2026-11-26T13:00:00.000Z";
const gap = (sealess: boolean) => ({ leftOut: { ncep_gfswave025: "zero series" as const }, sealess });

test("replaced by the latest refresh, cleared when every model counted, kept when the refresh failed or did not cover it", () => {
  const stored = { a: { ...gap(false), at: "old" }, b: { ...gap(true), at: "old" }, c: { ...gap(false), at: "old" }, d: { ...gap(false), at: "old" } };
  const summary = { modelGaps: new Map([["a", gap(true)]]), failedSpotIds: ["c", "a"] };
  const merged = mergeModelGaps(stored, [{ id: "a" }, { id: "b" }, { id: "c" }], summary, AT);
  expect(merged).toEqual({ a: { ...gap(true), at: AT }, c: { ...gap(false), at: "old" }, d: { ...gap(false), at: "old" } });
});

test("a damaged or missing note reads as empty", () => {
  expect(parseModelGaps(null)).toEqual({});
  expect(parseModelGaps("{not json")).toEqual({});
  expect(parseModelGaps("[1]")).toEqual({});
});
