/**
 * The event a webhook receives (and an e-mail is written from): pure data, built once per window and stored as its
 * JSON text, so every retry sends the same bytes and the signature covers exactly what the receiver reads.
 */
import type { WindDirectionType } from "../../forecast/types";

export type AlertEventType = "alert.window" | "alert.test";

/** The window's best hour with the figures a receiver shows (metres, seconds, km/h; rating 1-5 for the alert's level). */
export interface BestHour {
  time: string;
  waveHeight: number | null;
  wavePeriod: number | null;
  windSpeed: number | null;
  windDirectionType: WindDirectionType | null;
  rating: number | null;
}

export interface EventWindow {
  start: string;
  end: string;
  best: BestHour;
}

export interface AlertEvent {
  type: AlertEventType;
  /** When the event was made (not when an attempt was sent: that is the `webhook-timestamp` header). */
  timestamp: string;
  alert: { id: string; name: string };
  spot: { id: string; name: string; timezone: string };
  window: EventWindow;
  forecastUrl: string;
}

export interface EventInput {
  type: AlertEventType;
  at: Date;
  alert: { id: string; name: string };
  spot: { id: string; name: string; timezone: string };
  window: EventWindow;
  publicUrl: string;
}

/** Copies only the documented fields, in a fixed order: extra properties of the caller's objects never leak into a body. */
export function buildAlertEvent(input: EventInput): AlertEvent {
  const { best } = input.window;
  return {
    type: input.type,
    timestamp: input.at.toISOString(),
    alert: { id: input.alert.id, name: input.alert.name },
    spot: { id: input.spot.id, name: input.spot.name, timezone: input.spot.timezone },
    window: {
      start: input.window.start,
      end: input.window.end,
      best: {
        time: best.time,
        waveHeight: best.waveHeight,
        wavePeriod: best.wavePeriod,
        windSpeed: best.windSpeed,
        windDirectionType: best.windDirectionType,
        rating: best.rating,
      },
    },
    forecastUrl: forecastUrl(input.publicUrl, input.spot.id),
  };
}

function forecastUrl(publicUrl: string, spotId: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/v1/spots/${encodeURIComponent(spotId)}/forecast`;
}

/** The body to store with the delivery and send on every attempt. */
export function eventBody(event: AlertEvent): string {
  return JSON.stringify(event);
}

/** Reads a stored body back (the e-mail is written from it); throws on a body this module did not write. */
export function parseEventBody(body: string): AlertEvent {
  const event = JSON.parse(body) as AlertEvent;
  if ((event.type !== "alert.window" && event.type !== "alert.test") || typeof event.window?.start !== "string") {
    throw new Error("not an alert event body");
  }
  return event;
}

/** What a confirmation e-mail names, stored as its delivery's body: the alert and its spot. */
export interface ConfirmationBody {
  type: "alert.confirmation";
  alert: { id: string; name: string };
  spot: { id: string; name: string };
}

export function confirmationBody(alert: { id: string; name: string }, spot: { id: string; name: string }): string {
  const body: ConfirmationBody = { type: "alert.confirmation", alert: { id: alert.id, name: alert.name }, spot: { id: spot.id, name: spot.name } };
  return JSON.stringify(body);
}

/** Reads a stored confirmation body back; throws on a body this module did not write. */
export function parseConfirmationBody(body: string): ConfirmationBody {
  const parsed = JSON.parse(body) as ConfirmationBody;
  if (parsed.type !== "alert.confirmation" || typeof parsed.alert?.name !== "string" || typeof parsed.spot?.name !== "string") throw new Error("not a confirmation body");
  return parsed;
}
