/** How the e-mail and the calendar word a window, the same way in both. */
import type { BestHour } from "./event";

/** "waves 1.6 m", "period 12 s", "wind 9 km/h offshore", "rating 4 of 5": the figures the hour has. */
export function bestHourFigures(best: BestHour): string[] {
  return [
    best.waveHeight !== null ? `waves ${best.waveHeight.toFixed(1)} m` : null,
    best.wavePeriod !== null ? `period ${Math.round(best.wavePeriod)} s` : null,
    best.windSpeed !== null ? `wind ${Math.round(best.windSpeed)} km/h${best.windDirectionType ? ` ${best.windDirectionType}` : ""}` : null,
    best.rating !== null ? `rating ${best.rating} of 5` : null,
  ].filter((f): f is string => f !== null);
}

/** "Thu 27 Nov 06:00" (or "06:00") in the spot's own time zone: a surfer plans in the beach's time, not the server's. */
export function localTime(iso: string, timeZone: string, withDay: boolean): string {
  const format = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    ...(withDay ? { weekday: "short", day: "numeric", month: "short" } : {}),
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  return format.format(new Date(iso)).replace(",", "");
}

function sameLocalDay(a: string, b: string, timeZone: string): boolean {
  const day = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
  return day.format(new Date(a)) === day.format(new Date(b));
}

/** "Thu 27 Nov 06:00–10:00", or both days when the window crosses midnight at the spot. */
export function windowSpan(start: string, end: string, timeZone: string): string {
  return `${localTime(start, timeZone, true)}–${localTime(end, timeZone, !sameLocalDay(start, end, timeZone))}`;
}
