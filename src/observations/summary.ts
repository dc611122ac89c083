/**
 * A buoy's reading in words, for the texts a model reads (MCP `spot_now` and `spot_observations`):
 * "buoy 51201 Waimea Bay, 6.8 km: 2.1 m at 14 s from 310°, 25 min ago; forecast 1.9 m". Pure.
 */
import type { CurrentObservation } from "./types";

/** The reading as a phrase; figures the buoy's files lack are left out. `length` is the unit of the heights given. */
export function buoyPhrase(observation: CurrentObservation, forecastHeight: number | null, length: "m" | "ft"): string {
  const { buoy, waveHeight, dominantPeriod, waveDirection, ageMinutes } = observation;
  const sea = [
    waveHeight === null ? "no wave height" : `${waveHeight} ${length}`,
    ...(dominantPeriod === null ? [] : [`at ${dominantPeriod} s`]),
    ...(waveDirection === null ? [] : [`from ${waveDirection}°`]),
  ].join(" ");
  const forecast = forecastHeight === null ? "" : `; forecast ${forecastHeight} ${length}`;
  return `buoy ${buoy.id} ${buoy.name}, ${buoy.distanceKm} km: ${sea}, ${ageMinutes} min ago${forecast}`;
}
