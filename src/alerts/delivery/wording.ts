/** How the e-mail and the calendar word a window, the same way in both. */
import type { BestHour } from "./event";
import { dateTime, LocalClock, zoneAbbreviation } from "../../core/local-time";

/** "waves 1.6 m", "period 12 s", "wind 9 km/h offshore", "rating 4 of 5": the figures the hour has. */
export function bestHourFigures(best: BestHour): string[] {
  return [
    best.waveHeight !== null ? `waves ${best.waveHeight.toFixed(1)} m` : null,
    best.wavePeriod !== null ? `period ${Math.round(best.wavePeriod)} s` : null,
    best.windSpeed !== null ? `wind ${Math.round(best.windSpeed)} km/h${best.windDirectionType ? ` ${best.windDirectionType}` : ""}` : null,
    best.rating !== null ? `rating ${best.rating} of 5` : null,
  ].filter((f): f is string => f !== null);
}

/**
 * "Thu 27 Nov 06:00–10:00 WET" in the spot's time zone, its abbreviation named, or both days when the window
 * crosses midnight at the spot.
 */
export function windowSpan(start: string, end: string, timeZone: string): string {
  const clock = new LocalClock(timeZone);
  const [from, to] = [clock.at(start), clock.at(end)];
  return `${dateTime(start, timeZone)}–${from.date === to.date ? to.time : dateTime(end, timeZone)} ${zoneAbbreviation(start, timeZone)}`;
}
