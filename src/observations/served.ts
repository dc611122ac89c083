/**
 * The observations answer as served: its JSON in the units asked, kept while nothing in it changes (the buoy's
 * hours, its newest reading and its age in minutes, the forecast beside it), so a poller gets the same bytes
 * without the answer being converted and written again.
 */
import { BoundedMap } from "../core/bounded-map";
import type { Units } from "../core/units";
import type { HourObservation, ObservationsService, ObservedSpot } from "./service";
import { observationsIn } from "./units";

interface KeptBody {
  hours: readonly HourObservation[];
  stamp: string;
  body: string;
}

export class ServedObservations {
  /** ~9 KB of JSON each: ~18 MB at most, cleared when full. */
  private readonly kept = new BoundedMap<string, KeptBody>(2048);

  constructor(private readonly service: Pick<ObservationsService, "observations">) {}

  async body(spot: ObservedSpot, units: Units): Promise<string> {
    const answer = await this.service.observations(spot);
    const key = `${spot.id}\u0000${units}`;
    // The hours are kept by the service while the buoy's readings and the hour stay the same: their identity says so.
    const stamp = JSON.stringify([answer.buoy, answer.latest?.time, answer.latest?.ageMinutes, answer.forecast, answer.reason]);
    const kept = this.kept.get(key);
    if (kept && kept.hours === answer.hours && kept.stamp === stamp) return kept.body;
    const body = JSON.stringify(observationsIn(answer, units));
    this.kept.set(key, { hours: answer.hours, stamp, body });
    return body;
  }
}
