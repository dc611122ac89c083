/**
 * The MCP tools: a second adapter over the same service calls as /v1, with the same strict parsers. Each tool
 * returns the /v1 response JSON as structuredContent (an object, so the list tools wrap their array as
 * {spots: [...]}) and, as text, a compact view of it for a model to read (text.ts): at most 16 KB for any
 * argument, where a 7-day forecast's JSON is ~95 KB. Data made by `serve --demo` says DEMO DATA on its text's
 * first line.
 */
import type { z } from "zod";
import type { App } from "../app";
import { ApiError, invalidRequest } from "../core/errors";
import { parseBestSpotsParams, parseDaysParams, parseNearbyParams, parseSearchParams, parseSummaryParams, parseUnitsParams } from "../core/params";
import { climateIn } from "../climate/units";
import { climateUnavailable } from "../climate/service";
import { DEMO_ATTRIBUTION } from "../forecast/demo";
import { summaryText } from "../forecast/summary";
import type { ForecastResponse } from "../forecast/types";
import {
  bestSpotsInput,
  bestSpotsOutput,
  forecastOutput,
  nearbyInput,
  nearbyListOutput,
  nowOutput,
  observationsOutput,
  searchInput,
  spotDaysInput,
  spotListOutput,
  spotNowInput,
  surfSummaryInput,
  surfSummaryOutput,
  tidesOutput,
  listAlertsInput,
  listAlertsOutput,
  climateOutput,
} from "./schemas";
import { alertsText, bestSpotsText, climateText, forecastText, nearbyText, observationsText, searchText, tidesText, withDemoBanner } from "./text";
import { observationsIn } from "../observations/units";
import { tidesIn } from "../tides/units";
import { nowSummary } from "../now/summary";
import { localMonth, seasonClause } from "../climate/season";
import type { Level } from "../forecast/types";
import type { McpToolName } from "../core/endpoints";
import type { Principal } from "../access/registry";
import type { AlertService } from "../alerts/service";

/** What a call knows beyond its arguments: the calling key, and the alerts service (null where it is not wired). */
export interface ToolContext {
  principal: Principal;
  alerts: Pick<AlertService, "listForKey"> | null;
}

export interface ToolOutput {
  /** What a model reads: a compact view of `structured`, at most TEXT_LIMIT bytes (text.ts). */
  text: string;
  /** The /v1 response JSON (the list tools' arrays as {spots: [...]}). */
  structured: Record<string, unknown>;
}

export interface ToolDefinition {
  name: McpToolName;
  title: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  /** Async where it may wait for a spot's first forecast (the refresh scope `requested`, forecast/demand.ts). */
  run(app: App, args: Record<string, unknown>, context: ToolContext): ToolOutput | Promise<ToolOutput>;
}

/**
 * The clause on the spot's season at `at` for these levels, when the month is among their best and the spot's
 * climate is already in memory: a lookup, never a fetch (climate/service.ts, knownBestMonths).
 */
function seasonAt(app: App, spotId: string, at: number, levels?: readonly Level[]): string | null {
  const spot = app.spots.get(spotId);
  return seasonClause(app.climate.knownBestMonths(spot), localMonth(at, spot.timezone), levels);
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

/** Whether a tool's data is synthetic: a demo server's (serve --demo), or a document made from demo data. */
const isDemo = (app: App, data: { demo?: boolean; attribution?: string }) => app.config.demo || data.demo === true || data.attribution === DEMO_ATTRIBUTION;

const STRUCTURED = "structuredContent is the /v1 JSON";

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "search_spots",
    title: "Search surf spots",
    description:
      "Find surf spots by name, alias, country, region or a town within 10 km (any case and accents), best match first. " +
      "Call it first when the user names a spot, beach, town or country, for the spot_id other tools need. " +
      `Text: a line per spot; ${STRUCTURED} as {spots: [...]}.`,
    input: searchInput,
    output: spotListOutput,
    async run(app, args) {
      const params = parseAs(() => parseSearchParams({ q: args.query, limit: args.limit }), { q: "query" });
      const spots = app.spots.search(params);
      return { text: searchText(params.q, spots), structured: { spots } };
    },
  },
  {
    name: "spots_nearby",
    title: "Surf spots near a position",
    description:
      "Surf spots within radius_km of a coordinate, closest first: when the user gives a place (resolve it to lat/lng " +
      "yourself) or asks what is nearby. " +
      `Text: a line per spot with its distance; ${STRUCTURED} as {spots: [...]}.`,
    input: nearbyInput,
    output: nearbyListOutput,
    async run(app, args) {
      const params = parseAs(() => parseNearbyParams({ lat: args.lat, lng: args.lng, radius: args.radius_km, limit: args.limit }), { radius: "radius_km" });
      const spots = app.spots.nearby(params);
      return { text: nearbyText(params, spots), structured: { spots } };
    },
  },
  {
    name: "get_forecast",
    title: "Surf forecast for a spot",
    description:
      "Surf forecast for one spot from the current hour: 'is it good to surf', 'when is the best session'. " +
      "Text (local times): per day sun, weather, the best window per level (rating 1..5) and tides; per daylight hour " +
      `surf, swell, wind, ratings, tide. ${STRUCTURED}: every hour, times UTC. For a week in brief use surf_summary. ` +
      "Fails with no_forecast when the spot has no forecast yet.",
    input: spotDaysInput,
    output: forecastOutput,
    async run(app, args) {
      const spotId = parseSpotId(args.spot_id);
      const { days, units } = parseDaysParams({ days: args.days, units: args.units });
      await app.demand.ready([spotId]);
      const served = await app.forecasts.get(spotId, days, units);
      const forecast = JSON.parse(served.body) as ForecastResponse;
      const spot = app.spots.get(spotId);
      const text = forecastText({ ...forecast, demo: isDemo(app, forecast) || undefined }, spot, tidesIn(await app.tides.get(spot.id, days), units));
      return { text, structured: forecast as unknown as Record<string, unknown> };
    },
  },
  {
    name: "get_tides",
    title: "Tide times for a spot",
    description:
      "High and low tides for one spot from now: local times, heights above the datum named, their source (station or " +
      "sea-level model). Tideless spots say so. " +
      `${STRUCTURED} (times UTC).`,
    input: spotDaysInput,
    output: tidesOutput,
    async run(app, args) {
      const spotId = parseSpotId(args.spot_id);
      const { days, units } = parseDaysParams({ days: args.days, units: args.units });
      const tides = tidesIn(await app.tides.get(spotId, days), units);
      return { text: tidesText(tides, app.spots.get(spotId)), structured: { ...tides } };
    },
  },
  {
    name: "spot_now",
    title: "Surf and tide at a spot right now",
    description:
      "One spot now, in a sentence: surf, swell, wind, rating 1..5 per level, water, the tide and its next turn, daylight, " +
      `the nearest buoy. Local times. For 'how is it now'. ${STRUCTURED} (times UTC).`,
    input: spotNowInput,
    output: nowOutput,
    async run(app, args) {
      const spotId = parseSpotId(args.spot_id);
      const { units } = parseUnitsParams({ units: args.units });
      await app.demand.ready([spotId]);
      const { response } = await app.now.get(spotId, units);
      const demo = isDemo(app, response);
      const season = seasonAt(app, spotId, Date.parse(response.time));
      return { text: withDemoBanner(nowSummary(response, season), demo), structured: { ...response } };
    },
  },
  {
    name: "best_spots",
    title: "Where to surf now",
    description:
      "Spots within radius_km of a coordinate ranked for a surfer level over the next hours, each with its best daylight " +
      "window (rating 1..5, local time), surf height and wind type. For 'where should I surf near X' (resolve X to lat/lng " +
      `yourself). ${STRUCTURED} as {spots: [...]}.`,
    input: bestSpotsInput,
    output: bestSpotsOutput,
    async run(app, args) {
      const params = parseAs(
        () => parseBestSpotsParams({ lat: args.lat, lng: args.lng, radius: args.radius_km, level: args.level, hours: args.hours, limit: args.limit, units: args.units }),
        { radius: "radius_km" },
      );
      await app.demand.ready(() => app.bestSpots.candidates(params));
      const spots = await app.bestSpots.find(params);
      return { text: bestSpotsText(params, spots, isDemo(app, {})), structured: { spots } };
    },
  },
  {
    name: "spot_observations",
    title: "Buoy reading at a spot",
    description:
      "What the nearest wave buoy (NOAA NDBC, mostly US coasts) measures now, beside the forecast, and its last 24 h; or why " +
      `none. ${STRUCTURED} (UTC).`,
    input: spotNowInput,
    output: observationsOutput,
    async run(app, args) {
      const spotId = parseSpotId(args.spot_id);
      const { units } = parseUnitsParams({ units: args.units });
      // The reading stands beside the forecast served for its hour.
      await app.demand.ready([spotId]);
      const answer = observationsIn(await app.observations.observations(app.spots.get(spotId)), units);
      return { text: observationsText(answer), structured: { ...answer } };
    },
  },
  {
    name: "spot_climate",
    title: "Best months at a spot",
    description: `A spot's months from ERA5: waves, wind, good days and best months per level. For 'when to go'. ${STRUCTURED}.`,
    input: spotNowInput,
    output: climateOutput,
    async run(app, args) {
      const spot = app.spots.get(parseSpotId(args.spot_id));
      const { units } = parseUnitsParams({ units: args.units });
      const state = await app.climate.climate(spot);
      if (state.status !== "ready") throw climateUnavailable(state);
      const climate = climateIn(state.climate, units);
      return { text: climateText(climate), structured: { ...climate } };
    },
  },
  {
    name: "surf_summary",
    title: "Surf summary for a spot",
    description:
      "One spot's outlook day by day in a few hundred tokens: per day surf range, wind, the models' agreement, the best " +
      "window per level (rating 1..5), tides, sun. Prefer it to get_forecast for 'how is the surf this week'. Local times. " +
      "Fails with no_forecast without a forecast yet.",
    input: surfSummaryInput,
    output: surfSummaryOutput,
    async run(app, args) {
      const spotId = parseSpotId(args.spot_id);
      const { days, level, units } = parseSummaryParams({ days: args.days, level: args.level, units: args.units });
      await app.demand.ready([spotId]);
      const summary = await app.summaries.get(spotId, days, level, units);
      const demo = isDemo(app, summary);
      // The demo banner on top stands for the attribution line at the bottom.
      const season = seasonAt(app, spotId, app.clock.now(), level ? [level] : undefined);
      const text = demo ? summaryText(summary, season).replace(/\nData: [^\n]*$/, "") : summaryText(summary, season);
      return { text: withDemoBanner(text, demo), structured: { ...summary } };
    },
  },
  {
    name: "list_alerts",
    title: "Your surf alerts",
    description:
      "The calling key's surf alerts (made in the console): conditions and next windows (forecast hours meeting them), " +
      "local times. structuredContent: {alerts: [...]}.",
    input: listAlertsInput,
    output: listAlertsOutput,
    async run(_app, _args, { principal, alerts }) {
      if (!alerts) throw new ApiError("internal", "Alerts are not available on this server.");
      const listed = await alerts.listForKey(principal.keyId);
      return { text: alertsText(listed), structured: { alerts: listed } };
    },
  },
];
