/**
 * Rendering an embed's page, cached. A page is built at most once per minute (the "now" blocks move with the
 * minute) and only when something it shows changed: the spots' forecast documents, the tide rows, the hour. The
 * charts and tables, the bulk of the work, are kept apart per spot and stamp (forecast versions, tide rows, hour),
 * so the page of a new minute rebuilds only its "now" blocks. A repeated view is a map lookup and a comparison.
 */
import type { Clock } from "../core/clock";
import { HOUR_MS, MINUTE_MS } from "../core/clock";
import type { ForecastService } from "../forecast/service";
import type { TideService } from "../tides/service";
import { budgetShare } from "../core/caches";
import { Lru } from "../core/lru";
import { allOf, andThen, type MaybePromise } from "../core/maybe-promise";
import { credits, heading, shell, spotSection, spotWeek, titleOf, type Mode } from "./page";
import type { EmbedRecord } from "./store";
import { spotPicture, type PictureServices, type SpotPicture } from "./view";


export interface RenderedPage {
  html: string;
  etag: string;
  /** Moves when a new forecast or tide rows arrive, and every hour: screen mode reloads when it does. */
  stamp: string;
}

const hashOf = (text: string) => Bun.hash(text).toString(36);

/** What drawing a picture reads: the services /v1 answers from, the clock and the public address for its credits. */
export interface RenderServices extends PictureServices {
  clock: Clock;
  config: { publicUrl: string };
  forecasts: Pick<ForecastService, "get" | "generation" | "versionOf">;
  tides: Pick<TideService, "get" | "stamp">;
}

export class EmbedRenderer {
  /** Rendered pages and week charts in their shares of the cache budget (#22): a page is ~90 KB, a week chart ~60 KB (~17 and ~40 at the default 16 MB). */
  private readonly pages = new Lru<{ key: string; page: RenderedPage }>(budgetShare(0.1));
  private readonly weeks = new Lru<string>(budgetShare(0.15));

  constructor(
    private readonly app: RenderServices,
    private readonly assetVersion: string,
  ) {}

  /** Stamps per embed, all computed on `stampBasis`: dropped together when it moves. */
  private stamps = new Map<string, string>();
  private stampBasis = "";

  /**
   * The stamp of what an embed shows this hour: forecast versions, tide rows, the hour. Asked at every view and
   * by screen mode's poll (/embed/{id}/stamp, not counted), so it is kept: reading up to 12 forecast versions
   * (documents parsed again once dropped from their cache) happens once per embed until a forecast or tide row is
   * written or the hour turns (the forecasts' generation, the tides' stamp, the hour: three counters, no lookup).
   */
  stamp(embed: EmbedRecord): MaybePromise<string> {
    const hour = Math.floor(this.app.clock.now() / HOUR_MS);
    const basis = `${hour}|${this.app.tides.stamp()}|${this.app.forecasts.generation()}`;
    if (basis !== this.stampBasis) {
      this.stampBasis = basis;
      this.stamps = new Map();
    }
    const kept = this.stamps.get(embed.id);
    if (kept !== undefined) return kept;
    // Kept in the map of this basis: if the basis moves while versions are read, the stamp goes with the old map.
    const stamps = this.stamps;
    return andThen(allOf(embed.spots.map((id) => this.app.forecasts.versionOf(id))), (versions) => {
      const stamp = hashOf(`${hour}|${this.app.tides.stamp()}|${versions.join(",")}`);
      stamps.set(embed.id, stamp);
      return stamp;
    });
  }

  async page(embed: EmbedRecord, mode: Mode): Promise<RenderedPage> {
    const stamp = await this.stamp(embed);
    const minute = Math.floor(this.app.clock.now() / MINUTE_MS);
    const key = `${minute}|${stamp}`;
    const cacheKey = `${embed.id}|${mode}`;
    const kept = this.pages.get(cacheKey);
    if (kept && kept.key === key) return kept.page;
    const pictures = await Promise.all(embed.spots.map((id) => spotPicture(this.app, id, embed.units, embed.lang)));
    const sections = pictures.map((p, i) => spotSection(p, `s${i}`, this.week(p, `s${i}`, stamp)));
    const html = shell(
      {
        title: titleOf(pictures, embed.lang),
        theme: embed.theme,
        lang: embed.lang,
        mode,
        assetVersion: this.assetVersion,
        stamp: mode === "screen" ? { value: stamp, url: `/embed/${embed.id}/stamp` } : undefined,
      },
      `<main>${heading(pictures, embed.lang)}${sections.join("\n")}</main>\n${credits(pictures, this.app.config.publicUrl, embed.lang)}`,
    );
    const page = { html, etag: `"${hashOf(html)}"`, stamp };
    this.pages.set(cacheKey, { key, page }, html.length);
    return page;
  }

  private week(p: SpotPicture, id: string, stamp: string): string {
    const key = `${p.spot.id}|${p.units}|${p.lang}|${id}|${stamp}`;
    let week = this.weeks.get(key);
    if (week === undefined) {
      week = spotWeek(p, id);
      this.weeks.set(key, week, week.length);
    }
    return week;
  }
}
