/**
 * An alert's calendar feed (.ics, through ical-generator): one event per current window. Each event's UID is
 * derived from the alert and the window's start, so a phone polling the feed updates an event whose end or
 * figures changed instead of adding a second one; a window gone from the forecast leaves the feed and the phone's
 * calendar. Times are written in UTC; calendars show them in the phone's zone.
 *
 * The alert's name is its owner's text in a feed served from the operator's domain: its control characters (a name
 * stored before names were one line) are written as visible escapes, and the calendar's name, which ical-generator
 * writes as given, is escaped as RFC 5545 TEXT, so no name can end a line and add properties or events. Long lines
 * are folded at 75 octets (ical-generator).
 */
import { createHash } from "node:crypto";
import ical from "ical-generator";
import { escapeControls } from "../../core/log";
import type { EventWindow } from "./event";
import { bestHourFigures } from "./wording";
import { zonedTime } from "../../core/local-time";

/** How often calendar apps should fetch the feed again: the forecast changes a few times a day. */
const REFRESH_SECONDS = 3 * 3600;

/** A TEXT value without control characters as RFC 5545 writes it (3.3.11): backslash, semicolon and comma escaped. */
const icsText = (text: string) => text.replace(/[\\;,]/g, "\\$&");

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
  const name = escapeControls(alert.name);
  const calendar = ical({ name: icsText(`Surf: ${name}`), prodId: { company: "Surfcast", product: "alerts" }, ttl: REFRESH_SECONDS });
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
      description: `Best at ${zonedTime(best.time, spot.timezone)} (${spot.timezone}): ${bestHourFigures(best).join(", ")}.\nAlert "${name}".`,
    });
  }
  return calendar.toString();
}
