/** The shapes of GET /v1/spots/{id}/now and GET /v1/now (beyond the spec). */
import type { ForecastHour } from "../forecast/types";
import type { SunNow } from "../forecast/sun";
import type { TideStationInfo } from "../tides/types";
import type { Units } from "./units";

export interface NowExtreme {
  time: string;
  height: number;
}

export interface NowTide {
  height: number;
  state: "rising" | "falling";
  datum: string | null;
  station: TideStationInfo | null;
  nextHigh: NowExtreme;
  nextLow: NowExtreme;
  nextEvent: NowExtreme & { type: "high" | "low"; minutesUntil: number };
}

export interface NowResponse {
  spot: { id: string; name: string; country: string; timezone: string };
  /** The minute described, UTC. */
  time: string;
  /** When the forecast document was refreshed; null without one. */
  updatedAt: string | null;
  units: Units;
  conditions: ForecastHour | null;
  tide: NowTide | null;
  sun: SunNow | null;
  attribution: string;
  /** Beyond the spec: present (true) only on synthetic demo data (serve --demo). */
  demo?: true;
}

export interface NowManyResponse {
  spots: NowResponse[];
}
