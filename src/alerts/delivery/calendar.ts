/**
 * An alert's calendar feed (.ics, through ical-generator): one event per current window. Each event's UID is
 * derived from the alert and the window's start, so a phone polling the feed updates an event whose end or
 * figures changed instead of adding a second one; a window gone from the forecast leaves the feed and the phone's
 * calendar. Times are written in UTC; calendars show them in the phone's zone.
 */
import { createHash } from "node:crypto";
import ical from "ical-generator";
import type { EventWindow } from "./event";
import { bestHourFigures, localTime } from "./wording";

/** How often calendar apps should fetch the feed again: the forecast changes a few times a day. */
const REFRESH_SECONDS = 3 * 3600;

/** Stable per alert and window start; the host keeps two servers' UIDs apart. */
export function windowUid(alertId: string, windowStart: string, publicUrl: string): string {
  const digest = createHash("sha256").update(`${alertId}\n${new Date(windowStart).toISOString()}`).digest("hex").slice(0, 32);
  return `${digest}@${new URL(publicUrl).hostname}`;
}

export function calendarFeed(
  alert: { id: string; name: string },
  spot: { id: string; name: string; timezone: string },
  windows: readonly EventWindow[],
  publicUrl: string,
  generatedAt: Date = new Date(),
): string {
  const calendar = ical({ name: `Surf: ${alert.name}`, prodId: { company: "Surfcast", product: "alerts" }, ttl: REFRESH_SECONDS });
  for (const window of windows) {
    const { best } = window;
    const headline = [best.waveHeight !== null ? `${best.waveHeight.toFixed(1)} m` : null, best.rating !== null ? `rating ${best.rating}` : null]
      .filter((part) => part !== null)
      .join(", ");
    calendar.createEvent({
      id: windowUid(alert.id, window.start, publicUrl),
      start: new Date(window.start),
      end: new Date(window.end),
      stamp: generatedAt,
      summary: headline === "" ? `Surf: ${spot.name}` : `Surf: ${spot.name} ${headline}`,
      description: `Best at ${localTime(best.time, spot.timezone, false)} (${spot.timezone}): ${bestHourFigures(best).join(", ")}.\nAlert "${alert.name}".`,
    });
  }
  return calendar.toString();
}
