/**
 * `GET /v1/spots/{id}/observations`: what the sea is doing now at a spot's buoy, beside what this API serves for
 * that hour. Units are metric (m, s, degrees, km/h, °C, hPa); times are UTC. docs/observations.md tells each field.
 */
import { HOUR_MS, isoUtc, MINUTE_MS, utcHourStart, type Clock } from "../core/clock";
import type { MaybePromise } from "../core/maybe-promise";
import type { Spot } from "../spots/types";
import type { BuoyChoice, NdbcFetcher } from "./fetcher";
import type { Buoy as BuoyRef, CurrentObservation } from "./types";
import { candidateStations, DEFAULT_BUOY_RADIUS_KM, freshLatest, shortStationName, lastDayHours, readingsByHour, type Candidate, type ObservationsReason, type Reading } from "./readings";

export const ATTRIBUTION = "Buoy observations by NOAA's National Data Buoy Center (https://www.ndbc.noaa.gov/) and its partners; US government data, in the public domain.";

/** The spot as the answers need it. */
export type ObservedSpot = Pick<Spot, "id" | "name" | "timezone" | "lat" | "lng">;

export type { Buoy as BuoyRef } from "./types";

/** A reading's figures, null where the buoy's files have none. */
export type ObservedValues = Omit<Reading, "time">;

export interface LatestObservation extends ObservedValues {
  /** When the buoy measured it, UTC. */
  time: string;
  /** Whole minutes since. */
  ageMinutes: number;
}

/** The reading nearest an hour (within 30 minutes), under that hour. */
export interface HourObservation extends ObservedValues {
  time: string;
}

/** What this API serves for an hour at the spot. */
export interface ForecastPoint {
  time: string;
  waveHeight: number | null;
}

export interface ObservationsAnswer {
  spot: { id: string; name: string; timezone: string };
  buoy: BuoyRef | null;
  latest: LatestObservation | null;
  /** The forecast for the hour nearest `latest`; null without `latest`. */
  forecast: ForecastPoint | null;
  /** The last 24 hours, oldest first; hours without a reading near them are left out. One array while they stay the same. */
  hours: HourObservation[];
  /** Why `latest` is null; null when it is not. */
  reason: ObservationsReason | null;
  attribution: string;
}

export interface ObservationsServiceOptions {
  fetcher: NdbcFetcher;
  clock: Clock;
  /** SURFCAST_OBSERVATIONS: off answers without calling NDBC. */
  enabled: boolean;
  /** SURFCAST_BUOY_RADIUS_KM. */
  radiusKm?: number;
  /** What the API serves at the spot for the hour starting at `hour` (epoch ms), or null when it has none. */
  forecastAt: (spot: ObservedSpot, hour: number) => MaybePromise<ForecastPoint | null>;
}

/** `2026-11-21T13:00:00Z`: ISO 8601 with the UTC designator, no milliseconds. */

export function buoyRef(buoy: Candidate): BuoyRef {
  const { station, distanceKm } = buoy;
  return { id: station.id, name: station.name, lat: station.lat, lng: station.lng, distanceKm: Math.round(distanceKm * 10) / 10, owner: station.owner };
}

/** A reading in brief (`/now` and the texts a model reads): the buoy's short name and the wave figures. */
export function briefObservation(buoy: BuoyRef, latest: LatestObservation): CurrentObservation {
  const { time, ageMinutes, waveHeight, dominantPeriod, waveDirection } = latest;
  return { buoy: { id: buoy.id, name: shortStationName(buoy.name), distanceKm: buoy.distanceKm }, time, ageMinutes, waveHeight, dominantPeriod, waveDirection };
}

const valuesOf = ({ time: _, ...values }: Reading): ObservedValues => values;

const whenOf = (reading: Reading, now: number) => ({ time: isoUtc(reading.time), ageMinutes: Math.floor((now - reading.time) / MINUTE_MS) });

export class ObservationsService {
  readonly radiusKm: number;
  /** A buoy's last 24 hours, kept while its readings and the hour stay the same: every spot near it shares them. */
  private readonly keptHours = new Map<string, { readings: readonly Reading[]; hour: number; hours: HourObservation[] }>();

  constructor(private readonly options: ObservationsServiceOptions) {
    this.radiusKm = options.radiusKm ?? DEFAULT_BUOY_RADIUS_KM;
  }

  /** The spot's buoy and its readings, or why none; never calls NDBC when observations are off. */
  buoyOf(spot: ObservedSpot): Promise<BuoyChoice | { reason: "observations_off" }> {
    if (!this.options.enabled) return Promise.resolve({ reason: "observations_off" });
    return this.options.fetcher.nearestBuoy(spot.lat, spot.lng, this.radiusKm);
  }

  /** Whether the station table has a station that may carry waves within `km` of the spot; asks NDBC for no buoy file. */
  async stationWithin(spot: ObservedSpot, km: number): Promise<boolean> {
    if (!this.options.enabled) return false;
    const stations = await this.options.fetcher.stations();
    return stations !== null && candidateStations(stations, spot.lat, spot.lng, km).length > 0;
  }

  async observations(spot: ObservedSpot): Promise<ObservationsAnswer> {
    const answer: ObservationsAnswer = {
      spot: { id: spot.id, name: spot.name, timezone: spot.timezone },
      buoy: null,
      latest: null,
      forecast: null,
      hours: [],
      reason: null,
      attribution: ATTRIBUTION,
    };
    const choice = await this.buoyOf(spot);
    if ("reason" in choice) return { ...answer, reason: choice.reason };
    const now = this.options.clock.now();
    const { readings, failing } = choice.view;
    const fresh = freshLatest(readings, now, failing);
    const found = { ...answer, buoy: buoyRef(choice.buoy), hours: this.hoursOf(choice.buoy.station.id, readings, now) };
    if ("reason" in fresh) return { ...found, reason: fresh.reason };
    const { latest } = fresh;
    return {
      ...found,
      latest: { ...whenOf(latest, now), ...valuesOf(latest) },
      forecast: await this.options.forecastAt(spot, Math.round(latest.time / HOUR_MS) * HOUR_MS),
    };
  }

  /** The spot's buoy and its newest reading in brief, when it is at most 3 hours old; null otherwise. In metric units. */
  async current(spot: ObservedSpot): Promise<CurrentObservation | null> {
    const choice = await this.buoyOf(spot);
    if ("reason" in choice) return null;
    const now = this.options.clock.now();
    const fresh = freshLatest(choice.view.readings, now, choice.view.failing);
    if ("reason" in fresh) return null;
    return briefObservation(buoyRef(choice.buoy), { ...whenOf(fresh.latest, now), ...valuesOf(fresh.latest) });
  }

  private hoursOf(buoyId: string, readings: readonly Reading[], now: number): HourObservation[] {
    const hour = utcHourStart(now);
    const kept = this.keptHours.get(buoyId);
    if (kept && kept.readings === readings && kept.hour === hour) return kept.hours;
    const hours = readingsByHour(readings, lastDayHours(now)).map(({ hour, reading }) => ({ time: isoUtc(hour), ...valuesOf(reading) }));
    this.keptHours.set(buoyId, { readings, hour, hours });
    return hours;
  }
}
