/**
 * Every /v1 endpoint in one table: its OpenAPI operation id, the path template it is served at, and the usage key
 * it is counted under (the meter and GET /v1/usage). The mount table (core/mounts.ts) mounts each one; the gate's
 * counting, the usage report, the metrics and log labels and the OpenAPI document all read it: adding an endpoint
 * is a row here plus its handler.
 */
export const V1_ENDPOINTS = [
  { operationId: "searchSpots", path: "/v1/spots", usage: "spots.search" },
  { operationId: "spotsNearby", path: "/v1/spots/nearby", usage: "spots.nearby" },
  { operationId: "getSpot", path: "/v1/spots/{id}", usage: "spots.get" },
  { operationId: "getForecast", path: "/v1/spots/{id}/forecast", usage: "forecast" },
  { operationId: "getTides", path: "/v1/spots/{id}/tides", usage: "tides" },
  { operationId: "getSpotNow", path: "/v1/spots/{id}/now", usage: "now" },
  { operationId: "getNow", path: "/v1/now", usage: "now" },
  { operationId: "bestSpots", path: "/v1/spots/best", usage: "spots.best" },
  { operationId: "getObservations", path: "/v1/spots/{id}/observations", usage: "observations" },
  { operationId: "getVerification", path: "/v1/spots/{id}/verification", usage: "verification" },
  { operationId: "getClimate", path: "/v1/spots/{id}/climate", usage: "climate" },
  // Not counted toward the quota (it does pass the burst window).
  { operationId: "getUsage", path: "/v1/usage", usage: null },
] as const;

export type V1Endpoint = (typeof V1_ENDPOINTS)[number];
export type OperationId = V1Endpoint["operationId"];
type CountedUsage = NonNullable<V1Endpoint["usage"]>;

/**
 * Every MCP tool: its name, its arguments as the OpenAPI overview lists them (`?` optional), and the /v1 operation
 * it answers with (its structured content is that operation's JSON). Counted as `mcp.<tool>`. The spec's four come
 * first.
 */
export const MCP_ENDPOINTS = [
  { tool: "search_spots", args: "query, limit?", operationId: "searchSpots" },
  { tool: "spots_nearby", args: "lat, lng, radius_km?, limit?", operationId: "spotsNearby" },
  { tool: "get_forecast", args: "spot_id, days?, units?", operationId: "getForecast" },
  { tool: "get_tides", args: "spot_id, days?, units?", operationId: "getTides" },
  // Beyond the spec.
  { tool: "spot_now", args: "spot_id, units?", operationId: "getSpotNow" },
  { tool: "best_spots", args: "lat, lng, radius_km?, level?, hours?, limit?, units?", operationId: "bestSpots" },
  { tool: "spot_observations", args: "spot_id, units?", operationId: "getObservations" },
  { tool: "spot_climate", args: "spot_id, units?", operationId: "getClimate" },
  // Its structured content is the forecast's summary, not a /v1 answer.
  { tool: "surf_summary", args: "spot_id, days?, level?, units?", operationId: null },
  // The calling key's condition alerts (made in the console or on the command line, never through MCP).
  { tool: "list_alerts", args: "", operationId: null },
] as const satisfies readonly { tool: string; args: string; operationId: OperationId | null }[];

export type McpToolName = (typeof MCP_ENDPOINTS)[number]["tool"];

/**
 * Usage keys in the order GET /v1/usage reports them: the endpoints', then embed view-minutes and calendar feed
 * fetches. MCP tools add `mcp.<tool>`.
 */
export const USAGE_KEYS: readonly (CountedUsage | "embed" | "calendar")[] = [...new Set<CountedUsage>(V1_ENDPOINTS.flatMap((e) => (e.usage === null ? [] : [e.usage]))), "embed", "calendar"];
export type UsageKey = CountedUsage | "embed" | "calendar" | `mcp.${McpToolName}`;
