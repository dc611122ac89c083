import { describe, expect, test } from "bun:test";
import { buildAlertEvent, eventBody, parseEventBody, type EventInput } from "./event";

const input: EventInput = {
  type: "alert.window",
  at: new Date("2026-11-26T18:00:00.000Z"),
  alert: { id: "alert_01", name: "Dawn" },
  spot: { id: "pipeline", name: "Pipeline", timezone: "Pacific/Honolulu" },
  window: {
    start: "2026-11-27T16:00:00Z",
    end: "2026-11-27T20:00:00Z",
    best: { time: "2026-11-27T18:00:00Z", waveHeight: 1.6, wavePeriod: 12, windSpeed: 9, windDirectionType: "offshore", rating: 4 },
  },
  publicUrl: "https://surf.example/",
};

describe("the webhook event", () => {
  test("the body: documented fields in a fixed order, the forecast link under the public URL", () => {
    expect(eventBody(buildAlertEvent(input))).toBe(
      '{"type":"alert.window","timestamp":"2026-11-26T18:00:00.000Z","alert":{"id":"alert_01","name":"Dawn"},' +
        '"spot":{"id":"pipeline","name":"Pipeline","timezone":"Pacific/Honolulu"},' +
        '"window":{"start":"2026-11-27T16:00:00Z","end":"2026-11-27T20:00:00Z","best":{"time":"2026-11-27T18:00:00Z",' +
        '"waveHeight":1.6,"wavePeriod":12,"windSpeed":9,"windDirectionType":"offshore","rating":4}},' +
        '"forecastUrl":"https://surf.example/v1/spots/pipeline/forecast"}',
    );
  });

  test("the same input gives the same bytes; extra properties of the caller's objects stay out", () => {
    const withExtras = {
      ...input,
      alert: { ...input.alert, secret: "whsec_x", ownerEmail: "a@b.c" },
      spot: { ...input.spot, lat: 21.6 },
    } as EventInput;
    expect(eventBody(buildAlertEvent(withExtras))).toBe(eventBody(buildAlertEvent(input)));
    expect(eventBody(buildAlertEvent(withExtras))).not.toContain("whsec_");
  });

  test("a stored body reads back; something else is refused", () => {
    const event = buildAlertEvent(input);
    expect(parseEventBody(eventBody(event))).toEqual(event);
    expect(() => parseEventBody('{"type":"other"}')).toThrow("not an alert event body");
  });
});
