/** Response helpers shared by the gate and the routes. */
import { ApiError } from "../core/errors";

export const CORS_EXPOSE = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After, ETag";

const JSON_TYPE = "application/json; charset=utf-8";

export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(typeof body === "string" ? body : JSON.stringify(body), {
    status,
    headers: { "Content-Type": JSON_TYPE, ...headers },
  });
}

export function errorResponse(err: ApiError, headers?: Record<string, string>): Response {
  return json(err.toBody(), err.status, headers);
}

export function internalError(): ApiError {
  return new ApiError("internal", "Internal server error. The failure was logged; please retry later.");
}

/** Adds headers to a response in place (responses built here always have mutable headers). */
export function withHeaders(res: Response, headers: Record<string, string>): Response {
  for (const name in headers) res.headers.set(name, headers[name]!);
  return res;
}
