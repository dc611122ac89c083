import { describe, expect, test } from "bun:test";
import { calendarFeed, windowUid } from "./calendar";
import type { EventWindow } from "./event";

const alert = { id: "alert_01", name: "Dawn" };
const spot = { id: "pipe", name: "Pipeline", timezone: "Pacific/Honolulu" };
const window = (start: string, end: string, waveHeight: number | null = 1.63, rating: number | null = 4): EventWindow => ({
  start,
  end,
  best: { time: start, waveHeight, wavePeriod: 12, windSpeed: 9, windDirectionType: "offshore", rating },
});
const AT = new Date("2026-11-26T18:00:00Z");

/** The feed's lines with folded lines joined (RFC 5545 folds at 75 octets). */
const lines = (ics: string) => ics.replace(/\r\n[ \t]/g, "").split("\r\n");
const events = (ics: string) => lines(ics).filter((l) => l === "BEGIN:VEVENT").length;

describe("calendarFeed", () => {
  const ics = calendarFeed(alert, spot, [window("2026-11-27T16:00:00Z", "2026-11-27T20:00:00Z"), window("2026-11-28T17:00:00Z", "2026-11-28T19:00:00Z")], "https://surf.example", AT);

  test("one VEVENT per window, times in UTC, a summary with the height and rating", () => {
    const l = lines(ics);
    expect(l[0]).toBe("BEGIN:VCALENDAR");
    expect(events(ics)).toBe(2);
    expect(l).toContain("DTSTART:20261127T160000Z");
    expect(l).toContain("DTEND:20261127T200000Z");
    expect(l).toContain("DTSTART:20261128T170000Z");
    expect(l).toContain("SUMMARY:Surf: Pipeline 1.6 m\\, rating 4");
    expect(l).toContain("DESCRIPTION:Best at 06:00 HST (Pacific/Honolulu): waves 1.6 m\\, period 12 s\\, wind 9 km/h offshore\\, rating 4 of 5.\\nAlert \"Dawn\".");
    expect(l).toContain("DTSTAMP:20261126T180000Z");
  });

  test("the UID is the same for the same alert and start whatever the end, different otherwise", () => {
    const uid = windowUid("alert_01", "2026-11-27T16:00:00Z", "https://surf.example");
    expect(uid).toMatch(/^[0-9a-f]{32}@surf\.example$/);
    expect(lines(ics)).toContain(`UID:${uid}`);
    const longer = calendarFeed(alert, spot, [window("2026-11-27T16:00:00Z", "2026-11-27T23:00:00Z", 2.1, 5)], "https://surf.example", AT);
    expect(lines(longer)).toContain(`UID:${uid}`);
    expect(windowUid("alert_01", "2026-11-27T16:00:00.000Z", "https://surf.example")).toBe(uid);
    expect(windowUid("alert_02", "2026-11-27T16:00:00Z", "https://surf.example")).not.toBe(uid);
    expect(windowUid("alert_01", "2026-11-27T17:00:00Z", "https://surf.example")).not.toBe(uid);
  });

  test("no windows: an empty calendar; missing figures left out of the summary", () => {
    expect(events(calendarFeed(alert, spot, [], "https://surf.example", AT))).toBe(0);
    const bare = calendarFeed(alert, spot, [window("2026-11-27T16:00:00Z", "2026-11-27T20:00:00Z", null, null)], "https://surf.example", AT);
    expect(lines(bare)).toContain("SUMMARY:Surf: Pipeline");
  });

  test("a name cannot add lines: control characters shown as escapes, TEXT escaped, long lines folded", () => {
    const forged = "Dawn\r\nEND:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:Free boards, click\u001b[2J; now";
    const feed = calendarFeed({ id: "alert_01", name: forged }, spot, [window("2026-11-27T16:00:00Z", "2026-11-27T20:00:00Z")], "https://surf.example", AT);
    const l = lines(feed);
    expect(events(feed)).toBe(1);
    expect(l.filter((line) => line === "END:VCALENDAR")).toHaveLength(1);
    expect(l.filter((line) => line.startsWith("SUMMARY:"))).toEqual(["SUMMARY:Surf: Pipeline 1.6 m\\, rating 4"]);
    expect(l).toContain("X-WR-CALNAME:Surf: Dawn\\\\r\\\\nEND:VCALENDAR\\\\r\\\\nBEGIN:VEVENT\\\\r\\\\nSUMMARY:Free boards\\, click\\\\u001b[2J\\; now");
    expect(l.find((line) => line.startsWith("NAME:"))).toBe(l.find((line) => line.startsWith("X-WR-CALNAME:"))!.replace("X-WR-CALNAME:", "NAME:"));
    expect(feed).not.toContain("\u001b");
    // Every physical line is at most 75 octets (RFC 5545 3.1), the long name's folded.
    for (const line of feed.split("\r\n")) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(feed.split("\r\n").filter((line) => line.startsWith(" ")).length).toBeGreaterThan(0);
  });
});
