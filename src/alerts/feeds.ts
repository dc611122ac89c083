/**
 * An alert's calendar feed as served (/alerts/calendar/{token}.ics, docs/alerts.md "Calendar feed"). The URL is
 * a credential that outlives nothing: its alert's key must still be active and its account enabled (the key
 * registry, as embeds check it), else the feed is as absent as an unknown token. Each fetch is counted in the key's
 * usage as `calendar`, outside its quota and burst, within the feed's own allowance (FEED_FETCHES_PER_HOUR a UTC
 * hour, then 429 until the hour turns).
 *
 * The feed's text is kept per alert: a fetch reads and parses the spot's forecast document only when the text was
 * built on another basis — before the forecasts last changed (a refresh here, or another process's or server's
 * refresh once noticed: the forecasts' generation, which moves before the alerts are evaluated again) or in an
 * earlier UTC hour (a window's hours are counted from the hour under way). An alert deleted answers 404 at once: its
 * token is looked up at every fetch. Each server keeps its own texts and allowances.
 */
import { budgetShare } from "../core/caches";
import { HOUR_MS, utcHourStart, type Clock } from "../core/clock";
import { Lru } from "../core/lru";
import type { Meter } from "../access/meter";
import type { KeyRegistry } from "../access/registry";
import type { ForecastService } from "../forecast/service";
import type { AlertService } from "./service";

/** Fetches a feed may have in a UTC hour: a calendar app polls every few minutes, a few times an hour at most. */
export const FEED_FETCHES_PER_HOUR = 300;

/** A feed's answer: its text, absent (unknown token, revoked key, disabled account), or its allowance spent. */
export type FeedAnswer = { kind: "feed"; text: string } | { kind: "absent" } | { kind: "spent"; retryAfterSeconds: number };

const ABSENT: FeedAnswer = { kind: "absent" };

/** Each feed's fetches this UTC hour, apart from its key's API quota; held in memory (a restart starts afresh). */
export class FeedAllowance {
  private hour = -Infinity;
  private fetched = new Map<string, number>();

  constructor(private readonly perHour: number) {}

  /** Takes one fetch of an alert's feed: null when allowed, else the seconds until the next UTC hour. */
  take(alertId: string, now: number): number | null {
    const hour = utcHourStart(now);
    if (hour !== this.hour) {
      this.hour = hour;
      this.fetched = new Map();
    }
    const used = this.fetched.get(alertId) ?? 0;
    if (used >= this.perHour) return Math.max(1, Math.ceil((hour + HOUR_MS - now) / 1000));
    this.fetched.set(alertId, used + 1);
    return null;
  }
}

/** What feeds cost, for the metrics: texts built (a forecast document read and parsed), kept texts answered, fetches refused. */
export interface FeedTally {
  built: number;
  kept: number;
  spent: number;
}

export interface FeedServices {
  alerts: Pick<AlertService, "calendar" | "nextWindows">;
  forecasts: Pick<ForecastService, "generation">;
  keys: Pick<KeyRegistry, "poll" | "principalById">;
  meter: Pick<Meter, "ready" | "record">;
  spots: { find(id: string): { name: string; timezone: string } | undefined };
  clock: Clock;
  config: { readonly publicUrl: string };
}

export class CalendarFeeds {
  /** Feed texts by alert, with the basis each was built on, in their share of the cache budget (a week's feed is a few KB). */
  private readonly texts = new Lru<{ basis: string; text: string }>(budgetShare(0.05));
  private readonly allowance = new FeedAllowance(FEED_FETCHES_PER_HOUR);
  readonly tally: FeedTally = { built: 0, kept: 0, spent: 0 };

  /** `services` answers the app's services when a feed is first fetched (the app builds its feeds with itself). */
  constructor(private readonly services: () => FeedServices) {}

  async fetch(token: string): Promise<FeedAnswer> {
    const app = this.services();
    const alert = await app.alerts.calendar(token);
    if (!alert) return ABSENT;
    await app.keys.poll();
    const principal = app.keys.principalById(alert.keyId);
    if (!principal) return ABSENT;
    const now = app.clock.now();
    const retryAfterSeconds = this.allowance.take(alert.id, now);
    if (retryAfterSeconds !== null) {
      this.tally.spent++;
      return { kind: "spent", retryAfterSeconds };
    }
    await app.meter.ready(principal);
    await app.meter.record(principal, "calendar");
    const basis = `${utcHourStart(now)}|${app.forecasts.generation()}`;
    const kept = this.texts.get(alert.id);
    if (kept?.basis === basis) {
      this.tally.kept++;
      return { kind: "feed", text: kept.text };
    }
    const windows = (await app.alerts.nextWindows(alert)) ?? [];
    const spot = app.spots.find(alert.spotId);
    // ical-generator loads with the first feed asked for: a server whose alerts nobody subscribes to never pays for it.
    const { calendarFeed } = await import("./delivery/calendar");
    const text = calendarFeed(alert, { id: alert.spotId, name: spot?.name ?? alert.spotId, timezone: spot?.timezone ?? "UTC" }, windows, app.config.publicUrl, new Date(now));
    this.tally.built++;
    // Built on the basis read before the document: a refresh meanwhile moves the basis, and the next fetch builds again.
    this.texts.set(alert.id, { basis, text }, 2 * text.length);
    return { kind: "feed", text };
  }
}
