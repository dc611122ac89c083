/**
 * The MCP tools: a second adapter over the same service calls as /v1, with the same strict parsers. Each tool
 * returns the /v1 response JSON twice — as text (byte-for-byte the /v1 body, bare arrays included) and as
 * structuredContent (an object, so the list tools wrap their array as {spots: [...]}).
 */
import type { z } from "zod";
import type { App } from "../app";
import { ApiError, invalidRequest } from "../core/errors";
import { parseBestSpotsParams, parseDaysParams, parseNearbyParams, parseSearchParams, parseSummaryParams } from "../core/params";
import { summaryText } from "../forecast/summary";
import {
  bestSpotsInput,
  bestSpotsOutput,
  forecastOutput,
  nearbyInput,
  nearbyListOutput,
  nowOutput,
  searchInput,
  spotDaysInput,
  spotListOutput,
  spotNowInput,
  surfSummaryInput,
  surfSummaryOutput,
  tidesOutput,
} from "./schemas";
import { parseNowParams } from "../now/params";
import { nowSummary } from "../now/summary";

export interface ToolOutput {
  /** The /v1 response body. */
  text: string;
  structured: Record<string, unknown>;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  /** Async where it may wait for a spot's first forecast (the refresh scope `requested`, forecast/demand.ts). */
  run(app: App, args: Record<string, unknown>): ToolOutput | Promise<ToolOutput>;
}

/**
 * Runs a shared /v1 parser and names the MCP argument in its messages where the two names differ
 * (the parser knows `q` and `radius`; an MCP client sent `query` and `radius_km`).
 */
function parseAs<T>(parse: () => T, renames: Record<string, string>): T {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    let message = err.message;
    for (const [v1Name, mcpName] of Object.entries(renames)) message = message.replaceAll(`'${v1Name}'`, `'${mcpName}'`);
    throw new ApiError(err.code, message);
  }
}

function parseSpotId(value: unknown): string {
  if (value === undefined || value === null) throw invalidRequest("Parameter 'spot_id' is required.");
  if (typeof value !== "string" || value.trim() === "") {
    throw invalidRequest("Parameter 'spot_id' must be a spot id string (a slug or 16-hex id from search_spots or spots_nearby).");
  }
  return value.trim();
}

const UNITS = "Units are metric (m, km, km/h, °C, s, degrees); times are UTC ISO 8601.";

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "search_spots",
    title: "Search surf spots",
    description:
      "Find surf spots by name, alias, country, region or a town within 10 km (case- and accent-insensitive), best match first. " +
      "Use it first whenever the user names a spot, beach, town or country, to get the spot id that get_forecast " +
      "and get_tides need. Returns {spots: [...]}, each with id, name, country, region and lat/lng in decimal degrees.",
    input: searchInput,
    output: spotListOutput,
    async run(app, args) {
      const params = parseAs(() => parseSearchParams({ q: args.query, limit: args.limit }), { q: "query" });
      const spots = app.spots.search(params);
      return { text: JSON.stringify(spots), structured: { spots } };
    },
  },
  {
    name: "spots_nearby",
    title: "Surf spots near a position",
    description:
      "Surf spots within radius_km of a coordinate, closest first. Use it when the user gives a place or position " +
      "rather than a spot name (resolve the place to lat/lng yourself), or asks what else is nearby. " +
      "Returns {spots: [...]}, each with id, name, country, region, lat/lng (decimal degrees) and distanceKm (km).",
    input: nearbyInput,
    output: nearbyListOutput,
    async run(app, args) {
      const params = parseAs(() => parseNearbyParams({ lat: args.lat, lng: args.lng, radius: args.radius_km, limit: args.limit }), { radius: "radius_km" });
      const spots = app.spots.nearby(params);
      return { text: JSON.stringify(spots), structured: { spots } };
    },
  },
  {
    name: "get_forecast",
    title: "Surf forecast for a spot",
    description:
      "Hourly surf forecast for one spot from the current UTC hour forward (up to 7 days; refreshed twice a day). " +
      "Use it for 'is it good to surf', 'when is the best session' or wave/wind questions. Each hour has waveHeight " +
      "and swellHeight (m), wavePeriod (s), waveDirection and windDirection (degrees, coming from), windSpeed and " +
      "windGust (km/h), windDirectionType (offshore/onshore/cross), air and water temperature (°C), WMO weatherCode, " +
      "tide (height in m, rising/falling; null for tideless spots) and a rating 1..5 (5 best) for beginner, " +
      "intermediate and advanced surfers; daily has sunrise/sunset and max UV index. " +
      `${UNITS} Fails with no_forecast when the spot has no forecast yet.`,
    input: spotDaysInput,
    output: forecastOutput,
    async run(app, args) {
      const spotId = parseSpotId(args.spot_id);
      const { days } = parseDaysParams({ days: args.days });
      await app.demand.ready([spotId]);
      const served = app.forecasts.get(spotId, days);
      return { text: served.body, structured: JSON.parse(served.body) as Record<string, unknown> };
    },
  },
  {
    name: "get_tides",
    title: "Tide times for a spot",
    description:
      "High and low tides for one spot from now forward (up to 7 days): type (high/low), time and height in meters " +
      "above the chart datum named in `datum`, plus the tide station used. Use it for tide timing questions; " +
      "get_forecast already carries an hourly tide height. Tideless spots return tideless: true and no extremes. " +
      UNITS,
    input: spotDaysInput,
    output: tidesOutput,
    run(app, args) {
      const spotId = parseSpotId(args.spot_id);
      const { days } = parseDaysParams({ days: args.days });
      const tides = app.tides.get(spotId, days);
      return { text: JSON.stringify(tides), structured: { ...tides } };
    },
  },
  {
    name: "spot_now",
    title: "Surf and tide at a spot right now",
    description:
      "The current state at one spot in a sentence: waves (or the surf range), swell, wind and its direction relative to the shore, " +
      "rating 1..5 per level, water temperature, the tide now (height above its datum, rising or falling) with the next high and low " +
      "in local time and how long until the next turn, and daylight. Use it for 'how is it now' questions; get_forecast for later hours. " +
      "The structured result is the JSON of GET /v1/spots/{id}/now (times UTC). units: metric (default) or imperial (ft, mph, °F).",
    input: spotNowInput,
    output: nowOutput,
    async run(app, args) {
      const spotId = parseSpotId(args.spot_id);
      const { units } = parseNowParams({ units: args.units });
      await app.demand.ready([spotId]);
      const { response } = app.now.get(spotId, units);
      return { text: nowSummary(response), structured: { ...response } };
    },
  },
  {
    name: "best_spots",
    title: "Where to surf now",
    description:
      "Surf spots within radius_km of a coordinate ranked by how good they get for a surfer level over the next hours: " +
      "each with its best window of consecutive daylight hours (start, end, rating 1..5), the surf height range over it " +
      "(breaking face height at the beach, m) and the wind type. Use it for 'where should I surf today/tomorrow near X' " +
      "(resolve the place to lat/lng yourself). Spots without a forecast are left out. Returns {spots: [...]}. " +
      UNITS,
    input: bestSpotsInput,
    output: bestSpotsOutput,
    async run(app, args) {
      const params = parseAs(
        () => parseBestSpotsParams({ lat: args.lat, lng: args.lng, radius: args.radius_km, level: args.level, hours: args.hours, limit: args.limit }),
        { radius: "radius_km" },
      );
      await app.demand.ready(app.bestSpots.candidates(params));
      const spots = app.bestSpots.find(params);
      return { text: JSON.stringify(spots), structured: { spots } };
    },
  },
  {
    name: "surf_summary",
    title: "Surf summary for a spot",
    description:
      "A compact day-by-day surf outlook for one spot (up to 7 days, a few hundred tokens instead of the hourly forecast): " +
      "per day the surf height range (m) and wind (km/h, offshore/onshore/cross) over the daylight hours, the best window " +
      "per surfer level (rating 1..5 with start-end), high and low tides, sunrise and sunset. Prefer it over get_forecast " +
      "to answer 'how will the surf be this week' or 'when should I go'. Times are HH:MM UTC; the spot's local time zone is named. " +
      "Fails with no_forecast when the spot has no forecast yet.",
    input: surfSummaryInput,
    output: surfSummaryOutput,
    async run(app, args) {
      const spotId = parseSpotId(args.spot_id);
      const { days, level } = parseSummaryParams({ days: args.days, level: args.level });
      await app.demand.ready([spotId]);
      const summary = app.summaries.get(spotId, days, level);
      return { text: summaryText(summary), structured: { ...summary } };
    },
  },
];
