/**
 * Request bodies have one limit, enforced here and answered like every other error (413 with the spec's JSON
 * body): Bun's own limit would answer a bare 413. /v1 takes no body at all; /mcp messages are a few short
 * values. A refusal closes the connection, so nothing reads the rest of an oversized upload.
 */
import { ApiError, invalidRequest } from "../core/errors";

export const MAX_BODY_BYTES = 64 * 1024;

export const TOO_LARGE = `A request body may carry at most ${MAX_BODY_BYTES} bytes.`;

/** A refusal of the request's declared body, or null. Only a route that `mayStream` (/mcp) takes a body of unknown length. */
export function bodyRefusal(req: Request, mayStream: boolean): { error: ApiError; status: number } | null {
  const length = req.headers.get("content-length");
  if (length !== null) return Number(length) > MAX_BODY_BYTES ? { error: invalidRequest(TOO_LARGE), status: 413 } : null;
  if (req.method === "GET" || req.method === "HEAD" || mayStream || !req.headers.has("transfer-encoding")) return null;
  return { error: invalidRequest("Send a Content-Length with a request body."), status: 411 };
}

/** The body as text, or null when it is longer than MAX_BODY_BYTES (read no further than that). */
export async function readBoundedText(req: Request): Promise<string | null> {
  if (!req.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req.body) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Sent with a refusal, so the server does not read the rest of the body. */
export const CLOSE = { Connection: "close" };
