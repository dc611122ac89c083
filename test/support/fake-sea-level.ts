/**
 * The fake Open-Meteo's `sea_level_height_msl`: a synthetic astronomical tide (meters above mean sea level) from five
 * constituents whose amplitudes depend on where the point is, so every regime a real coast has shows up:
 *
 * - semi-diurnal (open Atlantic, Indian Ocean; macro-tidal in the Channel, Morocco and Patagonia),
 * - mixed (US/Canadian Pacific coast, Hawaii, Indonesia/Bali),
 * - diurnal (Gulf of Mexico, South China Sea),
 * - negligible (Baltic, Black Sea, Caspian, western Mediterranean),
 * - and no data at all (all null) where Open-Meteo's ocean model has no sea cell: on land more than
 *   NO_SEA_CELL_KM from the Natural Earth coastline — lakes (the Great Lakes and Swiss lakes are land there),
 *   rivers and inland wave pools.
 *
 * M2 and S2 beat with the 14.77-day spring–neap cycle; N2 the 27.6-day perigee cycle; K1/O1 the diurnal inequality.
 * Phases vary with longitude so neighbouring coasts do not turn at the same instant. Not a tide model: a stand-in
 * with the right shapes for tests and the benchmark.
 */
import { loadLand, type LandIndex } from "../../src/spots/orientation";
import { coastDistanceKm, isOnLand } from "../../src/spots/coast";

/** Constituent amplitudes in meters. */
export interface Amplitudes {
  M2: number;
  S2: number;
  N2: number;
  K1: number;
  O1: number;
}

/** Periods in hours. */
const PERIOD_H: Record<keyof Amplitudes, number> = { M2: 12.4206012, S2: 12, N2: 12.65834751, K1: 23.93447213, O1: 25.81933871 };
const EPOCH = Date.UTC(2000, 0, 1);
/** Open-Meteo's ocean model finds no sea cell for a point on land farther than this from the coast. */
export const NO_SEA_CELL_KM = 15;

const semi = (M2: number, S2 = M2 * 0.35): Amplitudes => ({ M2, S2, N2: M2 * 0.19, K1: M2 * 0.1, O1: M2 * 0.07 });

/** Regions as latitude/longitude boxes [south, north, west, east]; the first that holds the point wins. */
export const REGIMES: { name: string; box: [number, number, number, number]; amplitudes: Amplitudes }[] = [
  { name: "Caspian Sea", box: [36, 47.5, 46, 55.5], amplitudes: { M2: 0.01, S2: 0.003, N2: 0.002, K1: 0.004, O1: 0.003 } },
  { name: "Black Sea", box: [40.5, 47.5, 27, 42], amplitudes: { M2: 0.03, S2: 0.01, N2: 0.005, K1: 0.012, O1: 0.008 } },
  { name: "Baltic Sea", box: [53.5, 66, 12.5, 31], amplitudes: { M2: 0.02, S2: 0.006, N2: 0.004, K1: 0.01, O1: 0.008 } },
  // Before the Mediterranean boxes, which would otherwise take the Basque coast.
  { name: "Iberian and Biscay Atlantic (semi-diurnal)", box: [36, 47, -10.5, -1], amplitudes: semi(1.05, 0.37) },
  { name: "western Mediterranean (Alboran, Spain, Algeria)", box: [35, 41, -5.3, 10], amplitudes: { M2: 0.04, S2: 0.015, N2: 0.008, K1: 0.02, O1: 0.01 } },
  { name: "western Mediterranean (Catalonia, Gulf of Lion, Ligurian)", box: [41, 44.5, 0, 10], amplitudes: { M2: 0.04, S2: 0.015, N2: 0.008, K1: 0.02, O1: 0.01 } },
  { name: "eastern Mediterranean", box: [30, 46, 10, 36.5], amplitudes: { M2: 0.08, S2: 0.04, N2: 0.015, K1: 0.03, O1: 0.02 } },
  { name: "Gulf of Mexico (diurnal)", box: [18, 31, -98, -81], amplitudes: { M2: 0.03, S2: 0.01, N2: 0.006, K1: 0.15, O1: 0.15 } },
  { name: "South China Sea (diurnal)", box: [0, 23, 104, 121], amplitudes: { M2: 0.15, S2: 0.06, N2: 0.03, K1: 0.36, O1: 0.3 } },
  { name: "English Channel (macro-tidal)", box: [47, 51.5, -6, 2], amplitudes: semi(2.0, 0.7) },
  { name: "Moroccan Atlantic (semi-diurnal)", box: [27, 36, -14, -5.5], amplitudes: semi(1.1, 0.4) },
  { name: "US Atlantic coast (semi-diurnal)", box: [25, 45, -82, -65], amplitudes: semi(0.5, 0.1) },
  { name: "Patagonia (macro-tidal)", box: [-55, -40, -70, -60], amplitudes: semi(2.5, 0.8) },
  { name: "Hawaii (mixed)", box: [18, 23, -161, -154], amplitudes: { M2: 0.17, S2: 0.05, N2: 0.03, K1: 0.15, O1: 0.08 } },
  { name: "North American Pacific (mixed)", box: [22, 61, -170, -115], amplitudes: { M2: 0.5, S2: 0.13, N2: 0.1, K1: 0.37, O1: 0.23 } },
  { name: "Indonesia (mixed)", box: [-11, 0, 95, 141], amplitudes: { M2: 0.6, S2: 0.3, N2: 0.1, K1: 0.25, O1: 0.15 } },
];
const OPEN_OCEAN = { name: "open ocean (semi-diurnal)", amplitudes: semi(0.5, 0.2) };

export function regimeAt(lat: number, lng: number): { name: string; amplitudes: Amplitudes } {
  return REGIMES.find(({ box: [s, n, w, e] }) => lat >= s && lat <= n && lng >= w && lng <= e) ?? OPEN_OCEAN;
}

/** Sea level in meters above MSL at `ms` for the given amplitudes, phases shifted by longitude. */
export function seaLevelAt(amplitudes: Amplitudes, lng: number, ms: number): number {
  const hours = (ms - EPOCH) / 3_600_000;
  let level = 0;
  for (const [name, amplitude] of Object.entries(amplitudes) as [keyof Amplitudes, number][]) {
    const phase = ((lng * (name === "K1" || name === "O1" ? 1 : 2)) / 180) * Math.PI;
    level += amplitude * Math.cos((2 * Math.PI * hours) / PERIOD_H[name] - phase);
  }
  return level;
}

let land: LandIndex | null = null;
const noSeaCell = new Map<string, boolean>();

/** True where the real API answers all-null sea levels (no ocean-model cell near the point). */
export function hasNoSeaCell(lat: number, lng: number): boolean {
  const key = `${lat},${lng}`;
  let answer = noSeaCell.get(key);
  if (answer === undefined) {
    land ??= loadLand();
    // The coast distance first: cheap within 15 km, where nearly every surf spot is; the land test casts a long ray.
    answer = (coastDistanceKm(lat, lng, land, NO_SEA_CELL_KM) ?? Infinity) >= NO_SEA_CELL_KM && isOnLand(lat, lng, land);
    noSeaCell.set(key, answer);
  }
  return answer;
}

/** The hourly series at the requested point for `times` (epoch ms), 2 decimals like the real API, or all null. */
export function seaLevelSeries(lat: number, lng: number, times: number[]): (number | null)[] {
  if (hasNoSeaCell(lat, lng)) return times.map(() => null);
  const { amplitudes } = regimeAt(lat, lng);
  return times.map((t) => Math.round(seaLevelAt(amplitudes, lng, t) * 100) / 100);
}
