/** The spec's forecast shapes, plus the datum and station of the hours' tide heights (`TideReference`). */
import type { TideReference } from "../tides/types";

export type WindDirectionType = "offshore" | "onshore" | "cross";

export interface Rating {
  beginner: number;
  intermediate: number;
  advanced: number;
}

export interface HourTide {
  height: number;
  state: "rising" | "falling";
}

export interface ForecastHour {
  time: string;
  waveHeight: number;
  swellHeight: number;
  wavePeriod: number;
  waveDirection: number;
  windSpeed: number;
  windDirection: number;
  windGust: number;
  windDirectionType: WindDirectionType | null;
  airTemperature: number;
  waterTemperature: number;
  weatherCode: number;
  tide: HourTide | null;
  rating: Rating;
}

export interface DailyWeather {
  date: string;
  sunrise: string | null;
  sunset: string | null;
  uvIndexMax: number;
}

export interface ForecastResponse extends Partial<TideReference> {
  spot: { id: string; name: string; country: string };
  units: "metric";
  updatedAt: string;
  attribution: string;
  hours: ForecastHour[];
  daily: DailyWeather[];
}

export const ATTRIBUTION =
  "Weather and marine inputs include data from Open-Meteo.com (https://open-meteo.com/), licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/).";
