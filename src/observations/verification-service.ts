/**
 * `GET /v1/spots/{id}/verification?days=N`: how right each configured wave model has been at the spot's buoy, and the
 * correction that rule allows there. The models' recent hours at the buoy come from one Open-Meteo Marine request a
 * day per buoy (`past_days` covering the longest window), made by the function the service is given; the forecasts
 * issued at the buoy are kept by lead day as each refresh gives them (`keepIssuedForecasts`).
 */
import { BOUNDS } from "../core/bounds";
import { DAY_MS, HOUR_MS, utcHourStart, type Clock, isoUtc } from "../core/clock";
import type { BuoyView, Logger } from "./fetcher";
import type { Candidate, ObservationsReason } from "./readings";
import { buoyRef, type BuoyRef, type ObservationsService, type ObservedSpot } from "./service";
import { SharedRuns } from "../core/shared-runs";
import type { ForecastCorrection, VerificationResponse } from "./types";
import { shortStationName } from "./readings";
import type { ObservationStore, StoredHindcast } from "./store";
import { bestModel, CORRECTION_MAX_KM, fitCorrection, LEAD_DAYS, leadDayOf, pairUp, scoreByLeadDay, scoreModels, type Correction, type LeadDayScore, type LeadForecast, type ModelHours, type ModelScore, type Pair, type Score } from "./verification";

/** `days`: at least a week, at most what NDBC's realtime files hold (45 days); a month unless asked. */
export const VERIFICATION_DAYS = { min: BOUNDS.verificationDays.minimum, max: BOUNDS.verificationDays.maximum, default: BOUNDS.verificationDays.default } as const;
/** A failed hindcast request is tried again after this (a good one is kept a day). */
const HINDCAST_RETRY_MS = HOUR_MS;
/** The hindcast asks for the current day ahead (its hours are verified as they pass)… */
const HINDCAST_FORECAST_DAYS = 1;
/** …a refresh's forecasts at a buoy cover every lead day from the issue. */
const ISSUED_FORECAST_DAYS = LEAD_DAYS + 1;
/** A buoy whose verification was asked for within this long is in use: each refresh keeps the forecasts at it. */
const IN_USE_MS = 2 * DAY_MS;

/**
 * One Open-Meteo Marine request at a buoy's position: each model's hourly wave height over the past `pastDays` days
 * and `forecastDays` from today.
 */
export interface HindcastRequest {
  lat: number;
  lng: number;
  models: readonly string[];
  pastDays: number;
  forecastDays: number;
}

export type HindcastSource = (request: HindcastRequest) => Promise<ModelHours>;

export type VerificationAnswer = VerificationResponse;

export interface VerificationServiceOptions {
  observations: ObservationsService;
  store: ObservationStore;
  clock: Clock;
  /** The configured wave models (SURFCAST_WAVE_MODELS), in their order. */
  models: readonly string[];
  hindcast: HindcastSource;
  logger: Logger;
}

type Window = { from: number; to: number };
type PairsAtBuoy = { buoy: Candidate; view: BuoyView; pairs: Pair[] } | { buoy: Candidate | null; reason: ObservationsReason };

export class VerificationService {
  /** One hindcast request per buoy at a time. */
  private readonly hindcasts = new SharedRuns();

  constructor(private readonly options: VerificationServiceOptions) {}

  /** The window of `days` days ending with the current UTC hour. */
  windowOf(days: number): Window {
    if (!Number.isInteger(days) || days < VERIFICATION_DAYS.min || days > VERIFICATION_DAYS.max) throw new RangeError(`days must be an integer from ${VERIFICATION_DAYS.min} to ${VERIFICATION_DAYS.max}`);
    const to = utcHourStart(this.options.clock.now());
    return { from: to - days * DAY_MS, to };
  }

  async verification(spot: ObservedSpot, days: number = VERIFICATION_DAYS.default): Promise<VerificationAnswer> {
    const window = this.windowOf(days);
    const found = await this.pairsAt(spot, window);
    const buoy = found.buoy ? buoyRef(found.buoy) : null;
    const base = { spot: { id: spot.id, name: spot.name, timezone: spot.timezone }, buoy, from: isoUtc(window.from), to: isoUtc(window.to) };
    const models = this.options.models;
    if ("reason" in found) return { ...base, ...scoreModels([], models), best: null, byLeadDay: [], reason: found.reason };
    const scores = scoreModels(found.pairs, models);
    const issued = await this.options.store.leadForecasts(found.buoy.station.id, window.from, window.to);
    return { ...base, ...scores, best: bestModel(scores.models), byLeadDay: scoreByLeadDay(found.view.readings, issued, models, window.from, window.to), reason: null };
  }

  /**
   * The correction rule at the spot over the default window (verification.ts `fitCorrection`), with its buoy; null
   * where the rule does not apply (no buoy, one farther than 50 km, fewer than 14 days of pairs).
   */
  async correction(spot: ObservedSpot): Promise<(Correction & { buoy: BuoyRef }) | null> {
    const found = await this.pairsAt(spot, this.windowOf(VERIFICATION_DAYS.default));
    if ("reason" in found) return null;
    const fit = fitCorrection(found.pairs, this.options.models, found.buoy.distanceKm);
    return fit && { ...fit, buoy: buoyRef(found.buoy) };
  }

  /**
   * The corrections that hold at these spots, by spot id (SURFCAST_BIAS_CORRECTION): the rule is fitted only where the
   * station table has a station within CORRECTION_MAX_KM, and kept only where it lowers the held-out error.
   */
  async corrections(spots: readonly ObservedSpot[]): Promise<Map<string, ForecastCorrection>> {
    const held = new Map<string, ForecastCorrection>();
    for (const spot of spots) {
      if (!(await this.options.observations.stationWithin(spot, CORRECTION_MAX_KM))) continue;
      const fit = await this.correction(spot);
      if (!fit?.applied) continue;
      const { id, name, distanceKm } = fit.buoy;
      held.set(spot.id, { buoy: { id, name: shortStationName(name), distanceKm }, ratios: fit.ratios, heldOutRmse: fit.heldOutRmse });
    }
    return held;
  }

  /** Keeps a refresh's forecasts at a buoy's position by lead day (1..7), for `byLeadDay` as the days pass. */
  async keepIssuedForecasts(buoyId: string, issuedAt: number, hours: ModelHours): Promise<void> {
    const forecasts: LeadForecast[] = [];
    for (const [model, series] of Object.entries(hours.waveHeight)) {
      hours.time.forEach((time, i) => {
        const waveHeight = series[i];
        if (waveHeight !== null && waveHeight !== undefined && leadDayOf(issuedAt, time) !== null) forecasts.push({ model, issuedAt, time, waveHeight });
      });
    }
    await this.options.store.addLeadForecasts(buoyId.toUpperCase(), forecasts, issuedAt - VERIFICATION_DAYS.max * DAY_MS);
  }

  /**
   * After a refresh: each model's forecast at each buoy in use (its verification asked for within IN_USE_MS), asked
   * of Open-Meteo at the buoy's position and kept by lead day, so that `byLeadDay` fills as the days pass. A buoy
   * whose request fails is skipped until the next refresh. Returns how many buoys were kept, and how many failed.
   */
  async keepForecastsAtBuoys(): Promise<{ kept: number; failed: number }> {
    const { store, clock, hindcast, models, logger } = this.options;
    const issuedAt = clock.now();
    let kept = 0;
    let failed = 0;
    for (const buoyId of await store.hindcastBuoys(issuedAt - IN_USE_MS)) {
      const position = (await store.hindcast(buoyId))?.position;
      if (!position) continue;
      try {
        await this.keepIssuedForecasts(buoyId, issuedAt, await hindcast({ ...position, models, pastDays: 0, forecastDays: ISSUED_FORECAST_DAYS }));
        kept++;
      } catch (error) {
        failed++;
        logger.warn("the models' forecast at a buoy could not be kept for verification by lead day", { buoy: buoyId, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return { kept, failed };
  }

  private async pairsAt(spot: ObservedSpot, window: Window): Promise<PairsAtBuoy> {
    const choice = await this.options.observations.buoyOf(spot);
    if ("reason" in choice) return { buoy: null, reason: choice.reason };
    const hindcast = await this.hindcasts.run(choice.buoy.station.id, () => this.hindcastAt(choice.buoy));
    if (!hindcast?.hours) return { buoy: choice.buoy, reason: "source_unavailable" };
    return { buoy: choice.buoy, view: choice.view, pairs: pairUp(choice.view.readings, hindcast.hours, window.from, window.to) };
  }

  /** The models' recent hours at the buoy: asked for once a day, kept when a request fails. */
  private async hindcastAt({ station }: Candidate): Promise<StoredHindcast | null> {
    const { store, clock, hindcast, models, logger } = this.options;
    const old = await store.hindcast(station.id);
    const now = clock.now();
    const lastGood = old !== null && old.fetchedAt === old.checkedAt;
    const position = { lat: station.lat, lng: station.lng };
    if (old && now - old.checkedAt < (lastGood ? DAY_MS : HINDCAST_RETRY_MS)) return old;
    let next: StoredHindcast;
    try {
      const hours = await hindcast({ ...position, models, pastDays: VERIFICATION_DAYS.max, forecastDays: HINDCAST_FORECAST_DAYS });
      next = { position, checkedAt: now, fetchedAt: now, hours };
    } catch (error) {
      if (old === null || lastGood) logger.warn("model hindcast at a buoy failed; verification uses what it had", { buoy: station.id, error: error instanceof Error ? error.message : String(error) });
      next = { position, checkedAt: now, fetchedAt: old?.fetchedAt ?? null, hours: old?.hours ?? null };
    }
    await store.saveHindcast(station.id, next);
    return next;
  }
}
