/**
 * The alerts' public addresses, on the open side of the gate (no key: each URL's token is its credential, stored
 * only as a hash): an alert's calendar feed (`/alerts/calendar/{token}.ics`, for phones' calendars: feeds.ts), an e-mail's
 * unsubscribe link (`/alerts/unsubscribe/{token}`) and an e-mail address's confirmation link
 * (`/alerts/confirm/{token}`). The unsubscribe link's GET only asks: mail scanners open links, so the alert is
 * switched off by the page's POST (or a mail client's one-click POST, RFC 8058). The confirmation link confirms on
 * GET, as such links do: a scanner opening it confirms only an address whose mailbox received it.
 */
import { html } from "ghtml";
import { mountParam, type MountHandler, type ServeOf } from "../core/mounts";
import type { AlertService } from "./service";
import type { CalendarFeeds } from "./feeds";

/** The form of every link token this room hands out; anything else names no alert. */
const LINK_TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

const HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

function page(status: number, title: string, body: string): Response {
  const text = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1f23}button{font:inherit;padding:.5rem 1rem;border-radius:.4rem;border:1px solid #0b5cad;background:#0b5cad;color:#fff;cursor:pointer}</style>
</head><body><main><h1>${title}</h1>!${body}</main></body></html>`;
  return new Response(text, { status, headers: { ...HEADERS, "Content-Type": "text/html; charset=utf-8" } });
}

const gone = () => page(404, "Link not valid", html`<p>This link does not belong to an alert (it may have been deleted).</p>`);

const plain = (status: number, text: string, extra: Record<string, string> = {}) =>
  new Response(text, { status, headers: { ...HEADERS, "Content-Type": "text/plain; charset=utf-8", ...extra } });

export function createAlertsHandler(app: { alerts: Pick<AlertService, "unsubscribe" | "unsubscribeTarget" | "confirm">; calendars: Pick<CalendarFeeds, "fetch"> }): MountHandler<"alerts"> {
  const notFound = () => plain(404, "not found\n");
  const handlers: Record<ServeOf<"alerts">, (req: Request, token: string) => Promise<Response>> = {
    // HEAD is a fetch like GET: it looks the feed up, is counted and spends the allowance alike.
    calendar: async (_req, token) => {
      const feed = await app.calendars.fetch(token);
      if (feed.kind === "absent") return notFound();
      if (feed.kind === "spent") return plain(429, "this calendar feed was fetched too often this hour; try again later\n", { "Retry-After": String(feed.retryAfterSeconds) });
      return new Response(feed.text, { headers: { ...HEADERS, "Cache-Control": "private, max-age=300", "Content-Type": "text/calendar; charset=utf-8" } });
    },
    confirm: async (_req, token) => {
      const confirmation = await app.alerts.confirm(token);
      if (!confirmation) return gone();
      const { alert, outcome } = confirmation;
      if (outcome === "expired") return page(410, "Link expired", html`<p>This confirmation link has expired. The alert <strong>${alert.name}</strong> sends nothing to this address; its owner can send a new link from the console.</p>`);
      return page(200, "Address confirmed", html`<p>The alert <strong>${alert.name}</strong> for ${alert.spot.name} now sends its surf windows to this address. Each e-mail has a link to stop them.</p>`);
    },
    unsubscribe: async (req, token) => {
      if (req.method === "POST") {
        const alert = await app.alerts.unsubscribe(token);
        if (!alert) return gone();
        return page(200, "Unsubscribed", html`<p>The alert <strong>${alert.name}</strong> for ${alert.spot.name} is switched off: it sends nothing more.</p>`);
      }
      const alert = await app.alerts.unsubscribeTarget(token);
      if (!alert) return gone();
      return page(200, "Stop these e-mails?", html`<p>The alert <strong>${alert.name}</strong> for ${alert.spot.name} sends e-mails to this address.</p><form method="post"><button type="submit">Stop this alert's e-mails</button></form>`);
    },
    unknown: async () => notFound(),
  };
  return async (req, path, mount) => {
    const token = mountParam(mount, path, "token") ?? "";
    return mount.serve === "unknown" || LINK_TOKEN.test(token) ? handlers[mount.serve](req, token) : notFound();
  };
}
