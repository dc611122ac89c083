/**
 * The refresh scope. `all`: the start-up and scheduled refreshes cover the whole catalog (an operator who sells the
 * whole catalog; no request ever waits). `requested`: they cover the spots whose forecast was asked for in the last
 * RECENT_MS (by /v1, MCP, embeds), and a spot asked for without a current forecast is fetched at once, the request
 * waiting up to FIRST_FETCH_WAIT_MS for it — a new install spends no Open-Meteo call before someone asks.
 */
import type { Clock } from "../core/clock";
import { log } from "../core/log";
import { allOf, type MaybePromise } from "../core/maybe-promise";
import type { ForecastStore } from "./store";

export const REFRESH_SCOPES = ["all", "requested"] as const;
export type RefreshScope = (typeof REFRESH_SCOPES)[number];

/** A spot asked for within this long is "requested": a week covers a shop's and an app's regular spots. */
export const RECENT_MS = 7 * 86_400_000;
/** How long a request waits for the first forecast of a spot (a batch of two upstream calls takes 1–3 s). */
export const FIRST_FETCH_WAIT_MS = 15_000;
/** A spot whose first fetch failed is not fetched on demand again for this long (the upstream is down or refuses). */
export const FAILED_FETCH_PAUSE_MS = 5 * 60_000;
/** At most this many spots are fetched for one request (a best-spots search over a crowded coast). */
export const MAX_SPOTS_PER_REQUEST = 100;
/** The meta key of the scope the last server on a data directory ran with (`surfcast status` shows it). */
export const SCOPE_META = "serve.refresh_scope";
/** A spot's request time is written at most this often. */
const NOTE_EVERY_MS = 3_600_000;

/** Whether a spot has a forecast for the current hour. */
type ForecastState = "current" | "missing";

/** Fetches these spots' forecasts; resolves with the ids that could not be fetched. */
export type FetchSpots = (spotIds: readonly string[]) => Promise<readonly string[]>;

export class ForecastDemand {
  private readonly noted = new Map<string, number>();
  private readonly unwritten = new Map<string, number>();
  private readonly queued = new Set<string>();
  private readonly failedAt = new Map<string, number>();
  private fetching: Promise<void> | null = null;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private fetchSpots: FetchSpots | null = null;

  constructor(
    private readonly store: Pick<ForecastStore, "writeDemand" | "demandedSince">,
    private readonly clock: Clock,
    readonly scope: RefreshScope,
    /** The catalog's id of a spot named by any id form the API accepts (slug or 16-hex); undefined for no spot. */
    private readonly canonicalId: (id: string) => string | undefined,
    private readonly forecastOf: (spotId: string) => MaybePromise<ForecastState>,
  ) {}

  /** How first forecasts are fetched: the server wires its refresh in; until then nothing is fetched on demand. */
  fetchWith(fetchSpots: FetchSpots): void {
    this.fetchSpots = fetchSpots;
  }

  /**
   * Notes that these spots' forecasts were asked for and, in the `requested` scope, fetches those without a current
   * forecast, waiting up to FIRST_FETCH_WAIT_MS. Resolves either way: the caller answers with what there is then.
   * Ids are taken in any form the API accepts and noted and fetched as the catalog's ids (what the demand table and
   * the refresh know); unknown ids are the caller's to refuse, passed over here. Undefined when there is nothing to
   * wait for, so a caller with every forecast at hand answers without a turn of the event loop. Ids that cost work to find (a
   * best-spots search's candidates) come as a function, called only when first forecasts can be fetched.
   */
  ready(spotIds: readonly string[] | (() => readonly string[])): Promise<void> | undefined {
    if (this.scope === "all" || this.fetchSpots === null) return undefined;
    const asked = [...new Set((typeof spotIds === "function" ? spotIds() : spotIds).map(this.canonicalId))]
      .filter((id) => id !== undefined)
      .slice(0, MAX_SPOTS_PER_REQUEST);
    const states = allOf(asked.map((id) => this.forecastOf(id)));
    return states instanceof Promise ? states.then((known) => this.fetchMissing(asked, known)) : this.fetchMissing(asked, states);
  }

  /** Notes the spots asked for and fetches those without a current forecast (see ready()). */
  private fetchMissing(asked: readonly string[], states: readonly ForecastState[]): Promise<void> | undefined {
    const now = this.clock.now();
    const missing: string[] = [];
    for (const [i, id] of asked.entries()) {
      this.note(id, now);
      if (states[i] === "current") continue;
      if ((this.failedAt.get(id) ?? -Infinity) > now - FAILED_FETCH_PAUSE_MS) continue;
      missing.push(id);
    }
    if (missing.length === 0) return undefined;
    for (const id of missing) this.queued.add(id);
    let timer: ReturnType<typeof setTimeout> | undefined;
    return Promise.race([this.fetchQueued(), new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_FETCH_WAIT_MS)))]).finally(() => clearTimeout(timer));
  }

  /** The spots asked for since `since` (epoch ms), with what is not written yet. */
  async requestedSince(since: number): Promise<Set<string>> {
    await this.flush();
    return this.store.demandedSince(since);
  }

  /** Writes the request times noted since the last flush; never rejects (a failed write is noted again later). */
  async flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.unwritten.size === 0) return;
    const rows = [...this.unwritten].map(([spotId, requestedAt]) => ({ spotId, requestedAt }));
    this.unwritten.clear();
    try {
      await this.store.writeDemand(rows);
    } catch (err) {
      // A spot removed by an import in the meantime, or a busy database: the next request notes it again.
      for (const row of rows) this.noted.delete(row.spotId);
      log.warn("could not record which spots were asked for", { error: String(err) });
    }
  }

  private note(spotId: string, now: number): void {
    if ((this.noted.get(spotId) ?? -Infinity) > now - NOTE_EVERY_MS) return;
    this.noted.set(spotId, now);
    this.unwritten.set(spotId, now);
    this.flushTimer ??= setTimeout(() => void this.flush(), 1000);
    this.flushTimer.unref?.();
  }

  /** One on-demand fetch at a time; spots asked for while one runs go in the next. */
  private fetchQueued(): Promise<void> {
    this.fetching ??= (async () => {
      try {
        while (this.queued.size > 0) {
          const ids = [...this.queued].slice(0, MAX_SPOTS_PER_REQUEST);
          for (const id of ids) this.queued.delete(id);
          log.info("fetching forecasts asked for for the first time", { spots: ids.length });
          let failed: readonly string[];
          try {
            failed = await this.fetchSpots!(ids);
          } catch (err) {
            log.warn("on-demand forecast fetch failed", { error: String(err) });
            failed = ids;
          }
          const at = this.clock.now();
          for (const id of failed) this.failedAt.set(id, at);
        }
      } finally {
        this.fetching = null;
      }
    })();
    return this.fetching;
  }
}
