/** A response recorded once from the real server, replayed byte for byte by the bare yardstick server. */
export interface Recording {
  /** Path and query, e.g. `/v1/spots/pipeline`. */
  path: string;
  status: number;
  contentType: string;
  bodyBase64: string;
}

export async function record(baseUrl: string, path: string, headers: Record<string, string>): Promise<Recording> {
  const res = await fetch(baseUrl + path, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  return { path, status: res.status, contentType: res.headers.get("content-type") ?? "application/json", bodyBase64: body.toString("base64") };
}
