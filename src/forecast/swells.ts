/**
 * Wave components of a forecast hour: Open-Meteo Marine splits the sea into the primary, secondary and tertiary
 * swell and the wind sea, each with a height, period and direction. Pure: series in, components out
 * (docs/forecast.md, "Swell components").
 */
import type { SwellComponent, SwellKind } from "./types";

/** Each component's Open-Meteo variable prefix; a component is `<prefix>_height`, `_period`, `_direction`. */
export const SWELL_PREFIXES: Record<SwellKind, string> = {
  primary: "swell_wave",
  secondary: "secondary_swell_wave",
  tertiary: "tertiary_swell_wave",
  wind: "wind_wave",
};

/**
 * The variables the marine request adds for the components beyond the primary swell (which it always had). The
 * tertiary swell is not requested: with the sea level (docs/tides.md) it would make 17 marine variables, 1.7 per
 * location, a full refresh 1.52 × the spots in call weight — over the 1.5 × budget (docs/forecast.md). It is the
 * smallest partition and the one most often empty; an hour still reads it from a response that carries it.
 */
export const SWELL_COMPONENT_VARIABLES = [
  "secondary_swell_wave_height",
  "secondary_swell_wave_period",
  "secondary_swell_wave_direction",
  "wind_wave_height",
  "wind_wave_period",
  "wind_wave_direction",
] as const;

/** The components in the order equal energies keep: primary, secondary, tertiary, wind. */
export const SWELL_KINDS = Object.keys(SWELL_PREFIXES) as SwellKind[];

/** Relative energy flux of a component: wave power is ∝ H²·T (deep water, P ≈ 0.49 · H² · T kW/m). */
export const swellEnergy = (c: Pick<SwellComponent, "height" | "period">): number => c.height * c.height * c.period;

type Series = Record<string, readonly (number | null)[] | undefined>;

/**
 * One wave train at hour `i` (`prefix`: a component's, or `wave` for the total sea): null when any of its three values
 * is missing (null, absent series) or negative. The direction is as the model gave it.
 */
export function readingAt(series: Series, prefix: string, i: number): { height: number; period: number; direction: number } | null {
  const height = series[`${prefix}_height`]?.[i];
  const period = series[`${prefix}_period`]?.[i];
  const direction = series[`${prefix}_direction`]?.[i];
  if (height == null || period == null || direction == null || height < 0 || period < 0) return null;
  return { height, period, direction };
}

/** Sorts components in place, largest energy first; Array.prototype.sort is stable, so equal energies keep SWELL_KINDS order. */
export function largestEnergyFirst(components: SwellComponent[]): SwellComponent[] {
  return components.sort((a, b) => swellEnergy(b) - swellEnergy(a));
}
