/**
 * Sunrise, sunset and daylight at an instant, read off a forecast's daily rows. Pure. Under `timezone=GMT` a row's
 * sunrise or sunset may fall on the neighbouring UTC date (docs/forecast.md), so rows are matched by their instants,
 * not their dates.
 */
import { dateTime, nullable, t, type Static } from "../core/shapes";
import type { DailyWeather } from "./types";
import { DAY_MS, HOUR_MS } from "../core/clock";

const RAD = Math.PI / 180;

export const NowSunSchema = t.Object(
  {
    sunrise: nullable(dateTime("Sunrise of the daylight under way, else of the next one.")),
    sunset: nullable(dateTime("Sunset of the same daylight.")),
    daylight: t.Unsafe<boolean | null>({ type: ["boolean", "null"], description: "Whether `time` lies between them; null when the day has no sunrise or sunset (polar day or night)." }),
  },
  { description: "The sun at the spot, from the forecast's daily sunrise and sunset." },
);

export type SunNow = Static<typeof NowSunSchema>;

/**
 * The sun at `at`: the first row (in date order) whose sunset is still ahead; rows whose sunset has passed are
 * behind us. A row without sunrise or sunset at that place answers nulls. Null when no row is left (no forecast,
 * or its horizon has passed).
 */
export function sunAt(daily: readonly DailyWeather[], at: number): SunNow | null {
  for (const day of daily) {
    const sunset = day.sunset === null ? null : Date.parse(day.sunset);
    if (sunset !== null && sunset <= at) continue;
    if (day.sunrise === null || sunset === null) return { sunrise: day.sunrise, sunset: day.sunset, daylight: null };
    return { sunrise: day.sunrise, sunset: day.sunset, daylight: Date.parse(day.sunrise) <= at };
  }
  return null;
}

/** Sunrise and sunset (epoch ms, UTC) on a UTC date, from the solar declination; null in polar day or night. */
export function sunTimes(lat: number, lng: number, dayStart: number): { sunrise: number | null; sunset: number | null } {
  const dayOfYear = Math.floor((dayStart - Date.UTC(new Date(dayStart).getUTCFullYear(), 0, 1)) / DAY_MS) + 1;
  const declination = -23.44 * RAD * Math.cos((2 * Math.PI * (dayOfYear + 10)) / 365);
  const cosHour = (Math.sin(-0.833 * RAD) - Math.sin(lat * RAD) * Math.sin(declination)) / (Math.cos(lat * RAD) * Math.cos(declination));
  if (cosHour < -1 || cosHour > 1) return { sunrise: null, sunset: null };
  const halfDayHours = Math.acos(cosHour) / RAD / 15;
  const noon = dayStart + (12 - lng / 15) * HOUR_MS;
  const minute = (ms: number) => Math.round(ms / 60_000) * 60_000;
  return { sunrise: minute(noon - halfDayHours * HOUR_MS), sunset: minute(noon + halfDayHours * HOUR_MS) };
}
