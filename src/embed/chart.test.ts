/**
 * The embed chart's geometry (src/embed/geometry.ts, chart.ts) and data (view.ts chartData), pure: a known forecast
 * gives known SVG paths — heights map onto the axis, the tide curve passes through the extremes, night shading
 * matches sunrise and sunset, arrows point downwind — and local days fall on local midnights.
 */
import { describe, expect, test } from "bun:test";
import { bandPath, coord, linear, linePath, niceCeil, nights, tidePoints } from "./geometry";
import { chartGeometry, chartSvg, PANELS, type ChartData } from "./chart";
import { chartData } from "./view";
import { localDays } from "../core/local-time";
import type { ForecastHour, ForecastResponse } from "../forecast/types";

const T0 = Date.parse("2026-11-21T00:00:00Z");
const H = 3_600_000;

describe("scales and paths", () => {
  test("linear maps the domain onto the range (y grows downward)", () => {
    const y = linear(0, 5, 170, 54);
    expect(y(0)).toBe(170);
    expect(y(5)).toBe(54);
    expect(y(2.5)).toBe(112);
    expect(linear(3, 3, 10, 20)(99)).toBe(10);
  });
  const nice: [number, number, number][] = [
    [0, 1, 1],
    [0.7, 1, 1],
    [1.3, 1, 1.5],
    [4, 1, 4],
    [4.2, 1, 5],
    [2.2, 1, 2.5],
    [17, 10, 20],
    [26, 10, 30],
    [0.031, 0.01, 0.04],
    [5, 10, 10],
  ];
  for (const [max, floor, expected] of nice) test(`niceCeil(${max}, ${floor}) = ${expected}`, () => expect(niceCeil(max, floor)).toBe(expected));
  test("coordinates: one decimal, no -0", () => {
    expect(coord(12.345)).toBe("12.3");
    expect(coord(-0.01)).toBe("0");
    expect(coord(7)).toBe("7");
  });
  test("line and band paths", () => {
    expect(linePath([])).toBe("");
    expect(linePath([[0, 1], [2.25, 3]])).toBe("M0 1L2.3 3");
    expect(bandPath([[0, 1], [2, 3]], [[0, 5], [2, 6]])).toBe("M0 1L2 3L2 6L0 5Z");
  });
});

describe("tide points and nights", () => {
  test("extremes are put in at their minute and win over a coinciding hour", () => {
    const hourly = [0, 1, 2].map((i) => ({ time: T0 + i * H, value: i }));
    const extremes = [{ time: T0 + H, value: 9 }, { time: T0 + 90 * 60_000, value: 7 }];
    expect(tidePoints(hourly, extremes)).toEqual([{ time: T0, value: 0 }, { time: T0 + H, value: 9 }, { time: T0 + 90 * 60_000, value: 7 }, { time: T0 + 2 * H, value: 2 }]);
  });
  const day = (rise: number, set: number): [number, number] => [T0 + rise * H, T0 + set * H];
  const cases: [string, [number, number][], number, number, [number, number][]][] = [
    ["starts at night, ends at night", [day(7, 17), day(31, 41)], 0, 48, [[0, 7], [17, 31], [41, 48]]],
    ["starts in daylight", [day(-2, 5), day(22, 29)], 0, 24, [[5, 22]]],
    ["ends in daylight", [day(7, 17)], 0, 12, [[0, 7]]],
    ["days outside the span are ignored", [day(-30, -20), day(7, 17), day(60, 70)], 0, 24, [[0, 7], [17, 24]]],
  ];
  for (const [name, light, start, end, expected] of cases) {
    test(name, () => expect(nights(light, T0 + start * H, T0 + end * H)).toEqual(expected.map(([a, b]) => [T0 + a * H, T0 + b * H])));
  }
});

describe("chart geometry of a known forecast", () => {
  // Four hours; the plot runs from x=84 to x=944, so 215 per hour and each hour drawn at its middle.
  const data: ChartData = {
    start: T0,
    end: T0 + 4 * H,
    hours: [1, 2, 3, 4].map((high, i) => ({ time: T0 + i * H, low: 0, high, period: [8, 12, 16, 14][i]!, wind: [10, 20, 30, 40][i]!, windDirection: [0, 90, 200, 270][i]!, windType: (["offshore", "cross", "onshore", null] as const)[i]! })),
    tide: tidePoints(
      [1.5, 1.9, 1.2, 0.6].map((value, i) => ({ time: T0 + i * H, value })),
      [{ time: T0 + 1.5 * H, value: 2 }, { time: T0 + 3.5 * H, value: 0.5 }],
    ),
    extremes: [{ time: T0 + 1.5 * H, value: 2, type: "high" }, { time: T0 + 3.5 * H, value: 0.5, type: "low" }],
    light: [[T0 + 1 * H, T0 + 3 * H]],
    best: [{ level: "intermediate", start: T0 + H, end: T0 + 3 * H, rating: 4 }],
    days: [{ midnight: T0 + 2 * H, label: "Sun 22" }],
    heightUnit: "m",
    speedUnit: "km/h",
    withSurf: true,
    lang: "en",
  };
  const g = chartGeometry(data);

  test("heights map onto the surf axis (0..4 m over y 170..54)", () => {
    expect(g.surfTop).toBe(4);
    // 1 m → 141, 2 m → 112, 3 m → 83, 4 m → 54 (the top); the band's floor is 0 m → 170.
    expect(g.band).toBe("M191.5 141L406.5 112L621.5 83L836.5 54L836.5 170L621.5 170L406.5 170L191.5 170Z");
  });
  test("the period and wind lines on their own axes", () => {
    expect(g.periodTop).toBe(20);
    expect(g.period).toBe("M191.5 123.6L406.5 100.4L621.5 77.2L836.5 88.8");
    expect(g.windTop).toBe(40);
    expect(g.wind).toBe("M191.5 248.5L406.5 231L621.5 213.5L836.5 196");
  });
  test("the tide curve passes through the extremes: the high at the panel's top, the low at its bottom", () => {
    expect(g.tideRange).toEqual([0.5, 2]);
    expect(g.extremes).toEqual([
      { x: 406.5, y: PANELS.tide[0], type: "high", value: 2 },
      { x: 836.5, y: PANELS.tide[1], type: "low", value: 0.5 },
    ]);
    expect(g.tide).toContain(`L406.5 ${PANELS.tide[0]}L`);
    expect(g.tide).toContain(`L836.5 ${PANELS.tide[1]}`);
    expect(g.tide.startsWith("M84 ")).toBe(true);
  });
  test("night shading matches sunrise and sunset", () => {
    expect(g.nights).toEqual([
      { x: 84, width: 215 },
      { x: 729, width: 215 },
    ]);
  });
  test("arrows every 3 hours point downwind, coloured by wind type", () => {
    expect(g.arrows).toEqual([{ x: 406.5, y: 231, rotate: 270, type: "cross" }]);
  });
  test("midnight lines, and day names only for days shown 6 hours or more", () => {
    expect(g.midnights).toEqual([514]);
    expect(g.dayLabels).toEqual([]);
    const week = chartGeometry({ ...data, end: T0 + 48 * H, days: [{ midnight: T0 - 14 * H, label: "Fri 20" }, { midnight: T0 + 10 * H, label: "Sat 21" }, { midnight: T0 + 34 * H, label: "Sun 22" }] });
    // 860 px over 48 hours: Fri 20 shows 10 hours (centred at 5 h), Sat 21 all 24 (at 22 h), Sun 22 14 hours (at 41 h).
    expect(week.dayLabels.map((l) => [coord(l.x), l.label])).toEqual([
      ["173.6", "Fri 20"],
      ["478.2", "Sat 21"],
      ["818.6", "Sun 22"],
    ]);
  });
  test("best windows sit in their level's row", () => {
    expect(g.best).toEqual([{ x: 299, y: 16, width: 430, rating: 4, level: "intermediate" }]);
  });
  test("the SVG carries the paths, classes and a title", () => {
    const svg = chartSvg(data, "s0", "Somewhere: the next 7 days");
    expect(svg).toContain(`<path class="band" d="${g.band}"/>`);
    expect(svg).toContain(`<path class="tide" d="${g.tide}"/>`);
    expect(svg).toContain('class="night" x="84"');
    expect(svg).toContain('class="arrow cross" transform="translate(406.5 231) rotate(270)"');
    expect(svg).toContain('<rect class="best r4"');
    expect(svg).toContain("<title id=\"s0-t\">Somewhere: the next 7 days</title>");
    expect(svg).not.toContain("style=");
  });
});

describe("chart data from a forecast", () => {
  const hour = (i: number, extra: Partial<ForecastHour> = {}): ForecastHour => ({
    time: new Date(T0 + i * H).toISOString().slice(0, 19) + "Z",
    waveHeight: 2,
    swellHeight: 1.5,
    wavePeriod: 11,
    waveDirection: 300,
    windSpeed: 16.09344,
    windDirection: 90,
    windGust: 20,
    windDirectionType: "offshore",
    airTemperature: 15,
    waterTemperature: 16,
    weatherCode: 1,
    tide: { height: 1, state: "rising" },
    rating: { beginner: 2, intermediate: 3, advanced: 1 },
    ...extra,
  });
  const forecast = (hours: ForecastHour[]): ForecastResponse => ({
    spot: { id: "x", name: "X", country: "Y" },
    units: "metric",
    updatedAt: "2026-11-21T00:00:00Z",
    attribution: "",
    hours,
    daily: [{ date: "2026-11-21", sunrise: "2026-11-21T07:00:00Z", sunset: "2026-11-21T17:00:00Z", uvIndexMax: 1, best: { beginner: { start: "2026-11-21T08:00:00Z", end: "2026-11-21T10:00:00Z", rating: 2 }, intermediate: null, advanced: null } }],
  });
  test("the surf range when every hour has one, else the wave height from 0", () => {
    const surf = [hour(0, { surf: { min: 1, max: 1.5 } }), hour(1, { surf: { min: 1.2, max: 1.8 } })];
    const a = chartData(forecast(surf), surf, [], "metric", "UTC", "en")!;
    expect(a.withSurf).toBe(true);
    expect(a.hours.map((h) => [h.low, h.high])).toEqual([[1, 1.5], [1.2, 1.8]]);
    const plain = [hour(0), hour(1)];
    const b = chartData(forecast(plain), plain, [], "metric", "UTC", "en")!;
    expect(b.withSurf).toBe(false);
    expect(b.hours.map((h) => [h.low, h.high])).toEqual([[0, 2], [0, 2]]);
    expect(b.light).toEqual([[Date.parse("2026-11-21T07:00:00Z"), Date.parse("2026-11-21T17:00:00Z")]]);
    expect(b.best).toEqual([{ level: "beginner", start: Date.parse("2026-11-21T08:00:00Z"), end: Date.parse("2026-11-21T10:00:00Z"), rating: 2 }]);
    expect(b.end).toBe(T0 + 2 * H);
  });
  test("no hours: no chart", () => expect(chartData(forecast([]), [], [], "metric", "UTC", "en")).toBeNull());
});

describe("local days", () => {
  const hours = Array.from({ length: 48 }, (_, i) => T0 + i * H);
  test("Lisbon in winter (UTC+0)", () => expect(localDays(hours, "Europe/Lisbon")).toEqual([{ midnight: T0, label: "Sat 21" }, { midnight: T0 + 24 * H, label: "Sun 22" }]));
  test("Honolulu (UTC-10): the first day began before the grid", () =>
    expect(localDays(hours, "Pacific/Honolulu")).toEqual([{ midnight: T0 - 14 * H, label: "Fri 20" }, { midnight: T0 + 10 * H, label: "Sat 21" }, { midnight: T0 + 34 * H, label: "Sun 22" }]));
  test("a half-hour zone: Kolkata (UTC+5:30), midnight at :30 UTC", () => expect(localDays(hours, "Asia/Kolkata")[1]).toEqual({ midnight: T0 + 18.5 * H, label: "Sun 22" }));
});
