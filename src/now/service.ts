/**
 * "Now" at a spot: the stored forecast hour, the tide at this minute and the sun, in one small answer for
 * dashboards, home automation and bots. Nothing is fetched: the forecast document and the tide extremes are what
 * the refresh and the tide window stored. An answer describes one UTC minute; it is built once per spot, minute
 * and units and kept until the minute ends or what it was built from changes, so polling costs a map lookup.
 */
import type { Clock } from "../core/clock";
import { BoundedMap } from "../core/bounded-map";
import { invalidRequest, notFound } from "../core/errors";
import { allOf, andThen, type MaybePromise } from "../core/maybe-promise";
import type { ForecastService } from "../forecast/service";
import { sunAt } from "../forecast/sun";
import { isoUtc } from "../core/clock";
import type { SpotService } from "../spots/service";
import type { Spot } from "../spots/types";
import { timezoneAt } from "../spots/timezone";
import type { TideService } from "../tides/service";
import type { ObservationsService } from "../observations/service";
import type { CurrentObservation } from "../observations/types";
import type { NowResponse, NowTide } from "./types";
import { heightIn, type Units } from "../core/units";
import { hourIn } from "../forecast/units";
import { repeatedSpot } from "./params";
import { DEMO_ATTRIBUTION } from "../forecast/demo";
import { MINUTE_MS } from "../core/clock";

export interface ServedNow {
  response: NowResponse;
  /** `response` as JSON. */
  body: string;
  /** A hash of `body`: it changes exactly when the content does. */
  etag: string;
  /** Seconds until the next minute, when the answer moves on. */
  maxAgeSeconds: number;
}

interface Kept {
  served: Omit<ServedNow, "maxAgeSeconds">;
  minute: number;
  spot: Spot;
  /** ForecastService.generation() when built: the forecast documents it read have not changed since. */
  forecasts: number;
  tideStamp: number;
}

/**
 * The forecast's CC BY 4.0 attribution (Open-Meteo, with the licence), in 80 fewer bytes than the forecast's
 * sentence: the answer has to stay within 1.5 KB with every field a forecast hour may carry.
 */
export const NOW_ATTRIBUTION = "Weather data by Open-Meteo.com (https://open-meteo.com/), CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/).";

/** Answers kept (~3 KB each with their JSON, ~5 KB with the response objects): ~5 MB; cleared when full (a BoundedMap). */
const KEPT_ANSWERS = 1024;

const etagOf = (text: string) => `"${Bun.hash(text).toString(36)}"`;

export class NowService {
  private readonly kept = new BoundedMap<string, Kept>(KEPT_ANSWERS);

  constructor(
    private readonly clock: Clock,
    private readonly spots: Pick<SpotService, "get" | "find">,
    private readonly forecasts: ForecastService,
    private readonly tides: TideService,
    private readonly observations: Pick<ObservationsService, "current">,
  ) {}

  /** One spot now. Throws `not_found` for an unknown spot. A kept answer or forecast document answers at once. */
  get(spotId: string, units: Units): MaybePromise<ServedNow> {
    const spot = this.spots.get(spotId);
    const now = this.clock.now();
    const minute = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    const maxAgeSeconds = Math.max(1, Math.ceil((minute + MINUTE_MS - now) / 1000));
    const key = `${spot.id}\u0000${units}`;
    const kept = this.kept.get(key);
    if (kept && kept.minute === minute && kept.spot === spot && kept.forecasts === this.forecasts.generation() && kept.tideStamp === this.tides.stamp()) {
      return { ...kept.served, maxAgeSeconds };
    }
    return andThen(this.build(spot, minute, units), (response) => {
      const body = JSON.stringify(response);
      const served = { response, body, etag: etagOf(body) };
      // Stamps read after building: building may store tide extremes the window lacked.
      this.kept.set(key, { served, minute, spot, forecasts: this.forecasts.generation(), tideStamp: this.tides.stamp() });
      return { ...served, maxAgeSeconds };
    });
  }

  /**
   * The catalog's ids of the spots a list names, in its order. One spot named twice in different forms (its slug and
   * its 16-hex id) is `invalid_request`, as a repeated id is; then `not_found` names every unknown id.
   */
  idsOf(spotIds: readonly string[]): string[] {
    const found = spotIds.map((id) => this.spots.find(id));
    const twice = repeatedSpot(found);
    if (twice !== -1) {
      const first = spotIds[found.indexOf(found[twice])]!;
      throw invalidRequest(`Parameter 'spots' names the spot '${found[twice]!.id}' more than once ('${first}' and '${spotIds[twice]!}').`);
    }
    const unknown = spotIds.filter((_, i) => found[i] === undefined);
    if (unknown.length > 0) throw notFound(`No spot with ${unknown.length === 1 ? "id" : "ids"} ${unknown.map((id) => `'${id}'`).join(", ")}.`);
    return found.map((spot) => spot!.id);
  }

  /** Several spots now, in the order given. Throws as idsOf() does. */
  many(spotIds: readonly string[], units: Units): MaybePromise<Omit<ServedNow, "response"> & { responses: NowResponse[] }> {
    return andThen(allOf(this.idsOf(spotIds).map((id) => this.get(id, units))), (answers) => ({
      responses: answers.map((a) => a.response),
      body: `{"spots":[${answers.map((a) => a.body).join(",")}]}`,
      etag: etagOf(answers.map((a) => a.etag).join(",")),
      maxAgeSeconds: Math.min(...answers.map((a) => a.maxAgeSeconds)),
    }));
  }

  private build(spot: Spot, minute: number, units: Units): MaybePromise<NowResponse> {
    // Asked at once with the rest: the buoy's files may be due for a fetch.
    const observation = this.observation(spot, units);
    return andThen(this.forecasts.current(spot.id, minute), (forecast) =>
      andThen(this.tide(spot.id, minute, units), (tide) => observation.then((observation) => ({
        spot: { id: spot.id, name: spot.name, country: spot.country, timezone: timezoneAt(spot.lat, spot.lng) },
        time: isoUtc(minute),
        updatedAt: forecast?.updatedAt ?? null,
        units,
        conditions: forecast?.hour ? hourIn(forecast.hour, units) : null,
        tide,
        sun: forecast ? sunAt(forecast.daily, minute) : null,
        ...(observation ? { observation } : {}),
        attribution: forecast?.demo ? DEMO_ATTRIBUTION : NOW_ATTRIBUTION,
        ...(forecast?.demo ? { demo: true as const } : {}),
      }))),
    );
  }

  /** The buoy's fresh reading, when the spot has one, its wave height in `units`. */
  private async observation(spot: Spot, units: Units): Promise<CurrentObservation | null> {
    const current = await this.observations.current(spot);
    return current && { ...current, waveHeight: current.waveHeight === null ? null : heightIn(current.waveHeight, units) };
  }

  private tide(spotId: string, minute: number, units: Units): MaybePromise<NowTide | null> {
    return andThen(this.tides.now(spotId, minute), (t) => {
      if (!t) return null;
      const extreme = (e: { time: number; height: number }) => ({ time: isoUtc(e.time), height: heightIn(e.height, units) });
      return {
        height: heightIn(t.height, units),
        state: t.state,
        datum: t.datum,
        station: t.station,
        nextHigh: extreme(t.nextHigh),
        nextLow: extreme(t.nextLow),
        nextEvent: { type: t.nextEvent.type, ...extreme(t.nextEvent), minutesUntil: t.nextEvent.minutesUntil },
      };
    });
  }
}
