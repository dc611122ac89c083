/**
 * The MCP server at /mcp: Streamable HTTP in stateless mode with JSON responses. Every POST gets a fresh
 * McpServer and transport (no session map to grow, bound or expire; each request carries its own API key,
 * already authenticated by the gate). GET (a server-sent event stream) and DELETE (ending a session) have
 * nothing to offer without sessions and answer 405.
 *
 * Only tool calls are metered, each as `mcp.<tool>`: initialize, tools/list and pings are free.
 */
import { refusalMessage } from "../access/limiter";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ErrorCode, isJSONRPCRequest, type CallToolResult, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { version } from "../../package.json";
import type { App } from "../app";
import type { Principal } from "../access/registry";
import { ApiError, invalidRequest } from "../core/errors";
import { log } from "../core/log";
import type { McpHandler } from "../http/gate";
import { CORS_EXPOSE, internalError, json, withHeaders } from "../http/respond";
import { createOriginPolicy } from "./origin";
import { TOOLS, type ToolDefinition } from "./tools";

const INSTRUCTIONS =
  "Surfcast serves surf spots worldwide, hourly surf forecasts with 1..5 ratings per surfer level, and tide times. " +
  "Find a spot's id with search_spots (by name or country) or spots_nearby (by coordinates), then call get_forecast " +
  "or get_tides with it. For 'where should I surf' use best_spots (by coordinates); for a week's outlook of one spot in a few " +
  "hundred tokens use surf_summary. Units are metric; times are UTC. Forecast data is from Open-Meteo (CC BY 4.0): keep its attribution.";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** Tool arguments are a few short values; anything bigger is not a tool call. */
const MAX_BODY_BYTES = 64 * 1024;

const CORS = { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": CORS_EXPOSE };

function toolError(err: ApiError): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `${err.code}: ${err.message}` }] };
}

function callTool(app: App, principal: Principal, tool: ToolDefinition, args: Record<string, unknown>): CallToolResult {
  const verdict = app.meter.admit(principal, `mcp.${tool.name}`);
  if (!verdict.allowed) {
    return toolError(new ApiError("rate_limited", refusalMessage(verdict)));
  }
  try {
    const out = tool.run(app, args);
    return { content: [{ type: "text", text: out.text }], structuredContent: out.structured };
  } catch (err) {
    if (err instanceof ApiError) return toolError(err);
    log.error("mcp tool failed", { tool: tool.name, error: String(err) });
    return toolError(internalError());
  }
}

/**
 * The answer to a tools/call the SDK cannot parse, which it would answer with -32603 (internal) and a zod
 * dump: no tool name is a protocol error (-32602), and arguments that are not an object are a tool error
 * like any other invalid argument. Null when the SDK can take the message.
 */
function malformedToolCall(message: JSONRPCMessage): JSONRPCMessage | null {
  if (!isJSONRPCRequest(message) || message.method !== "tools/call") return null;
  const { id, params } = message;
  if (typeof params?.name !== "string") {
    return { jsonrpc: "2.0", id, error: { code: ErrorCode.InvalidParams, message: "tools/call needs params.name, the name of a tool from tools/list." } };
  }
  const args = params.arguments;
  if (args === undefined || (typeof args === "object" && args !== null && !Array.isArray(args))) return null;
  return { jsonrpc: "2.0", id, result: toolError(invalidRequest('Tool arguments must be a JSON object of named parameters, e.g. {"spot_id": "pipeline"}.')) };
}

function buildServer(app: App, principal: Principal): McpServer {
  const server = new McpServer({ name: "surfcast", title: "Surfcast", version }, { instructions: INSTRUCTIONS });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: READ_ONLY },
      (args: Record<string, unknown>) => callTool(app, principal, tool, args),
    );
  }
  return server;
}

function refusal(status: number, message: string, headers: Record<string, string> = {}): Response {
  return json(new ApiError("invalid_request", message).toBody(), status, { own: headers });
}

export function createMcpHandler(app: App): McpHandler {
  const originAllowed = createOriginPolicy(app.config.mcpAllowedOrigins);

  const handle = async (req: Request, principal: Principal): Promise<Response> => {
    const origin = req.headers.get("origin");
    if (origin !== null && !originAllowed(origin, req.headers.get("host") ?? new URL(req.url).host)) {
      return refusal(403, `Origin '${origin}' may not call /mcp: only the server's own host and the origins in SURFCAST_MCP_ALLOWED_ORIGINS are allowed.`);
    }
    if (req.method !== "POST") {
      return refusal(405, `Method ${req.method} is not allowed on /mcp: this MCP server is stateless (no sessions, no event stream); send JSON-RPC messages with POST.`, {
        Allow: "POST, OPTIONS",
      });
    }
    const server = buildServer(app, principal);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_BODY_BYTES });
    try {
      await server.connect(transport);
      const deliver = transport.onmessage!;
      transport.onmessage = (message, extra) => {
        const answer = malformedToolCall(message);
        if (answer) void transport.send(answer);
        else deliver(message, extra);
      };
      return await transport.handleRequest(req);
    } finally {
      await server.close();
    }
  };

  return async (req, principal) => {
    const res = await handle(req, principal);
    const headers = app.meter.headers(principal);
    Object.assign(headers.own, CORS);
    return withHeaders(res, headers);
  };
}
