/** The spec's forecast shapes, plus the datum and station of the hours' tide heights (`TideReference`). */
import type { HourTide, TideReference } from "../tides/types";

export type WindDirectionType = "offshore" | "onshore" | "cross";

export interface Rating {
  beginner: number;
  intermediate: number;
  advanced: number;
}

export type Level = keyof Rating;

/** The best run of consecutive daylight hours for one level (forecast/best.ts). */
export interface BestWindow {
  /** First hour of the window, UTC. */
  start: string;
  /** End of the last hour of the window (exclusive), UTC. */
  end: string;
  rating: number;
}

export type DayBest = Record<Level, BestWindow | null>;

/** Open-Meteo Marine's wave components: primary, secondary and tertiary swell, and the wind sea. */
export type SwellKind = "primary" | "secondary" | "tertiary" | "wind";

export interface SwellComponent {
  kind: SwellKind;
  /** Significant height, m. */
  height: number;
  /** Period, s. */
  period: number;
  /** Direction the component comes from, integer degrees 0..359. */
  direction: number;
}

/** Breaking wave face height range at the beach, m (forecast/surf.ts, docs/ratings.md). */
export interface SurfRange {
  min: number;
  max: number;
}

export type ConfidenceLevel = "high" | "medium" | "low";

/** How far the wave models agree on an hour's wave height (forecast/consensus.ts, docs/forecast.md "Confidence"). */
export interface Confidence {
  level: ConfidenceLevel;
  /** Models with a wave height this hour. */
  models: number;
  /** Their wave heights, m; `median` is the hour's waveHeight. */
  waveHeight: { min: number; median: number; max: number };
}

/** Why a model's series was not used at a spot. */
export type LeftOutReason = "zero series" | "no data";

/** The wave models behind a document: those counted, and those left out at this spot with why. */
export interface ModelUse {
  used: string[];
  leftOut: Record<string, LeftOutReason>;
}

/** A grid cell an upstream answered from, and its great-circle distance from the spot. */
export interface GridCell {
  lat: number;
  lng: number;
  distanceKm: number;
}

export interface ForecastGrid {
  marine: GridCell;
  weather: GridCell;
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
  /** Beyond the spec: the wave components, largest energy first. Absent in documents stored before they existed. */
  swells?: SwellComponent[];
  /** Beyond the spec: the surf height range at the beach. Absent in documents stored before it existed. */
  surf?: SurfRange;
  /** Beyond the spec: the wave models' agreement this hour. Absent in documents stored before it existed. */
  confidence?: Confidence;
}

export interface DailyWeather {
  date: string;
  sunrise: string | null;
  sunset: string | null;
  uvIndexMax: number;
  /** Beyond the spec: per level, the best window of consecutive daylight hours that day (forecast/best.ts). */
  best?: DayBest;
}

export interface ForecastResponse extends Partial<TideReference> {
  spot: { id: string; name: string; country: string };
  units: "metric";
  updatedAt: string;
  attribution: string;
  /** Beyond the spec: present (true) only on synthetic demo data (serve --demo); the attribution says so too. */
  demo?: true;
  /** Beyond the spec: the wave models behind the hours. Absent in documents stored before it existed. */
  models?: ModelUse;
  /** Beyond the spec: the grid cells the upstreams answered from. Absent in documents stored before it existed. */
  grid?: ForecastGrid;
  hours: ForecastHour[];
  daily: DailyWeather[];
}

export const ATTRIBUTION =
  "Weather and marine inputs include data from Open-Meteo.com (https://open-meteo.com/), licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/).";
