/**
 * The MCP server at /mcp. STUB — filled in by the MCP issue (#7).
 */
import type { App } from "../app";
import type { McpHandler } from "../http/gate";
import { ApiError } from "../core/errors";
import { errorResponse } from "../http/respond";

export function createMcpHandler(_app: App): McpHandler {
  return async () => errorResponse(new ApiError("not_found", "The MCP endpoint is not available yet."));
}
