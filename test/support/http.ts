/**
 * The one fetch every test uses to call a Surfcast server (in-process or compiled). Each response is held to
 * the OpenAPI document that server serves at /openapi.json (see ./openapi.ts): a response that does not
 * match makes the call reject, so the test fails with the list of differences. The caller gets the original
 * response with its body unread. Not checked: /healthz, /mcp (its own protocol), /openapi.json itself, /docs, and
 * CORS preflights.
 */
import { responseValidatorFor } from "./openapi";

const UNDOCUMENTED_PATHS = new Set(["/healthz", "/mcp", "/openapi.json", "/docs", "/docs/scalar.js"]);

export async function apiFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, init);
  const { origin, pathname, search } = new URL(url);
  const method = (init.method ?? "GET").toUpperCase();
  if (UNDOCUMENTED_PATHS.has(pathname) || method === "OPTIONS") return res;
  const validator = await responseValidatorFor(origin);
  const problems = validator.check(method, pathname, res.status, res.headers, await res.clone().text());
  if (problems.length > 0) {
    throw new Error(`${method} ${pathname}${search} → ${res.status} does not match ${origin}/openapi.json:\n  - ${problems.join("\n  - ")}`);
  }
  return res;
}
