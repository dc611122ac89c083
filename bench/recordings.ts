/**
 * A response recorded once from the real server, replayed byte for byte by the bare yardstick server: status,
 * body and every header the real server chose to send (the rate-limit headers the spec requires cost real time
 * on the wire, so a yardstick without them would not be returning "the same bytes").
 */
export interface Recording {
  /** Path and query, e.g. `/v1/spots/pipeline`. */
  path: string;
  status: number;
  headers: [string, string][];
  bodyBase64: string;
}

/** Headers Bun writes itself on every response. */
const TRANSPORT_HEADERS = new Set(["date", "content-length", "connection", "keep-alive", "transfer-encoding"]);

export async function record(baseUrl: string, path: string, headers: Record<string, string>): Promise<Recording> {
  const res = await fetch(baseUrl + path, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  const kept = [...res.headers].filter(([name]) => !TRANSPORT_HEADERS.has(name.toLowerCase()));
  return { path, status: res.status, headers: kept, bodyBase64: body.toString("base64") };
}
