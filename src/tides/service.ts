/**
 * Serving stored tide extremes. STUB — filled in by the tides issue (#5).
 */
import type { Db } from "../db";
import type { Clock } from "../core/clock";
import type { SpotService } from "../spots/service";
import type { TidesResponse } from "./types";

export class TideService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly spots: SpotService,
  ) {}

  /** Throws `not_found` for an unknown spot. */
  get(spotId: string, _days: number): TidesResponse {
    const spot = this.spots.get(spotId);
    return { spot: { id: spot.id, name: spot.name }, units: "metric", extremes: [], tideless: true, datum: null, station: null };
  }
}
