/**
 * Realistic examples for the OpenAPI document (src/http/openapi.ts): one body per operation's 200 and per error
 * response. The 200 bodies are real answers of this server (shortened to one hour, one day, one or two spots),
 * with the spots renamed to invented ones (the catalog's data is not ours to publish).
 * test/http/openapi-examples.test.ts checks each against its schema.
 */
import { ATTRIBUTION } from "../forecast/types";
import { NOW_ATTRIBUTION } from "../now/service";
import type { OperationId } from "../core/endpoints";
import { USAGE_KEYS } from "../core/endpoints";
import { ATTRIBUTION as NDBC_ATTRIBUTION } from "../observations/service";
import { ATTRIBUTION as CLIMATE_ATTRIBUTION } from "../climate/service";

/** A forecast hour (also the current hour of the spot now). */
const FORECAST_HOURS = [
  {
    "time": "2026-11-23T23:00:00Z",
    "waveHeight": 2.14,
    "swellHeight": 1.83,
    "wavePeriod": 15.37,
    "waveDirection": 266,
    "windSpeed": 12.8,
    "windDirection": 171,
    "windGust": 16.7,
    "windDirectionType": "cross",
    "airTemperature": 8.6,
    "waterTemperature": 11.4,
    "weatherCode": 0,
    "tide": { "height": 2.199, "state": "rising" },
    "rating": { "beginner": 1, "intermediate": 1, "advanced": 5 },
    "swells": [
      { "kind": "primary", "height": 1.83, "period": 15.37, "direction": 266 },
      { "kind": "secondary", "height": 1, "period": 12.62, "direction": 347 },
      { "kind": "wind", "height": 0.15, "period": 3.24, "direction": 46 }
    ],
    "surf": { "min": 2.9, "max": 3.6 },
    "confidence": { "level": "high", "models": 3, "waveHeight": { "min": 1.98, "median": 2.14, "max": 2.37 } }
  }
];

/** One spot now (the answer of getSpotNow, and each of getNow's). */
const NOW_EXAMPLE = {
  "spot": { "id": "praia-azul", "name": "Praia Azul", "country": "Portugal", "timezone": "Europe/Lisbon" },
  "time": "2026-11-23T23:40:00Z",
  "updatedAt": "2026-11-23T23:37:33Z",
  "units": "metric",
  conditions: FORECAST_HOURS[0],  "tide": {
    "height": 2.601,
    "state": "rising",
    "datum": "LAT",
    "station": { "id": "ticon/cascais-209-prt-uhslc_fd", "name": "Cascais", "distanceKm": 72.7, "source": "TICON-4" },
    "nextHigh": { "time": "2026-11-24T01:37:00Z", "height": 3.202 },
    "nextLow": { "time": "2026-11-24T07:46:00Z", "height": 0.492 },
    "nextEvent": { "type": "high", "time": "2026-11-24T01:37:00Z", "height": 3.202, "minutesUntil": 117 }
  },
  "sun": { "sunrise": "2026-11-24T07:46:00Z", "sunset": "2026-11-24T17:29:00Z", "daylight": false },
  "attribution": NOW_ATTRIBUTION
};

const BUOY_EXAMPLE = { "id": "51201", "name": "Waimea Bay, HI (106)", "lat": 21.671, "lng": -158.118, "distanceKm": 6.8, "owner": "Pacific Islands Ocean Observing System" };

/** A partner wave buoy's reading: no wind or air sensors. */
const BUOY_READING = {
  "waveHeight": 2.1, "dominantPeriod": 14, "averagePeriod": 9.2, "waveDirection": 310, "swellHeight": 1.9, "swellPeriod": 14.3, "swellDirection": 315,
  "windWaveHeight": 0.6, "windWavePeriod": 5.9, "windSpeed": null, "windGust": null, "windDirection": null, "waterTemperature": 25.4, "airTemperature": null, "pressure": null,
};

export const OK_EXAMPLES: Record<OperationId, unknown> = {
  "searchSpots": [
    { "id": "praia-azul", "name": "Praia Azul", "country": "Portugal", "region": "Costa Exemplo", "lat": 39.34, "lng": -9.36, "hexId": "3f9a1c52e07b6d48", "facing": 242.5, "tideless": false, "timezone": "Europe/Lisbon" }
  ],
  "spotsNearby": [
    { "id": "molhe-norte", "name": "Molhe Norte", "country": "Portugal", "region": "Costa Exemplo", "lat": 39.35, "lng": -9.37, "hexId": "b2d4e6f8a0c1e3f5", "facing": 242.5, "tideless": false, "timezone": "Europe/Lisbon", "distanceKm": 0.193 },
    { "id": "praia-azul", "name": "Praia Azul", "country": "Portugal", "region": "Costa Exemplo", "lat": 39.34, "lng": -9.36, "hexId": "3f9a1c52e07b6d48", "facing": 242.5, "tideless": false, "timezone": "Europe/Lisbon", "distanceKm": 0.745 }
  ],
  "bestSpots": [
    {
      "spot": { "id": "praia-da-areia", "name": "Praia da Areia", "country": "Portugal", "region": "Costa Exemplo", "lat": 39.36, "lng": -9.37, "hexId": "5c7e9a1b3d5f7092", "facing": 355, "tideless": false, "timezone": "Europe/Lisbon", "distanceKm": 1.423 },
      "rating": 5,
      "best": { "start": "2026-11-24T08:00:00Z", "end": "2026-11-24T09:00:00Z", "rating": 5 },
      "surf": { "min": 1.3, "max": 1.7 },
      "units": "metric",
      "windDirectionType": "offshore",
      "confidence": "high"
    }
  ],
  "getSpot": {
    "id": "praia-azul",
    "name": "Praia Azul",
    "country": "Portugal",
    "region": "Costa Exemplo",
    "lat": 39.34,
    "lng": -9.36,
    "hexId": "3f9a1c52e07b6d48",
    "facing": 242.5,
    "tideless": false,
    "timezone": "Europe/Lisbon",
    "guide": {
      "offshoreWind": { "from": 17.5, "to": 107.5, "method": "facing + 180° ± 45°: the sector the forecast rates as offshore wind" },
      "swellWindow": { "from": 152.5, "to": 332.5, "method": "facing ± 90°: the swell directions the surf model lets reach the beach (exposure √cos θ > 0)" },
      "tideStation": {
        "id": "ticon/cascais-209-prt-uhslc_fd",
        "name": "Cascais",
        "distanceKm": 72.7,
        "method": "the tide station the spot's tides come from: the nearest representative station within 200 km (docs/tides.md)"
      }
    }
  },
  "getForecast": {
    "spot": { "id": "praia-azul", "name": "Praia Azul", "country": "Portugal" },
    "units": "metric",
    "updatedAt": "2026-11-23T23:37:33Z",
    "attribution": ATTRIBUTION,
    "datum": "LAT",
    "station": { "id": "ticon/cascais-209-prt-uhslc_fd", "name": "Cascais", "distanceKm": 72.7, "source": "TICON-4" },
    "models": { "used": ["meteofrance_wave", "ecmwf_wam025", "gwam"], "leftOut": { "ncep_gfswave025": "zero series" } },
    "grid": { "marine": { "lat": 39.375, "lng": -9.375, "distanceKm": 3.4 }, "weather": { "lat": 39.35, "lng": -9.35, "distanceKm": 1.3 } },
    hours: FORECAST_HOURS,
    "daily": [
      {
        "date": "2026-11-23",
        "sunrise": "2026-11-23T07:45:00Z",
        "sunset": "2026-11-23T17:30:00Z",
        "uvIndexMax": 3.76,
        "best": {
          "beginner": null,
          "intermediate": { "start": "2026-11-23T08:00:00Z", "end": "2026-11-23T11:00:00Z", "rating": 4 },
          "advanced": { "start": "2026-11-23T08:00:00Z", "end": "2026-11-23T13:00:00Z", "rating": 5 }
        }
      }
    ]
  },
  "getTides": {
    "spot": { "id": "praia-azul", "name": "Praia Azul" },
    "units": "metric",
    "extremes": [
      { "type": "high", "time": "2026-11-24T01:37:00Z", "height": 3.202 },
      { "type": "low", "time": "2026-11-24T07:46:00Z", "height": 0.492 },
      { "type": "high", "time": "2026-11-24T13:59:00Z", "height": 3.174 },
      { "type": "low", "time": "2026-11-24T20:06:00Z", "height": 0.467 }
    ],
    "datum": "LAT",
    "station": { "id": "ticon/cascais-209-prt-uhslc_fd", "name": "Cascais", "distanceKm": 72.7, "source": "TICON-4" },
    "source": { "type": "station", "id": "ticon/cascais-209-prt-uhslc_fd", "name": "Cascais", "distanceKm": 72.7, "provider": "TICON-4" },
    "tidelessReason": null,
    "unavailable": null,
    "tideless": false
  },
  getSpotNow: NOW_EXAMPLE,
  getNow: { spots: [NOW_EXAMPLE] },
  getObservations: {
    "spot": { "id": "praia-azul", "name": "Praia Azul", "timezone": "Pacific/Honolulu" },
    "buoy": BUOY_EXAMPLE,
    "latest": { "time": "2026-11-21T12:50:00Z", "ageMinutes": 15, ...BUOY_READING },
    "forecast": { "time": "2026-11-21T13:00:00Z", "waveHeight": 1.9 },
    "hours": [{ "time": "2026-11-21T12:00:00Z", ...BUOY_READING }],
    "reason": null,
    "units": "metric",
    "attribution": NDBC_ATTRIBUTION,
  },
  getVerification: {
    "spot": { "id": "praia-azul", "name": "Praia Azul", "timezone": "Pacific/Honolulu" },
    "buoy": BUOY_EXAMPLE,
    "from": "2026-10-22T13:00:00Z",
    "to": "2026-11-21T13:00:00Z",
    "models": [
      { "model": "ecmwf_wam025", "n": 702, "bias": 0.12, "biasPercent": 6.1, "rmse": 0.31, "scatterIndex": 0.14 },
      { "model": "ncep_gfswave025", "n": 702, "bias": 0.27, "biasPercent": 13.7, "rmse": 0.42, "scatterIndex": 0.16 },
    ],
    "served": { "n": 702, "bias": 0.19, "biasPercent": 9.6, "rmse": 0.35, "scatterIndex": 0.14 },
    "best": "ecmwf_wam025",
    "byLeadDay": [],
    "reason": null,
  },
  getClimate: climateExample(),
  getUsage: usageExample(),
};

/** 30 UTC days, today last: a key used over the last few days. */
/** A west-facing beach of the North Atlantic: big winters for the advanced, small summers for beginners. */
function climateExample() {
  const median = [2.6, 2.5, 2.1, 1.8, 1.4, 1.1, 0.9, 1.0, 1.4, 1.9, 2.3, 2.6];
  const good = { beginner: [0.05, 0.06, 0.1, 0.2, 0.35, 0.52, 0.61, 0.58, 0.3, 0.12, 0.06, 0.04], intermediate: [0.3, 0.33, 0.45, 0.55, 0.5, 0.38, 0.3, 0.32, 0.52, 0.48, 0.36, 0.3], advanced: [0.7, 0.68, 0.6, 0.45, 0.3, 0.15, 0.08, 0.1, 0.35, 0.55, 0.66, 0.71] };
  const rose = (m: number) => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0.01, 0.03, 0.12, m < 5 || m > 9 ? 0.52 : 0.39, m < 5 || m > 9 ? 0.27 : 0.4, 0.04, 0.01];
  const months = median.map((p50, i) => ({
    month: i + 1,
    waveHeight: { p10: Math.round(p50 * 45) / 100, p25: Math.round(p50 * 70) / 100, p50, p75: Math.round(p50 * 135) / 100, p90: Math.round(p50 * 175) / 100 },
    wavePeriod: { p50: Math.round((8 + p50 * 1.5) * 100) / 100 },
    waveDirection: { dominant: i + 1 < 5 || i + 1 > 9 ? 270 : 292.5, rose: rose(i + 1) },
    windSpeed: { p50: Math.round((14 + Math.abs(6.5 - i) * 1.5) * 10) / 10 },
    offshoreShare: i + 1 < 5 || i + 1 > 9 ? 0.34 : 0.21,
    goodDays: { beginner: good.beginner[i], intermediate: good.intermediate[i], advanced: good.advanced[i] },
  }));
  return {
    spot: { id: "praia-azul", name: "Praia Azul" },
    source: { model: "era5_ocean", cell: { lat: 39.5, lng: -9.5, distanceKm: 20.9 }, years: { from: 2016, to: 2025 } },
    months,
    bestMonths: { beginner: [6, 7, 8], intermediate: [3, 4, 5, 9, 10], advanced: [1, 2, 3, 11, 12] },
    units: "metric",
    attribution: CLIMATE_ATTRIBUTION,
  };
}

function usageExample() {
  const today = Date.UTC(2026, 10, 24);
  const totals = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 120, 95, 180, 142, 8];
  const days = totals.map((total, i) => {
    // Every counted endpoint (a new one is listed without a change here); the day's requests spread over four.
    const byEndpoint: Record<string, number> = Object.fromEntries(USAGE_KEYS.map((name) => [name, 0]));
    Object.assign(byEndpoint, { "spots.search": Math.floor(total / 6), forecast: Math.floor(total / 2), tides: Math.floor(total / 6) });
    byEndpoint.now = total - byEndpoint["spots.search"]! - byEndpoint.forecast! - byEndpoint.tides!;
    return { date: new Date(today - (29 - i) * 86_400_000).toISOString().slice(0, 10), total, byEndpoint };
  });
  return { plan: "scale", limit: 25_000, today: 8, days };
}

const error = (code: string, message: string) => ({ error: { code, message } });

/** By the shared error responses' names (openapi.ts RESPONSES). */
export const ERROR_EXAMPLES = {
  BadRequest: error("invalid_request", "Parameter 'days' must be an integer from 1 to 7."),
  Unauthorized: error("invalid_key", "Unknown or revoked API key."),
  SpotNotFound: error("not_found", "No spot with id 'nowhere'."),
  ForecastNotFound: error("no_forecast", "No forecast for spot 'praia-azul' yet; the next refresh will fetch it."),
  RateLimited: error("rate_limited", "Per-minute burst limit exceeded. Retry after 12 s."),
  InternalError: error("internal", "Internal server error. The failure was logged; please retry later."),
  ClimateUnavailable: error("climate_unavailable", "The climate could not be fetched from Open-Meteo (/v1/marine: HTTP 429: Daily API request limit exceeded. Please try again tomorrow.); it is tried again in 60 s."),
  Unavailable: error("internal", "The service is briefly unavailable (its database or its counters do not answer); please retry in a few seconds."),
} as const;
