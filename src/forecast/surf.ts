/**
 * The surf height model: how big the waves break at the beach, from the wave components, the spot's facing and
 * the periods. Pure. Formulas, sources and what the model ignores: docs/ratings.md ("Surf height").
 */
import { breakingHeight, exposureFactor } from "./rating";
import type { SurfRange, SwellComponent } from "./types";

/**
 * The set waves: under the Rayleigh distribution of wave heights (Longuet-Higgins 1952) the mean of the highest
 * tenth is 1.27 × the significant height (the mean of the highest third).
 */
export const SET_FACTOR = 1.27;

export interface BreakingSea {
  /** Significant breaking height at the beach, m (all components together). */
  height: number;
  /** Period of the component that breaks biggest at the beach, s; 0 when nothing reaches it. */
  period: number;
}

/**
 * Per component, Komar & Gaughan's breaking height times the exposure factor of its direction; the components
 * combine as energies do (heights root-sum-square, as significant heights of spectral partitions add up).
 */
export function breakingSea(components: readonly SwellComponent[], facing: number | null): BreakingSea {
  let energy = 0;
  let biggest = 0;
  let period = 0;
  for (const c of components) {
    const hb = breakingHeight(c.height, c.period) * exposureFactor(c.direction, facing);
    if (!Number.isFinite(hb) || hb <= 0) continue;
    energy += hb * hb;
    if (hb > biggest) (biggest = hb), (period = c.period);
  }
  return { height: Math.sqrt(energy), period };
}

const tenth = (m: number) => Math.round(m * 10) / 10;

/** `{min, max}` in meters, 0.1 m steps: the significant breaking height and the set waves. */
export function surfRange(components: readonly SwellComponent[], facing: number | null): SurfRange {
  const { height } = breakingSea(components, facing);
  return { min: tenth(height), max: tenth(height * SET_FACTOR) };
}
