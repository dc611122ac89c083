/**
 * The MCP server at /mcp: Streamable HTTP in stateless mode with JSON responses. Every POST gets a fresh
 * McpServer and transport (no session map to grow, bound or expire; each request carries its own API key,
 * already authenticated by the gate). GET (a server-sent event stream) and DELETE (ending a session) have
 * nothing to offer without sessions and answer 405.
 *
 * Before any of that work, each request is read (at most 64 KB), must be one JSON-RPC message (batches were
 * dropped by MCP 2025-06-18 and are refused: one request, one message, one meter decision), and is admitted by
 * the meter: a tool call uses the daily quota and the burst window as `mcp.<tool>`; everything else
 * (initialize, tools/list, ping, notifications, wrong methods, an Origin the policy refuses) passes the burst
 * window only, uncounted. An exhausted key is refused before a server object is built.
 */
import { refusalMessage, type Verdict } from "../access/limiter";
import type { McpToolName, UsageKey } from "../core/endpoints";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ErrorCode, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { version } from "../../package.json";
import type { App } from "../app";
import type { Principal } from "../access/registry";
import type { RateLimitHeaders } from "../access/meter";
import { ApiError, invalidRequest, notFound } from "../core/errors";
import { log, tally } from "../core/log";
import type { McpHandler } from "../http/gate";
import { CORS_EXPOSE, internalError, json, withHeaders } from "../http/respond";
import { CLOSE, readBoundedText, TOO_LARGE } from "../http/body";
import { unknownArguments } from "./arguments";
import { createOriginPolicy } from "./origin";
import { TOOLS, type ToolContext, type ToolDefinition } from "./tools";

const INSTRUCTIONS =
  "Surfcast serves surf spots worldwide, hourly surf forecasts with 1..5 ratings per surfer level, and tide times. " +
  "Find a spot's id with search_spots (by name or country) or spots_nearby (by coordinates), then call get_forecast " +
  "or get_tides with it. For 'where should I surf' use best_spots (by coordinates); for a week's outlook of one spot in a few " +
  "hundred tokens use surf_summary; for the state at a spot right now (surf, wind, the tide rising or falling, the next high and low) use spot_now. Units are metric; times are UTC. Forecast data is from Open-Meteo (CC BY 4.0): keep its attribution.";

/** Read-only says it all: MCP reads the destructive and idempotent hints only of tools that are not (tools/list stays small). */
const READ_ONLY = { readOnlyHint: true, openWorldHint: false };

const CORS = { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": CORS_EXPOSE };

function toolError(err: ApiError): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `${err.code}: ${err.message}` }] };
}

async function callTool(app: App, tool: ToolDefinition, args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult> {
  try {
    const out = await tool.run(app, args, context);
    return { content: [{ type: "text", text: out.text }], structuredContent: out.structured };
  } catch (err) {
    if (err instanceof ApiError) return toolError(err);
    log.error("mcp tool failed", { tool: tool.name, error: String(err) });
    return toolError(internalError());
  }
}

/** Each tool's argument names, in the order tools/list shows them. */
const TOOL_ARGUMENTS = new Map<string, string[]>(TOOLS.map((t) => [t.name, Object.keys(t.input.shape)]));
const isToolName = (name: string): name is McpToolName => TOOL_ARGUMENTS.has(name);

type Message = Record<string, unknown>;
const rpcError = (id: unknown, code: number, message: string) => ({ jsonrpc: "2.0", id: id ?? null, error: { code, message } });

/**
 * The answer to a message the SDK would answer badly (-32603 with a validator dump, or "Tool constructor
 * disabled" for a name found on Object.prototype), or null when the SDK can take it:
 *  - initialize without proper params, or a tools/call without a tool name: -32602 invalid params;
 *  - a tool name we do not have (`constructor` included): the one not_found tool error every unknown tool gets;
 *  - tool arguments that are not an object: a tool error like any other invalid argument;
 *  - an argument the tool does not take (`radius` for `radius_km`): a tool error naming the one meant, where the
 *    SDK would drop it in silence and run the call with the default (arguments.ts).
 */
function earlyAnswer(message: Message): unknown {
  const { id, method, params } = message as { id?: unknown; method?: unknown; params?: Record<string, unknown> };
  const paramsObject = typeof params === "object" && params !== null && !Array.isArray(params);
  if (method === "initialize" && (!paramsObject || typeof params.protocolVersion !== "string")) {
    return rpcError(id, ErrorCode.InvalidParams, "initialize needs params {protocolVersion, capabilities, clientInfo}.");
  }
  if (method !== "tools/call") return null;
  if (!paramsObject || typeof params.name !== "string") {
    return rpcError(id, ErrorCode.InvalidParams, "tools/call needs params.name, the name of a tool from tools/list.");
  }
  if (!isToolName(params.name)) return { jsonrpc: "2.0", id, result: toolError(notFound(`Unknown tool '${params.name.slice(0, 64)}': the tools are ${[...TOOL_ARGUMENTS.keys()].join(", ")}.`)) };
  const args = params.arguments;
  if (args === undefined) return null;
  if (typeof args === "object" && args !== null && !Array.isArray(args)) {
    const unknown = unknownArguments(params.name, TOOL_ARGUMENTS.get(params.name)!, args as Record<string, unknown>);
    return unknown ? { jsonrpc: "2.0", id, result: toolError(unknown) } : null;
  }
  return { jsonrpc: "2.0", id, result: toolError(invalidRequest('Tool arguments must be a JSON object of named parameters, e.g. {"spot_id": "pipeline"}.')) };
}

/** The usage counter of a message: `mcp.<tool>` for a call of one of our tools, else null (burst only). */
function endpointOfMessage(message: Message): UsageKey | null {
  if (message.method !== "tools/call") return null;
  const name = (message.params as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && isToolName(name) ? `mcp.${name}` : null;
}

/** The one JSON-RPC message of a POST body, or the response that refuses the body. */
async function readMessage(req: Request): Promise<Message | Response> {
  const text = await readBoundedText(req);
  if (text === null) return json(invalidRequest(TOO_LARGE).toBody(), 413, { own: CLOSE });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return json(rpcError(null, ErrorCode.ParseError, "The body is not valid JSON."), 400);
  }
  if (Array.isArray(body)) {
    return json(rpcError(null, ErrorCode.InvalidRequest, "JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message per request."), 400);
  }
  if (typeof body !== "object" || body === null || (body as Message).jsonrpc !== "2.0") {
    return json(rpcError(null, ErrorCode.InvalidRequest, "The body must be one JSON-RPC 2.0 message."), 400);
  }
  return body as Message;
}

function buildServer(app: App, context: ToolContext): McpServer {
  const server = new McpServer({ name: "surfcast", title: "Surfcast", version }, { instructions: INSTRUCTIONS });
  for (const tool of TOOLS) {
    const registered = server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: READ_ONLY },
      (args: Record<string, unknown>) => callTool(app, tool, args, context),
    );
    // Absent, a tool's task support is "forbidden" (MCP 2025-11-25): the SDK's explicit one only lengthens tools/list.
    registered.execution = undefined;
  }
  return server;
}

/**
 * Refused Origins are counted and logged once a minute with the first one seen (an operator who forgot an origin
 * in SURFCAST_MCP_ALLOWED_ORIGINS learns which), never one line each: a page can send them as fast as it likes.
 */
const countRefusedOrigin = tally("refused /mcp requests from an Origin that is not allowed, with 403");

function refusal(status: number, message: string): Response {
  return json(invalidRequest(message).toBody(), status);
}

function rateLimited(verdict: Extract<Verdict, { allowed: false }>, message: Message | null, headers: Record<string, string>): Response {
  const err = new ApiError("rate_limited", refusalMessage(verdict));
  // A refused tool call is a tool error (clients show it to the model); other refusals are HTTP 429s.
  if (message?.method === "tools/call") return json({ jsonrpc: "2.0", id: message.id ?? null, result: toolError(err) });
  headers["Retry-After"] = String(verdict.retryAfterSeconds);
  return json(err.toBody(), 429);
}

/** `services.alerts` answers list_alerts (without it the tool says alerts are not available). */
export function createMcpHandler(app: App, services: { alerts?: ToolContext["alerts"] } = {}): McpHandler {
  const originAllowed = createOriginPolicy(app.config.mcpAllowedOrigins, app.config.allowedHosts);

  /**
   * `own` collects the headers this response adds to the rate-limit ones (Allow, Retry-After); `counted` receives
   * the rate-limit headers of the admission.
   */
  const handle = async (req: Request, principal: Principal, own: Record<string, string>, counted: { headers?: RateLimitHeaders }): Promise<Response> => {
    const admit = async (endpoint: UsageKey | null): Promise<Verdict> => {
      const { verdict, headers } = await app.meter.admit(principal, endpoint);
      counted.headers = headers;
      return verdict;
    };
    const origin = req.headers.get("origin");
    const refusedOrigin = origin !== null && !originAllowed(origin, req.headers.get("host") ?? "");
    if (refusedOrigin || req.method !== "POST") {
      // Refused before the body is read, yet through the burst window first like every request of a key (never
      // the daily quota, never counted in usage): a page hammering /mcp with a key is throttled, not free.
      const verdict = await admit(null);
      if (!verdict.allowed) return rateLimited(verdict, null, own);
      if (refusedOrigin) {
        countRefusedOrigin(origin);
        return refusal(403, `Origin '${origin}' may not call /mcp: only the server's own host and the origins in SURFCAST_MCP_ALLOWED_ORIGINS are allowed.`);
      }
      own.Allow = "POST, OPTIONS";
      return refusal(405, `Method ${req.method} is not allowed on /mcp: this MCP server is stateless (no sessions, no event stream); send JSON-RPC messages with POST.`);
    }
    const message = await readMessage(req);
    if (message instanceof Response) {
      const verdict = await admit(null);
      return verdict.allowed ? message : rateLimited(verdict, null, own);
    }
    const verdict = await admit(endpointOfMessage(message));
    if (!verdict.allowed) return rateLimited(verdict, message, own);
    const early = earlyAnswer(message);
    if (early) return json(early);

    const server = buildServer(app, { principal, alerts: services.alerts ?? null });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      return await transport.handleRequest(req, { parsedBody: message });
    } finally {
      await server.close();
    }
  };

  return async (req, principal) => {
    const own: Record<string, string> = {};
    const counted: { headers?: RateLimitHeaders } = {};
    const res = await handle(req, principal, own, counted);
    return withHeaders(res, { shared: counted.headers?.shared, own: { ...counted.headers?.own, ...CORS, ...own } });
  };
}
