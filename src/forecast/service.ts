/**
 * Serving stored forecast documents. STUB — filled in by the forecast issue (#6).
 */
import type { Db } from "../db";
import type { Clock } from "../core/clock";
import { ApiError } from "../core/errors";
import type { SpotService } from "../spots/service";

export interface ServedForecast {
  /** The ForecastResponse JSON, serialized. */
  body: string;
  etag: string;
  /** Seconds until the next UTC hour, when the served window moves. */
  maxAgeSeconds: number;
}

export class ForecastService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly spots: SpotService,
  ) {}

  /** Throws `not_found` for an unknown spot and `no_forecast` when it has no document yet. */
  get(spotId: string, _days: number): ServedForecast {
    const spot = this.spots.get(spotId);
    throw new ApiError("no_forecast", `No forecast for spot '${spot.id}' yet.`);
  }
}
