/**
 * Which tide station represents a surf spot, or why the spot is tideless. Pure: the candidates and their
 * ranges come from the engine (./engine.ts), so this rule can be tested on any list of stations.
 *
 * The nearest station is often wrong for a surf beach (a lagoon, harbour or river gauge next to an ocean beach),
 * so candidates are ranked by an effective distance: the real distance plus penalties for what makes a station
 * unrepresentative of the open coast. See docs/tides.md.
 */

import type { Spot } from "../spots/types";

/** What the tide domain needs to know about a spot. */
export type TideSpot = Pick<Spot, "id" | "name" | "country" | "region" | "lat" | "lng">;

/** What the station rule reads of a spot (with its import override): its position, nothing else. */
export type RuleInput = Pick<TideSpot, "lat" | "lng">;

export interface StationCandidate {
  id: string;
  name: string;
  type: "reference" | "subordinate";
  /** The data source (NOAA, TICON-4, …) as the database names it. */
  source: string;
  distanceKm: number;
  /** Chart datum of the station's predictions (MLLW, LAT, …). */
  datum: string;
}

export interface ChosenStation extends StationCandidate {
  /** Predicted spring range, meters. */
  rangeM: number;
}

export interface StationChoice {
  tideless: boolean;
  station: ChosenStation | null;
  /** Why: the human-readable trace stored in spot_tide_station.reason. */
  reason: string;
}

/** Stations farther than this from a spot do not represent it. */
export const MAX_STATION_DISTANCE_KM = 200;
/** How many of the nearest stations are weighed. */
export const CANDIDATE_COUNT = 10;
/**
 * A spring range below this is no astronomical tide worth showing: it corresponds to principal constituents
 * M2+S2+K1+O1 below ~0.1 m (the spring range is about twice their sum).
 */
export const NEGLIGIBLE_RANGE_M = 0.2;
/** Names of gauges in enclosed or sheltered water (lagoon, harbour, river, bridge piers…). */
const ENCLOSED_NAME = /\b(causeway|bridge|river|rio|lagoon|laguna|harbou?r|bay|creek|canal|marina|estuary|slough|bayou|lake|ICWW|intracoastal)\b/i;
const ENCLOSED_PENALTY_KM = 30;
/** A subordinate station is a time/height offset of another one: slightly less trustworthy than a reference. */
const SUBORDINATE_PENALTY_KM = 10;
/** A station whose range is under this share of the best nearby range is damped (inside a lagoon or river). */
const DAMPED_SHARE = 0.6;
const DAMPED_PENALTY_KM = 50;

/** Identifies this rule in `meta`: when it changes, every spot's station is chosen again. */
export const STATION_RULE = `v1 within ${MAX_STATION_DISTANCE_KM} km, ${CANDIDATE_COUNT} candidates, negligible < ${NEGLIGIBLE_RANGE_M} m`;

const km = (d: number) => `${d.toFixed(1)} km`;
const m = (h: number) => `${h.toFixed(2)} m`;

interface Weighed {
  candidate: StationCandidate;
  rangeM: number;
  costKm: number;
  flags: string[];
}

function weigh(candidates: StationCandidate[], rangeOf: (id: string) => number): Weighed[] {
  const ranges = candidates.map((c) => rangeOf(c.id));
  const best = Math.max(0, ...ranges);
  return candidates
    .map((candidate, i) => {
      const rangeM = ranges[i]!;
      const flags: string[] = [];
      let costKm = candidate.distanceKm;
      if (ENCLOSED_NAME.test(candidate.name)) (costKm += ENCLOSED_PENALTY_KM), flags.push("enclosed-water name");
      if (candidate.type === "subordinate") (costKm += SUBORDINATE_PENALTY_KM), flags.push("subordinate");
      if (rangeM < DAMPED_SHARE * best) (costKm += DAMPED_PENALTY_KM), flags.push(`damped range ${m(rangeM)} vs ${m(best)}`);
      return { candidate, rangeM, costKm, flags };
    })
    .sort((a, b) => a.costKm - b.costKm);
}

function describe(w: Weighed): string {
  const c = w.candidate;
  return `${c.name} (${c.id}, ${c.type}, ${km(c.distanceKm)}, range ${m(w.rangeM)}${w.flags.length ? "; " + w.flags.join(", ") : ""})`;
}

function chosen(w: Weighed, others: Weighed[], prefix = ""): StationChoice {
  const nearer = others.filter((o) => o !== w && o.candidate.distanceKm < w.candidate.distanceKm);
  const passed = nearer.length ? `; passed over nearer: ${nearer.map(describe).join("; ")}` : "";
  return { tideless: false, station: { ...w.candidate, rangeM: w.rangeM }, reason: `${prefix}chose ${describe(w)}${passed}` };
}

/** Where candidate stations and their ranges come from (the engine, or a fake in tests). */
export interface StationSource {
  stationsNear(lat: number, lng: number, limit: number): StationCandidate[];
  springRange(stationId: string): number;
}

/** The station rule applied to one spot. */
export function stationFor(spot: RuleInput, override: boolean | null, source: StationSource): StationChoice {
  const candidates = override === true ? [] : source.stationsNear(spot.lat, spot.lng, CANDIDATE_COUNT);
  return chooseStation(override, candidates, (id) => source.springRange(id));
}

/**
 * The station rule. `candidates` are the nearest usable stations at any distance, closest first;
 * `override` is the import's tideless flag (null = follow the rule).
 */
export function chooseStation(override: boolean | null, candidates: StationCandidate[], rangeOf: (id: string) => number): StationChoice {
  if (override === true) return { tideless: true, station: null, reason: "override: tideless (set by import)" };
  const inReach = candidates.filter((c) => c.distanceKm <= MAX_STATION_DISTANCE_KM);
  if (override === false) {
    // The import says the spot has tides: take the best station in reach, else the nearest at any distance.
    const pool = weigh(inReach.length ? inReach : candidates.slice(0, 1), rangeOf);
    const best = pool[0];
    if (!best) return { tideless: true, station: null, reason: "override: tidal, but the tide database has no station" };
    return chosen(best, pool, "override: tidal; ");
  }
  if (!inReach.length) {
    const nearest = candidates[0];
    const beyond = nearest ? ` (nearest: ${nearest.name}, ${km(nearest.distanceKm)})` : "";
    return { tideless: true, station: null, reason: `no tide station within ${MAX_STATION_DISTANCE_KM} km${beyond}` };
  }
  const weighed = weigh(inReach, rangeOf);
  const tidal = weighed.filter((w) => w.rangeM >= NEGLIGIBLE_RANGE_M);
  const best = tidal[0];
  if (!best) {
    const largest = Math.max(...weighed.map((w) => w.rangeM));
    return {
      tideless: true,
      station: null,
      reason: `negligible tide: largest spring range ${m(largest)} < ${m(NEGLIGIBLE_RANGE_M)} among ${weighed.length} stations within ${MAX_STATION_DISTANCE_KM} km`,
    };
  }
  return chosen(best, weighed);
}
