/** The event the delivery tests send: a four-hour window at Pipeline, its best hour with every figure. */
import { buildAlertEvent, type AlertEvent } from "../../../src/alerts/delivery/event";

export function sampleEvent(at: Date, alertId = "alert_01"): AlertEvent {
  return buildAlertEvent({
    type: "alert.window",
    at,
    alert: { id: alertId, name: "Dawn" },
    spot: { id: "pipe", name: "Pipeline", timezone: "Pacific/Honolulu" },
    window: {
      start: "2026-11-27T16:00:00Z",
      end: "2026-11-27T20:00:00Z",
      best: { time: "2026-11-27T18:00:00Z", waveHeight: 1.6, wavePeriod: 12, windSpeed: 9, windDirectionType: "offshore", rating: 4 },
    },
    publicUrl: "https://surf.example",
  });
}
