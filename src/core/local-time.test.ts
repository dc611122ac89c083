import { describe, expect, test } from "bun:test";
import { clockTime, dateTime, dayTime, LocalClock, localDays, LocalFormat, zoneAbbreviation, zonedTime } from "./local-time";

describe("local time", () => {
  test.each([
    ["2026-11-27T18:00:00Z", "Australia/Sydney", "05:00", "Sat 28 05:00", "Sat 28 Nov 05:00"],
    ["2026-11-27T16:00:00Z", "Pacific/Honolulu", "06:00", "Fri 27 06:00", "Fri 27 Nov 06:00"],
    ["2026-03-29T01:30:00Z", "Europe/Lisbon", "02:30", "Sun 29 02:30", "Sun 29 Mar 02:30"],
    ["2026-11-27T07:05:00Z", "Not/AZone", "07:05", "Fri 27 07:05", "Fri 27 Nov 07:05"],
  ])("%s at %s: %s, %s, %s", (at, zone, clock, day, date) => {
    expect([clockTime(at, zone), dayTime(at, zone), dateTime(at, zone)]).toEqual([clock, day, date]);
  });

  test("an instant's parts, shifted within a span or formatted outside it, agree", () => {
    const span: [string, string] = ["2026-11-20T00:00:00Z", "2026-11-27T00:00:00Z"];
    const [fast, exact] = [new LocalClock("America/Los_Angeles", span), new LocalClock("America/Los_Angeles")];
    for (const at of ["2026-11-20T07:59:00Z", "2026-11-23T12:00:00Z", "2026-11-27T00:00:00Z"]) expect(fast.at(at)).toEqual(exact.at(at));
    expect(exact.at("2026-11-23T12:00:00Z")).toEqual({ date: "2026-11-23", time: "04:00", weekday: "Mon", day: 23, month: "Nov", hour: 4, minute: 0 });
  });

  test("the local days of an hourly grid across a daylight-saving change begin at local midnight", () => {
    const start = Date.parse("2026-03-28T22:00:00Z");
    const times = Array.from({ length: 30 }, (_, i) => start + i * 3_600_000);
    expect(localDays(times, "Europe/Lisbon")).toEqual([
      { midnight: Date.parse("2026-03-28T00:00:00Z"), label: "Sat 28" },
      { midnight: Date.parse("2026-03-29T00:00:00Z"), label: "Sun 29" },
      { midnight: Date.parse("2026-03-29T23:00:00Z"), label: "Mon 30" }, // summer time: local midnight is 23:00 UTC
    ]);
  });

  test.each([
    ["2026-11-27T16:00:00Z", "Pacific/Honolulu", "HST"],
    ["2026-07-14T16:00:00Z", "America/Los_Angeles", "PDT"],
    ["2026-11-27T16:00:00Z", "Europe/Lisbon", "WET"],
    ["2026-07-14T16:00:00Z", "Europe/Lisbon", "WEST"],
    ["2026-07-14T16:00:00Z", "Asia/Tokyo", "GMT+9"],
    ["2026-07-14T16:00:00Z", "Not/AZone", "UTC"],
  ])("%s at %s: the zone abbreviated as %s", (at, zone, name) => {
    expect(zoneAbbreviation(at, zone)).toBe(name);
    expect(zonedTime(at, zone)).toEndWith(` ${name}`);
  });

  test.each([
    ["en", "Tue 14, 17:05", "Tue 14", "1.3"],
    ["pt", "ter., 14, 17:05", "ter., 14", "1,3"],
    ["de", "Di., 14., 17:05", "Di., 14.", "1,3"],
    ["fr", "mar. 14 17:05", "mar. 14", "1,3"],
  ])("%s: dates, times and numbers through Intl in the spot's zone", (lang, dayTime, day, number) => {
    const f = new LocalFormat(lang, "Europe/Lisbon");
    expect([f.dayTime("2026-07-14T16:05:00Z"), f.day("2026-07-14T16:05:00Z"), f.time("2026-07-14T16:05:00Z"), f.number(1.25, 1)]).toEqual([dayTime, day, "17:05", number]);
  });

  test("local days are named in the language asked", () => {
    expect(localDays([Date.parse("2026-11-28T12:00:00Z")], "Europe/Lisbon", "pt")[0]!.label).toBe("sáb., 28");
  });
});
