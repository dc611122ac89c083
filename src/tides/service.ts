/**
 * Serving stored tide extremes. STUB — filled in by the tides issue (#5).
 */
import type { Db } from "../db";
import type { Clock } from "../core/clock";
import type { SpotService } from "../spots/service";
import type { TidesResponse } from "./types";
import type { HourTide } from "../forecast/types";

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

  /**
   * Predicted tide at each of `times` (epoch ms) for a spot, with rising/falling from the predicted curve;
   * null for every hour of a tideless spot. Used when the forecast refresh assembles documents.
   */
  hourly(_spotId: string, times: number[]): (HourTide | null)[] {
    return times.map(() => null);
  }
}
