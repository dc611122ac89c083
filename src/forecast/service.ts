/**
 * Serving stored forecast documents. Requests never recompute a forecast: each document is parsed once into
 * pre-serialized hours, and the body for (spot, UTC hour, days) is joined once and kept in a bounded LRU, so
 * the hot path is a map lookup returning a prebuilt string and Blob. See docs/forecast.md ("Serving").
 */
import { budgetShare, registerCache } from "../core/caches";
import { HOUR_MS, utcHourStart, type Clock } from "../core/clock";
import { ApiError } from "../core/errors";
import type { SpotService } from "../spots/service";
import type { StoredForecast } from "./document";
import type { DailyWeather, ForecastGrid, ForecastHour, ModelUse } from "./types";
import { isoUtc } from "../core/clock";
import { dayBest } from "./best";
import { outlookOf, type Outlook } from "./best-spots";
import type { ForecastStore } from "./store";
import type { StoredRow } from "./store";
import { andThen, type MaybePromise } from "../core/maybe-promise";
import { ATTRIBUTION } from "./types";
import { DEMO_ATTRIBUTION } from "./demo";
import { Lru } from "../core/lru";
import { arrayElements, memberValue, objectMembers } from "./json-spans";
import type { TideReference } from "../tides/types";
import type { Units } from "../core/units";
import { hourJsonIn } from "./units";

export interface ServedForecast {
  /** The spot's canonical id (the request may have named it by hex id). */
  spotId: string;
  /** The ForecastResponse JSON, serialized. */
  body: string;
  /**
   * The same JSON as a Blob, made at the first answer sent unencoded and kept with the body: a Response made from it
   * copies nothing (one made from the text copies the whole body). A compressed answer never needs it.
   */
  readonly blob: Blob;
  etag: string;
  /** Seconds until the next UTC hour, when the served window moves. */
  maxAgeSeconds: number;
}


/** What GET /v1/spots/{id}/now shows of a spot's document at one instant. */
export interface CurrentForecast {
  updatedAt: string;
  /** Changes whenever the document is replaced. */
  version: string;
  /** The stored hour holding the instant, with every field it was stored with; null past the document's horizon. */
  hour: ForecastHour | null;
  daily: readonly DailyWeather[];
  /** Synthetic demo data (serve --demo): whoever shows it must say so. */
  demo?: boolean;
}

/** A served window's body, kept for the hour; its Blob once an answer needed it. */
type KeptBody = Pick<ServedForecast, "body" | "etag"> & { blob?: Blob };

/** A stored document split into JSON fragments that are joined per window. */
interface PreparedDocument {
  /** The spot's JSON, then the members after `units` without their braces. */
  spot: string;
  head: string;
  updatedAt: string;
  daily: DailyWeather[];
  hourTimes: number[];
  hourJson: string[];
  dates: string[];
  dailyJson: string[];
  version: string;
  demo: boolean;
}

/** A kept body as one request is served it: a class, so that serving a kept body makes no closure or getter of its own. */
class Served implements ServedForecast {
  readonly body: string;
  readonly etag: string;

  constructor(
    readonly spotId: string,
    private readonly kept: KeptBody,
    readonly maxAgeSeconds: number,
  ) {
    this.body = kept.body;
    this.etag = kept.etag;
  }

  get blob(): Blob {
    return (this.kept.blob ??= new Blob([this.kept.body]));
  }
}

export class ForecastService {
  /**
   * Prebuilt bodies and prepared documents, in their shares of the cache budget (SURFCAST_CACHE_MB, core/caches.ts;
   * at the default 16 MB ~60 seven-day bodies and ~30 documents): what a busy server asks again within the hour, in
   * the memory a small box has (#22). A miss costs ~1–2 ms (a document) or ~50 µs (a body); under traffic spread over
   * the whole catalog nearly every request misses anyway, and bigger caches only cost memory (bench/README.md).
   */
  private readonly bodies = new Lru<KeptBody>(budgetShare(0.25));
  private readonly documents = new Lru<PreparedDocument>(budgetShare(0.35));
  /** How many times the kept bodies and documents were dropped (see generation()). */
  private invalidations = 0;
  private readonly outlooks = registerCache(new Map<string, Outlook | null>());

  /** `changed` tells whether another process committed since it was last asked (db/changes.ts). */
  constructor(
    private readonly store: Pick<ForecastStore, "readDocument">,
    private readonly clock: Clock,
    private readonly spots: Pick<SpotService, "get">,
    private readonly changed: () => boolean,
  ) {}

  /**
   * Throws `not_found` for an unknown spot and `no_forecast` when it has no document yet. A kept body or document
   * answers at once; otherwise the answer waits for the store.
   */
  get(spotId: string, days: number, units: Units = "metric"): MaybePromise<ServedForecast> {
    const spot = this.spots.get(spotId);
    this.noticeExternalWrites();
    const now = this.clock.now();
    const hour = utcHourStart(now);
    const maxAgeSeconds = Math.max(1, Math.ceil((hour + HOUR_MS - now) / 1000));
    const key = `${spot.id}\u0000${hour}\u0000${days}\u0000${units}`;
    const kept = this.bodies.get(key);
    if (kept) return new Served(spot.id, kept, maxAgeSeconds);
    const generation = this.invalidations;
    return andThen(this.prepared(spot), (doc) => {
      const served = this.build(doc, spot, hour, days, units);
      // The text and, once sent unencoded, the Blob's UTF-8 bytes: about the text's length each.
      if (generation === this.invalidations) this.bodies.set(key, served, 2 * served.body.length);
      return new Served(spot.id, served, maxAgeSeconds);
    });
  }

  /** The document's version, or null when the spot has none; cheap (cached), for callers that keep what they built from it. */
  versionOf(spotId: string): MaybePromise<string | null> {
    this.noticeExternalWrites();
    return andThen(this.preparedOrNull(spotId), (doc) => doc?.version ?? null);
  }

  /** The hour holding `at` and the daily rows of a spot's document, or null when it has none. */
  current(spotId: string, at: number): MaybePromise<CurrentForecast | null> {
    this.noticeExternalWrites();
    return andThen(this.preparedOrNull(spotId), (doc) => {
      if (!doc) return null;
      const i = doc.hourTimes.indexOf(utcHourStart(at));
      return { updatedAt: doc.updatedAt, version: doc.version, hour: i === -1 ? null : (JSON.parse(doc.hourJson[i]!) as ForecastHour), daily: doc.daily, ...(doc.demo ? { demo: true } : {}) };
    });
  }

  /**
   * A spot's document in the compact form ranking needs (forecast/best-spots.ts); null when it has none. Kept for
   * every spot asked (~1.5 KB each, ~9 MB for the whole catalog) until the next refresh: the first ranking over an
   * area parses its documents once (~0.3 ms each), later ones read typed arrays.
   */
  /** A spot's stored document, parsed whole (for work over all its hours, not for serving); null when it has none. */
  async storedDocument(spotId: string): Promise<StoredForecast | null> {
    const row = await this.store.readDocument(spotId);
    return row ? (JSON.parse(row.body) as StoredForecast) : null;
  }

  outlook(spot: { id: string }): MaybePromise<Outlook | null> {
    this.noticeExternalWrites();
    const kept = this.outlooks.get(spot.id);
    if (kept !== undefined) return kept;
    const generation = this.invalidations;
    return this.storedDocument(spot.id).then((document) => {
      const outlook = document ? outlookOf(document) : null;
      // A refresh that landed while the store was read has dropped what was kept: this older reading is not kept.
      if (generation === this.invalidations) this.outlooks.set(spot.id, outlook);
      return outlook;
    });
  }

  /**
   * Moves whenever a document may have changed (a refresh here, or a commit by another process once noticed): what
   * is kept from documents stays valid while it does not. One counter, no document lookup.
   */
  generation(): number {
    this.noticeExternalWrites();
    return this.invalidations;
  }

  /** Drops every cached body and document (called after a refresh wrote documents). */
  invalidate(): void {
    this.invalidations++;
    this.bodies.clear();
    this.documents.clear();
    this.outlooks.clear();
  }

  /** Documents written by another process (`surfcast refresh`) are served within about a second (db/changes.ts). */
  private noticeExternalWrites(): void {
    if (this.changed()) this.invalidate();
  }

  private build(doc: PreparedDocument, spot: { id: string }, hour: number, days: number, units: Units): KeptBody {
    const end = hour + days * 24 * HOUR_MS;
    let first = doc.hourTimes.findIndex((t) => t >= hour);
    if (first === -1) first = doc.hourTimes.length;
    let last = first;
    while (last < doc.hourTimes.length && doc.hourTimes[last]! < end) last++;
    if (first === last) throw new ApiError("no_forecast", `The forecast for spot '${spot.id}' has expired; a refresh is due.`);
    const fromDate = isoUtc(doc.hourTimes[first]!).slice(0, 10);
    const toDate = isoUtc(doc.hourTimes[last - 1]!).slice(0, 10);
    const daily = doc.dailyJson.filter((_, i) => doc.dates[i]! >= fromDate && doc.dates[i]! <= toDate);
    const hours = doc.hourJson.slice(first, last).map((h) => hourJsonIn(h, units));
    const body = `{"spot":${doc.spot},"units":"${units}",${doc.head},"hours":[${hours.join(",")}],"daily":[${daily.join(",")}]}`;
    const etag = `"${doc.version}-${(hour / HOUR_MS).toString(36)}-${days}${units === "metric" ? "" : `-${units}`}"`;
    return { body, etag };
  }

  private prepared(spot: { id: string }): MaybePromise<PreparedDocument> {
    return andThen(this.preparedOrNull(spot.id), (doc) => {
      if (!doc) throw new ApiError("no_forecast", `No forecast for spot '${spot.id}' yet; the next refresh will fetch it.`);
      return doc;
    });
  }

  private preparedOrNull(spotId: string): MaybePromise<PreparedDocument | null> {
    const cached = this.documents.get(spotId);
    if (cached) return cached;
    const generation = this.invalidations;
    return this.store.readDocument(spotId).then((row) => (row ? this.prepare(spotId, row, generation) : null));
  }

  /** Splits a stored row into its fragments; kept unless a refresh dropped the kept documents while it was read. */
  private prepare(spotId: string, row: StoredRow, generation: number): PreparedDocument {
    const spot = this.spots.get(spotId);
    // The stored text is sliced, not parsed: each hour is served as the text it was stored as (./json-spans.ts).
    const text = row.body;
    const members = objectMembers(text);
    const parsed = <T>(key: keyof StoredForecast): T | undefined => {
      const span = members.get(key);
      return span && (JSON.parse(text.slice(span.start, span.end)) as T);
    };
    const hourJson = arrayElements(text, members.get("hours")!.start);
    const daily = parsed<DailyWeather[]>("daily")!;
    const demo = parsed<boolean>("demo") === true;
    const updatedAt = isoUtc(row.updatedAt);
    // The tide reference is recorded with the hours it describes; documents assembled before it was recorded have none.
    const reference = members.has("datum") ? { datum: parsed<TideReference["datum"]>("datum"), station: parsed<TideReference["station"]>("station") } : {};
    // The wave models and grid cells behind the hours, recorded since several models are asked for.
    const provenance = { ...(members.has("models") ? { models: parsed<ModelUse>("models") } : {}), ...(members.has("grid") ? { grid: parsed<ForecastGrid>("grid") } : {}) };
    const rated = hourJson.map((h) => ({
      time: Date.parse(memberValue(h, "time") as string),
      rating: memberValue(h, "rating") as ForecastHour["rating"],
      confidence: (memberValue(h, "confidence") as ForecastHour["confidence"])?.level,
    }));
    const head = JSON.stringify({
      updatedAt,
      // Demo documents (serve --demo) say so in the attribution and in an extra `demo` field.
      attribution: demo ? DEMO_ATTRIBUTION : ATTRIBUTION,
      ...(demo ? { demo: true } : {}),
      ...reference,
      ...provenance,
    }).slice(1, -1);
    const doc: PreparedDocument = {
      spot: JSON.stringify({ id: spot.id, name: spot.name, country: spot.country }),
      head,
      updatedAt,
      daily,
      hourTimes: rated.map((h) => h.time),
      hourJson,
      dates: daily.map((d) => d.date),
      // The best windows are derived when a document is prepared, so documents stored before them have them too.
      dailyJson: daily.map((d) => JSON.stringify({ ...d, best: dayBest(rated, d) })),
      version: row.updatedAt.toString(36),
      demo,
    };
    // A prepared document holds about twice its text (its hours' slices, times, daily rows; measured).
    if (generation === this.invalidations) this.documents.set(spotId, doc, 2 * row.body.length);
    return doc;
  }
}
