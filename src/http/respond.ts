/**
 * Response helpers shared by the gate and the routes.
 *
 * The gate decides each admitted /v1 request's response headers (rate limits, CORS) before routing, and the
 * route builds its one Response with them, so nothing has to reopen a finished response. Headers come in two
 * parts: `shared`, one Headers object reused by every response of a key that day (the Response constructor
 * copies it natively — the cheapest way to hand Bun several headers), and `own`, the few values of this
 * response, set on the copy.
 */
import { ApiError, isOutage, OUTAGE_RETRY_AFTER_S, unavailable } from "../core/errors";
import { log, tally } from "../core/log";

export const CORS_EXPOSE = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After, ETag";

export const JSON_TYPE = "application/json; charset=utf-8";

type HeaderRecord = Record<string, string>;

export interface ResponseHeaders {
  /** Reused across responses: never modified. */
  shared?: Headers;
  own: HeaderRecord;
}

/** Where the gate leaves the headers on the request: a symbol property, cheaper than a WeakMap. */
const PREPARED = Symbol("surfcast.headers");
type Prepared = Request & { [PREPARED]?: ResponseHeaders };

/** The gate's headers for the response to `req`. */
export function prepareHeaders(req: Request, headers: ResponseHeaders): void {
  (req as Prepared)[PREPARED] = headers;
}

/** The headers of a response to `req`: the gate's (none outside /v1), plus `extra`. */
export function headersFor(req: Request, extra?: HeaderRecord): ResponseHeaders {
  const prepared = (req as Prepared)[PREPARED];
  if (!extra) return prepared ?? { own: {} };
  return { shared: prepared?.shared, own: { ...prepared?.own, ...extra } };
}

const NO_HEADERS: ResponseHeaders = { own: {} };

/** `type` is the Content-Type, when there is a body. */
export function respond(body: string | Uint8Array | Blob | null, status: number, { shared, own }: ResponseHeaders = NO_HEADERS, type?: string): Response {
  if (!shared) return new Response(body, { status, headers: type ? { "Content-Type": type, ...own } : own });
  const res = new Response(body, { status, headers: shared });
  const target = res.headers;
  if (type) target.set("Content-Type", type);
  for (const name in own) target.set(name, own[name]!);
  return res;
}

/**
 * The JSON text of frozen values, kept while they live. Services freeze what they share between requests (catalog
 * spots, kept tide responses: frozen all the way down), so the text of such a value never changes either.
 */
const frozenText = new WeakMap<object, string>();

function serialize(body: unknown): string {
  if (typeof body === "string") return body;
  if (typeof body !== "object" || body === null) return JSON.stringify(body);
  // The kept text first: isFrozen is the slower test (it walks an array's elements).
  const kept = frozenText.get(body);
  if (kept !== undefined) return kept;
  const text = JSON.stringify(body);
  if (Object.isFrozen(body)) frozenText.set(body, text);
  return text;
}

export function json(body: unknown, status = 200, headers: ResponseHeaders = NO_HEADERS): Response {
  return respond(serialize(body), status, headers, JSON_TYPE);
}

export function errorResponse(err: ApiError, headers?: ResponseHeaders): Response {
  return json(err.toBody(), err.status, headers);
}

/** No route at this path: the spec's 404, on the gate's headers. */
export function noSuchEndpoint(request: Request, path: string): Response {
  return errorResponse(new ApiError("not_found", `No such endpoint: ${path}`), headersFor(request));
}

export function internalError(): ApiError {
  return new ApiError("internal", "Internal server error. The failure was logged; please retry later.");
}

/** An outage refuses every request for a while: one line a minute says how many, not one line each. */
const countOutageRefusals = tally("refused requests with 503: PostgreSQL or Redis does not answer");

/**
 * The response to a failure the route did not expect, logged under the route's label (never the path: it can hold a
 * secret): 503 with Retry-After when a shared part is away (the node recovers by itself), else 500.
 */
export function failureResponse(err: unknown, route: string, headers: ResponseHeaders = { own: {} }): Response {
  if (!isOutage(err)) {
    log.error("route failed", { route, error: String(err) });
    return errorResponse(internalError(), headers);
  }
  countOutageRefusals(route);
  headers.own = { ...headers.own, "Retry-After": OUTAGE_RETRY_AFTER_S };
  return errorResponse(unavailable(), headers);
}

/** Adds headers to a response in place (responses built here always have mutable headers). */
export function withHeaders(res: Response, { shared, own }: ResponseHeaders): Response {
  shared?.forEach((value, name) => res.headers.set(name, value));
  for (const name in own) res.headers.set(name, own[name]!);
  return res;
}
