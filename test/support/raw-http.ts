/**
 * HTTP over a raw TCP socket, for requests no client library sends: no Host, an empty or malformed Host,
 * absolute-form targets, unnormalized paths. Each request goes on its own connection (`Connection: close` is
 * the caller's to add for HTTP/1.1) and the answer is read until the server closes it.
 */
import { connect } from "node:net";

export interface RawResponse {
  status: number;
  /** By lower-case name; of a header sent twice, the last. */
  headers: Record<string, string>;
  /** The status line and header lines as sent. */
  head: string;
  body: string;
}

export function rawRequest(port: number, text: string, timeoutMs = 5000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms to ${JSON.stringify(text.slice(0, 200))}`));
    }, timeoutMs);
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString("latin1");
      const headEnd = raw.indexOf("\r\n\r\n");
      const head = headEnd === -1 ? raw : raw.slice(0, headEnd);
      const [statusLine = "", ...lines] = head.split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = headEnd === -1 ? "" : raw.slice(headEnd + 4);
      if (headers["transfer-encoding"] === "chunked") body = unchunk(body);
      resolve({ status, headers, head, body });
    });
    socket.write(text, "latin1");
  });
}

function unchunk(body: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf("\r\n", at);
    if (lineEnd === -1) return out;
    const size = parseInt(body.slice(at, lineEnd), 16);
    if (!(size > 0)) return out;
    out += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/** Runs `tasks` with at most `limit` in flight. */
export async function inBatches<T>(tasks: (() => Promise<T>)[], limit = 16): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
