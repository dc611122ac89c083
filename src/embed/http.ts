/**
 * /embed over HTTP, on the open side of the gate (no API key is ever presented or shown: the embed's id stands
 * for its key). Per view of /embed/{id}: look the embed up (unknown, revoked, or its key revoked → the 404 page),
 * pass its own allowance of view-minutes (spent → the 429 page; the first view of a minute is recorded as `embed`
 * in its key's usage, outside the key's quota and burst), then the cached page or a 304. Every answer carries a
 * strict Content-Security-Policy whose frame-ancestors are the embed's origins.
 */
import { queryOf } from "../core/query";
import { mountParam, type MountHandler, type RoomMount, type ServeOf } from "../core/mounts";
import { noneMatchHolds } from "../core/etag";
import type { UsageMeter } from "../access/meter";
import type { ForecastDemand } from "../forecast/demand";
import type { EmbedService, ServableEmbed } from "./service";
import { log, tally } from "../core/log";
import { isOutage, OUTAGE_RETRY_AFTER_S } from "../core/errors";
import { nextUtcMidnight } from "../core/clock";
import { EMBED_CSS, EMBED_ICON, SCREEN_JS } from "./assets";
import { messagePage, type Mode } from "./page";
import { stringsOf } from "./lang";
import { EmbedRenderer, type RenderServices } from "./render";
import type { EmbedRecord } from "./store";

/** The policy of an embed's answers: nothing inline, nothing from elsewhere, framed only where its owner allows. */
export function contentSecurityPolicy(origins: readonly string[]): string {
  const ancestors = origins.length > 0 ? origins.join(" ") : "'self'";
  return `default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors ${ancestors}`;
}

const BASE_HEADERS = { "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer" };

/** The narrow services an embed's page uses: drawing, the embeds and their allowance, usage, first forecasts. */
export interface EmbedHandlerServices extends RenderServices {
  embeds: Pick<EmbedService, "servable" | "admitView">;
  meter: Pick<UsageMeter, "ready" | "record">;
  demand: Pick<ForecastDemand, "ready">;
}

export function createEmbedHandler(app: EmbedHandlerServices): MountHandler<"embed"> {
  const assetVersion = Bun.hash(EMBED_CSS + SCREEN_JS).toString(36);
  const renderer = new EmbedRenderer(app, assetVersion);
  const assets = new Map([
    ["/embed/assets/embed.css", { body: EMBED_CSS, type: "text/css; charset=utf-8" }],
    ["/embed/assets/screen.js", { body: SCREEN_JS, type: "text/javascript; charset=utf-8" }],
    ["/embed/assets/icon.svg", { body: EMBED_ICON, type: "image/svg+xml" }],
  ]);

  // To HEAD, Bun sends the headers and the length of the body given, and none of the body.
  function answer(body: string | null, status: number, headers: Record<string, string>): Response {
    return new Response(body, { status, headers: { ...BASE_HEADERS, ...headers } });
  }

  function message(status: number, heading: string, text: string, origins: readonly string[], extra: Record<string, string> = {}, refresh?: number, lang = "en"): Response {
    const html = messagePage({ title: heading, theme: "light", assetVersion, refresh, lang }, heading, text);
    return answer(html, status, { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": contentSecurityPolicy(origins), "Cache-Control": "no-store", ...extra });
  }

  // One page and one timing for "never existed" and "revoked": the answer tells nothing about which. It may be
  // framed anywhere (it holds nothing and offers nothing to click), so a shop's iframe of a switched-off embed
  // shows it instead of the browser's blocked-frame icon. In English: an unknown id has no language.
  const notFound = () => message(404, "Forecast not available", "This forecast picture does not exist or has been switched off by its owner.", ["*"]);

  function spent({ origins, lang }: EmbedRecord): Response {
    const retryAfter = Math.max(1, Math.ceil((nextUtcMidnight(app.clock.now()) - app.clock.now()) / 1000));
    // The page loads itself again half a minute after midnight: a shop TV or an open page comes back on its own.
    const s = stringsOf(lang);
    return message(429, s.spentHeading, s.spentText, origins, { "Retry-After": String(retryAfter) }, retryAfter + 30, lang);
  }

  async function view(req: Request, embed: EmbedRecord, mode: Mode): Promise<Response> {
    const page = await renderer.page(embed, mode);
    const headers = {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": contentSecurityPolicy(embed.origins),
      // Every view asks again (and is counted); an unchanged page costs a 304.
      "Cache-Control": "no-cache",
      ETag: page.etag,
    };
    if (noneMatchHolds(req.headers.get("if-none-match"), page.etag)) return answer(null, 304, headers);
    return answer(page.html, 200, headers);
  }

  async function shown(req: Request, embed: EmbedRecord, mode: Mode): Promise<Response> {
    try {
      return await view(req, embed, mode);
    } catch (err) {
      if (isOutage(err)) throw err;
      log.error("embed page failed", { embed: embed.id, error: String(err) });
      const s = stringsOf(embed.lang);
      return message(500, s.failedHeading, s.failedText, embed.origins, {}, undefined, embed.lang);
    }
  }

  // PostgreSQL or Redis away: the embed's own 503 page (it loads itself again), never a view served uncounted.
  const countOutages = tally("refused embed views with 503: PostgreSQL or Redis does not answer");
  function unavailable(err: unknown, origins: readonly string[]): Response {
    if (!isOutage(err)) throw err;
    countOutages();
    return message(503, "Forecast back in a moment", "This forecast picture cannot be shown right now. It comes back by itself in a few seconds.", origins, { "Retry-After": OUTAGE_RETRY_AFTER_S }, Number(OUTAGE_RETRY_AFTER_S) * 2);
  }

  /** A view of a servable embed within its own allowance. */
  async function served(req: Request, found: ServableEmbed): Promise<Response> {
    const { embed, principal } = found;
    const verdict = await app.embeds.admitView(found);
    // Spent: the same page and Retry-After (the next UTC midnight) whatever the key's state: nothing of its use shows.
    if (verdict === "spent") return spent(embed);
    if (verdict === "counted") {
      await app.meter.ready(principal);
      await app.meter.record(principal, "embed");
    }
    const mode: Mode = queryOf(req).get("mode") === "screen" ? "screen" : "page";
    await app.demand.ready(embed.spots);
    return shown(req, embed, mode);
  }

  // Screen mode polls the stamp once a minute: not counted (the stamp is kept per embed until a forecast or tide
  // row is written or the hour turns, so a poll is two map lookups), tells only whether to reload.
  const stamped = async ({ embed }: ServableEmbed) =>
    answer(JSON.stringify({ stamp: await renderer.stamp(embed) }), 200, { "Content-Type": "application/json", "Cache-Control": "no-store", "Content-Security-Policy": contentSecurityPolicy(embed.origins) });

  /** The embed the path's id names, if it may be shown, to `then`; else the not-found page. */
  const withEmbed = (path: string, mount: RoomMount<"embed">, then: (found: ServableEmbed) => Promise<Response>) =>
    app.embeds.servable(mountParam(mount, path, "id")!).then((found) => (found ? then(found) : notFound()));

  const handlers: Record<ServeOf<"embed">, MountHandler<"embed">> = {
    asset: (_req, path) => {
      const asset = assets.get(path)!;
      return answer(asset.body, 200, { "Content-Type": asset.type, "Cache-Control": "public, max-age=31536000, immutable" });
    },
    page: (req, path, mount) => withEmbed(path, mount, (found) => served(req, found).catch((err: unknown) => unavailable(err, found.embed.origins))).catch((err: unknown) => unavailable(err, ["*"])),
    stamp: (_req, path, mount) => withEmbed(path, mount, stamped),
    unknown: () => notFound(),
  };

  return (req, path, mount) => {
    if (req.method !== "GET" && req.method !== "HEAD") return answer(null, 405, { Allow: "GET, HEAD" });
    return handlers[mount.serve](req, path, mount);
  };
}
