/** http/target.ts's queryOf: a plain query read by hand gives what URLSearchParams gives, for every name. */
import { expect, test } from "bun:test";
import { queryOf } from "./query";

const QUERIES = [
  "",
  "days=7",
  "lat=21.66&lng=-158.05&radius=50&limit=10",
  "a=1&a=2&b=3",
  "a=1&&b=2&",
  "&",
  "a",
  "a=",
  "=x",
  "a=1=2",
  "a&b&a",
  "q=pipe%20line&limit=10", // decoded: URLSearchParams
  "q=pipe+line",
  "q=%ZZ&x=%41",
  "units=metric&spots=a,b,c",
];

test("every name of every query: the same values as URLSearchParams", () => {
  for (const query of QUERIES) {
    const ours = queryOf(new Request(`http://localhost/v1/spots${query === "" ? "" : `?${query}`}`));
    const reference = new URLSearchParams(query);
    for (const name of ["", "a", "b", "x", "q", "days", "lat", "lng", "radius", "limit", "units", "spots", "missing"]) {
      expect([query, name, ours.getAll(name), ours.get(name), ours.has(name)]).toEqual([query, name, reference.getAll(name), reference.get(name), reference.has(name)]);
    }
  }
});
