/** The shapes of GET /v1/spots/{id}/now and GET /v1/now (beyond the spec). */
import { dateTime, forMcp, integer, nullable, ref, stringEnum, t, type Static } from "../core/shapes";
import { ForecastHourSchema } from "../forecast/types";
import { NowSunSchema } from "../forecast/sun";
import { TideStationSchema } from "../tides/types";
import { UNITS } from "../core/units";
import { CurrentObservationSchema } from "../observations/types";

const nowExtreme = (description: string) =>
  t.Object({ time: dateTime(), height: t.Number({ description: "Meters (feet with `units=imperial`) above the datum." }) }, { description });

export const NowTideSchema = t.Object(
  {
    height: t.Number({ description: "Height at this minute from the station's harmonic prediction, meters (feet with `units=imperial`) above `datum`; between the extremes around it." }),
    state: stringEnum(["rising", "falling"] as const, { description: "Toward `nextEvent`: rising when it is a high." }),
    datum: nullable(t.String({ description: "Chart datum the heights are above (for example MLLW or LAT)." })),
    station: nullable(ref("TideStation", TideStationSchema)),
    nextHigh: nowExtreme("The first high water at or after `time`: the first high that `/tides` lists."),
    nextLow: nowExtreme("The first low water at or after `time`."),
    nextEvent: t.Object(
      {
        type: stringEnum(["high", "low"] as const),
        time: dateTime(),
        height: t.Number({ description: "Meters (feet with `units=imperial`)." }),
        minutesUntil: integer({ minimum: 0, description: "Whole minutes from `time` to the turn; 0 during the minute of the turn." }),
      },
      { description: "The next turn of the tide: `nextHigh` or `nextLow`, whichever comes first." },
    ),
  },
  { description: "The tide at this minute. null for tideless spots." },
);

export const NowResponseSchema = t.Object(
  {
    spot: t.Object({
      id: t.String(),
      name: t.String(),
      country: t.String(),
      timezone: t.String({ description: "IANA time zone at the spot (for showing local times; every time here is UTC)." }),
    }),
    time: dateTime("The minute this answer describes, UTC (seconds are always 00)."),
    updatedAt: nullable(dateTime("When the forecast document was refreshed; null when the spot has none yet.")),
    units: stringEnum(UNITS, { description: "As asked with `units`." }),
    conditions: forMcp(nullable(ref("ForecastHour", ForecastHourSchema)), { description: "The current hour, in `units`; null without a forecast." }),
    tide: nullable(ref("NowTide", NowTideSchema)),
    sun: nullable(ref("NowSun", NowSunSchema)),
    observation: t.Optional(CurrentObservationSchema),
    attribution: t.String({ description: "Credits Open-Meteo as the source of the weather inputs, under CC BY 4.0. Show it with the data." }),
    demo: t.Optional(t.Literal(true, { description: "Beyond the spec: present only on synthetic demo data (`surfcast serve --demo`); the attribution then says so." })),
  },
  {
    description:
      "The current state at one spot, from stored data. `conditions` is the forecast hour of the current UTC hour as stored (null when the spot has no forecast, or its horizon has passed), in `units`; `sun` is null without a forecast.",
  },
);

export const NowManyResponseSchema = t.Object(
  { spots: t.Array(ref("NowResponse", NowResponseSchema), { description: "One answer per spot asked, in the order asked." }) },
  { description: "The current state at several spots." },
);

export type NowTide = Static<typeof NowTideSchema>;
export type NowResponse = Static<typeof NowResponseSchema>;
export type NowManyResponse = Static<typeof NowManyResponseSchema>;
