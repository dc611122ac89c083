/**
 * The alert e-mail: written from the same event a webhook receives, in plain text and HTML (ghtml escapes every
 * value), with an unsubscribe link that works without signing in and the List-Unsubscribe headers mail clients
 * turn into a button. It is sent through the console's SMTP configuration, handed in as a MailSender.
 */
import { html } from "ghtml";
import type { AlertEvent, ConfirmationBody } from "./event";
import { bestHourFigures, windowSpan } from "./wording";
import { zonedTime } from "../../core/local-time";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

/** Sends one message; resolves to null when sent, else the reason it was not (never throws). */
export type MailSender = (message: MailMessage) => Promise<string | null>;

export function unsubscribeUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/alerts/unsubscribe/${encodeURIComponent(token)}`;
}

export function confirmUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/alerts/confirm/${encodeURIComponent(token)}`;
}

/**
 * The one message an address receives before its owner agrees to more: what asked for it, and the link that
 * confirms. It carries none of the owner's text but the alert's and spot's names.
 */
export function confirmationEmail(request: ConfirmationBody, to: string, options: { publicUrl: string; confirmToken: string; validDays: number }): MailMessage {
  const link = confirmUrl(options.publicUrl, options.confirmToken);
  const subject = `Confirm surf alerts for ${request.spot.name}`;
  const intro = `Someone asked ${options.publicUrl.replace(/\/+$/, "")} to send surf alerts ("${request.alert.name}", ${request.spot.name}) to this address.`;
  const text = [intro, "", `To receive them, open this link (it works for ${options.validDays} days):`, link, "", "If you did not ask for this, ignore this e-mail: nothing more is sent to you.", ""].join("\n");
  const body = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${subject}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #111">
<p>${intro}</p>
<p><a href="${link}">Confirm: send me these alerts</a> (the link works for ${options.validDays} days)</p>
<p style="font-size: 0.875em; color: #555">If you did not ask for this, ignore this e-mail: nothing more is sent to you.</p>
</body></html>
`;
  return { to, subject, text, html: body, headers: {} };
}

export function alertEmail(event: AlertEvent, to: string, options: { publicUrl: string; unsubscribeToken: string }): MailMessage {
  const unsubscribe = unsubscribeUrl(options.publicUrl, options.unsubscribeToken);
  const span = windowSpan(event.window.start, event.window.end, event.spot.timezone);
  const figures = bestHourFigures(event.window.best);
  // A test event without a coming window has no figures: then there is no best hour to tell.
  const best = figures.length > 0 ? `Best at ${zonedTime(event.window.best.time, event.spot.timezone)}: ${figures.join(", ")}` : null;
  const test = event.type === "alert.test";
  const subject = `${test ? "[Test] " : ""}Surf at ${event.spot.name}: ${span}${event.window.best.waveHeight !== null ? `, ${event.window.best.waveHeight.toFixed(1)} m` : ""}`;
  const intro = test
    ? `This is a test of your alert "${event.alert.name}". A real alert looks like this:`
    : `Your alert "${event.alert.name}" found a window:`;
  const text = [
    intro,
    "",
    `${event.spot.name}, ${span} (${event.spot.timezone})`,
    ...(best === null ? [] : [best]),
    "",
    `Stop these e-mails: ${unsubscribe}`,
    "",
  ].join("\n");
  const body = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${subject}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #111">
<p>${intro}</p>
<h1 style="font-size: 1.25em; margin: 0">${event.spot.name}</h1>
<p style="margin: 0">${span} <span style="color: #555">(${event.spot.timezone})</span></p>
!${best === null ? "" : html`<p>${best}</p>`}
<p style="font-size: 0.875em; color: #555"><a href="${unsubscribe}">Stop these e-mails</a> (no sign-in needed)</p>
</body></html>
`;
  return {
    to,
    subject,
    text,
    html: body,
    headers: {
      "List-Unsubscribe": `<${unsubscribe}>`,
      // RFC 8058: mail clients POST "List-Unsubscribe=One-Click" to the link to unsubscribe at once.
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
  };
}
