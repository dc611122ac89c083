/**
 * `GET /v1/spots/{id}/climate`: a spot's months from its ERA5-Ocean cell's decade. A cell is fetched once, in the
 * background, the first time one of its spots is asked for (the answer meanwhile: pending), stored whole, and
 * fetched again only for other years (SURFCAST_CLIMATE_YEARS changed, or a year completed), the stored climate served
 * until the new one is whole. docs/climate.md tells each field.
 */
import { HOUR_MS, type Clock } from "../core/clock";
import { ApiError } from "../core/errors";
import { haversineKm } from "../core/geo";
import { BoundedMap } from "../core/bounded-map";
import { Serial } from "../core/serial";
import type { BestMonths } from "../spots/guide";
import type { Spot, SpotDetail } from "../spots/types";
import { bestMonths, cellOf, climateYears, sameYears, seaMonths, spotMonths, type Years } from "./climate";
import type { Era5Source } from "./era5";
import { packHours, unpackHours } from "./hours-codec";
import type { ClimateStore, StoredClimate } from "./store";
import type { ClimateResponse } from "./types";

export const ATTRIBUTION =
  "Contains modified Copernicus Climate Change Service information: ERA5 and ERA5-Ocean reanalysis (ECMWF; neither the European Commission nor ECMWF is responsible for any use of it), served by Open-Meteo (https://open-meteo.com/, CC BY 4.0).";

export type ClimateAnswer = Omit<ClimateResponse, "units">;
export type ClimateSpot = Pick<Spot, "id" | "name" | "lat" | "lng" | "facing">;

/** What a request gets: the climate, or why not yet. */
export type ClimateState =
  | { status: "ready"; climate: ClimateAnswer }
  /** The cell's decade is being fetched. */
  | { status: "pending"; retryAfterSeconds: number }
  /** The last fetch failed; the next is not before `retryAfterSeconds`. */
  | { status: "failed"; reason: string; retryAfterSeconds: number };

/** Why the climate cannot be answered yet, as /v1 and MCP both say it (`climate_unavailable`). */
export function climateUnavailable(state: Exclude<ClimateState, { status: "ready" }>): ApiError {
  const message =
    state.status === "pending"
      ? `The spot's climate is being computed (its area is asked for the first time); ask again in ${state.retryAfterSeconds} s.`
      : `The climate could not be fetched from Open-Meteo (${state.reason}); it is tried again in ${state.retryAfterSeconds} s.`;
  return new ApiError("climate_unavailable", message);
}

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface ClimateServiceOptions {
  store: ClimateStore;
  clock: Clock;
  /** SURFCAST_CLIMATE_YEARS. */
  years: number;
  source: Era5Source;
  logger: Logger;
}

/** A pending answer's Retry-After: a cell's twenty requests take a few seconds upstream. */
export const PENDING_RETRY_S = 10;
/** After a failed fetch the next waits this long, doubling per failure up to RETRY_MAX_MS. */
export const RETRY_FIRST_MS = 60_000;
export const RETRY_MAX_MS = 6 * HOUR_MS;
/** Cells and spots whose climate is kept in memory (a cell's stored form is a few hundred KB). */
const CELLS_KEPT = 32;
const SPOTS_KEPT = 2_000;

interface Failure {
  reason: string;
  failures: number;
  retryAt: number;
}

/** Its cell, years and time of computing name a climate (not the object: a kept answer must not hold the hours). */
const versionOf = (stored: StoredClimate) => `${stored.key} ${stored.years.from}-${stored.years.to} ${stored.computedAt}`;

/** Frozen all the way down: the spot guide serves them in a detail whose JSON text is kept. */
function frozenBest(best: BestMonths): BestMonths {
  for (const months of Object.values(best)) Object.freeze(months);
  return Object.freeze(best);
}

export class ClimateService {
  private readonly cells = new BoundedMap<string, StoredClimate>(CELLS_KEPT);
  private readonly answers = new BoundedMap<string, { facing: number | null; version: string; answer: ClimateAnswer }>(SPOTS_KEPT);
  /** Spot details with their best months, by the spots service's detail (which lives as long as its spot object). */
  private readonly seasoned = new WeakMap<SpotDetail, { best: BestMonths; detail: SpotDetail }>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly failures = new Map<string, Failure>();
  /** One cell fetched at a time: a burst of first requests never becomes a burst upstream. */
  private readonly turns = new Serial();

  constructor(private readonly options: ClimateServiceOptions) {}

  async climate(spot: ClimateSpot): Promise<ClimateState> {
    const cell = cellOf(spot.lat, spot.lng);
    const wanted = climateYears(this.options.clock.now(), this.options.years);
    const stored = this.cells.get(cell.key) ?? (await this.load(cell.key));
    if (stored === null || !sameYears(stored.years, wanted)) this.fetchWhenDue(cell, wanted);
    if (stored !== null) return { status: "ready", climate: this.answerOf(spot, stored) };
    const failure = this.failures.get(cell.key);
    if (failure && !this.running.has(cell.key)) {
      return { status: "failed", reason: failure.reason, retryAfterSeconds: Math.max(1, Math.ceil((failure.retryAt - this.options.clock.now()) / 1000)) };
    }
    return { status: "pending", retryAfterSeconds: PENDING_RETRY_S };
  }

  /**
   * The spot's best months when its climate was answered since the server started and its cell's climate is the
   * same since: a lookup in memory, never a fetch nor a computing (the spot guide and the MCP texts ask it).
   */
  knownBestMonths(spot: ClimateSpot): BestMonths | null {
    const kept = this.answers.get(spot.id);
    if (!kept || kept.facing !== spot.facing) return null;
    const cell = this.cells.get(cellOf(spot.lat, spot.lng).key);
    return cell === undefined || versionOf(cell) === kept.version ? kept.answer.bestMonths : null;
  }

  /**
   * The spot's detail (`GET /v1/spots/{id}`) with `guide.bestMonths` when known (knownBestMonths), else the detail
   * itself. Frozen and kept per detail and best months, so http/respond.ts keeps its JSON text as it does the detail's.
   */
  withBestMonths(detail: SpotDetail): SpotDetail {
    const best = this.knownBestMonths(detail);
    if (best === null) return detail;
    const kept = this.seasoned.get(detail);
    if (kept?.best === best) return kept.detail;
    const seasoned = Object.freeze({ ...detail, guide: Object.freeze({ ...detail.guide, bestMonths: best }) });
    this.seasoned.set(detail, { best, detail: seasoned });
    return seasoned;
  }

  private async load(key: string): Promise<StoredClimate | null> {
    const stored = await this.options.store.climate(key);
    if (stored) this.cells.set(key, stored);
    return stored;
  }

  /** Starts the cell's fetch unless one runs or the last failure's wait is not over. */
  private fetchWhenDue(cell: { key: string; lat: number; lng: number }, years: Years): void {
    if (this.running.has(cell.key)) return;
    const failure = this.failures.get(cell.key);
    if (failure && failure.retryAt > this.options.clock.now()) return;
    const run = this.turns
      .run(() => this.compute(cell, years))
      .then(
        () => void this.failures.delete(cell.key),
        (error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          const failures = (failure?.failures ?? 0) + 1;
          const retryAt = this.options.clock.now() + Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (failures - 1));
          this.failures.set(cell.key, { reason, failures, retryAt });
          this.options.logger.warn("climate fetch failed; nothing of it is kept", { cell: cell.key, years: `${years.from}-${years.to}`, error: reason });
        },
      )
      .finally(() => this.running.delete(cell.key));
    this.running.set(cell.key, run);
  }

  private async compute(cell: { key: string; lat: number; lng: number }, years: Years): Promise<void> {
    // Another server of a shared database may have stored these years meanwhile.
    const current = await this.options.store.climate(cell.key);
    if (current && sameYears(current.years, years)) {
      this.cells.set(cell.key, current);
      return;
    }
    const fetched = await this.options.source({ lat: cell.lat, lng: cell.lng }, years);
    const months = seaMonths(fetched.hours);
    if (months === null) throw new Error("ERA5-Ocean has no wave heights here for some month (no sea cell near)");
    const climate: StoredClimate = { key: cell.key, years, computedAt: this.options.clock.now(), cell: fetched.cell, months, hours: packHours(fetched.hours) };
    await this.options.store.saveClimate(climate);
    this.cells.set(cell.key, climate);
    this.options.logger.info("climate computed", { cell: cell.key, years: `${years.from}-${years.to}` });
  }

  /** The spot's climate: the cell's months with the spot's own offshore wind and good days, kept until either changes. */
  private answerOf(spot: ClimateSpot, stored: StoredClimate): ClimateAnswer {
    const version = versionOf(stored);
    const kept = this.answers.get(spot.id);
    if (kept && kept.facing === spot.facing && kept.version === version) return kept.answer;
    const own = spotMonths(unpackHours(Date.UTC(stored.years.from, 0, 1), stored.hours), spot);
    const answer: ClimateAnswer = {
      spot: { id: spot.id, name: spot.name },
      source: {
        model: "era5_ocean",
        cell: { lat: stored.cell.lat, lng: stored.cell.lng, distanceKm: Math.round(haversineKm(spot.lat, spot.lng, stored.cell.lat, stored.cell.lng) * 10) / 10 },
        years: stored.years,
      },
      months: stored.months.map((m, i) => ({ ...m, offshoreShare: own[i]!.offshoreShare, goodDays: own[i]!.goodDays })),
      bestMonths: frozenBest(bestMonths(own)),
      attribution: ATTRIBUTION,
    };
    this.answers.set(spot.id, { facing: spot.facing, version, answer });
    return answer;
  }
}
