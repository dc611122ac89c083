/**
 * One delivery attempt of a webhook: check the target again (DNS may have changed since the alert was made), POST
 * the stored body with this attempt's signature, and sort the answer into what the caller does next.
 *
 * DNS rebinding: a name checked once and resolved again by the HTTP client could answer differently the second
 * time. Plain http is therefore sent to the checked address itself (the URL's host goes in the Host header);
 * https goes to the name, because the certificate must be verified against it, and a rebound name then reaches a
 * server that cannot show a certificate for it, so the handshake fails before any request is sent.
 */
import { checkTarget, systemResolver, type AllowedNetworks, type Resolver } from "./address";
import { signedHeaders } from "./sign";

export type DeliveryOutcome = "delivered" | "failed" | "gone" | "refused";

/**
 * What one attempt came to. delivered: 2xx; gone: 410 (the receiver asks to stop: the alert is disabled);
 * refused: the target (or a redirect's) is not allowed, final; failed: anything else, tried again later.
 */
export interface AttemptResult {
  outcome: DeliveryOutcome;
  status?: number;
  error?: string;
  durationMs: number;
}

export interface WebhookRequest {
  url: string;
  secret: string;
  /** The event's `webhook-id`, the same on every attempt. */
  eventId: string;
  /** The stored event body, sent as is. */
  body: string;
  allowed: AllowedNetworks;
  /** The whole attempt, redirects and the response body included. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  maxRedirects?: number;
  /** The attempt's time, signed as `webhook-timestamp`. */
  at?: Date;
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  resolve?: Resolver;
}

const WEBHOOK_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 16 * 1024;
const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export async function sendWebhook(request: WebhookRequest): Promise<AttemptResult> {
  const started = performance.now();
  const timeoutMs = request.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const finish = (outcome: DeliveryOutcome, details: { status?: number; error?: string } = {}): AttemptResult => ({
    outcome,
    ...details,
    durationMs: Math.round(performance.now() - started),
  });
  let signed;
  try {
    signed = signedHeaders(request.secret, request.eventId, request.body, request.at ?? new Date());
  } catch {
    return finish("refused", { error: "the alert's webhook secret is not a whsec_ secret" });
  }
  const headers = { "content-type": "application/json", "user-agent": "Surfcast-Webhooks/1", ...signed };
  const send = request.fetch ?? fetch;
  let target = request.url;
  try {
    for (let redirects = 0; ; redirects++) {
      const check = await untilAborted(checkTarget(target, request.allowed, request.resolve ?? systemResolver), signal);
      if (!check.ok) {
        const error = target === request.url ? check.reason : `redirected to ${target}: ${check.reason}`;
        return finish(check.refused ? "refused" : "failed", { error });
      }
      const { input, host } = connectionFor(check.url, check.addresses);
      const response = await send(input, {
        method: "POST",
        headers: host === null ? headers : { ...headers, host },
        body: request.body,
        redirect: "manual",
        signal,
      });
      await discardBody(response, request.maxResponseBytes ?? MAX_RESPONSE_BYTES);
      const status = response.status;
      if (REDIRECT_STATUSES.has(status)) {
        const location = response.headers.get("location");
        if (location === null) return finish("failed", { status, error: `HTTP ${status} without a Location` });
        if (redirects >= (request.maxRedirects ?? MAX_REDIRECTS)) return finish("failed", { status, error: "too many redirects" });
        // Followed as the same signed POST: the receiver verifies the same id, timestamp and body.
        target = new URL(location, check.url).href;
        continue;
      }
      if (status >= 200 && status < 300) return finish("delivered", { status });
      if (status === 410) return finish("gone", { status, error: "HTTP 410 Gone" });
      return finish("failed", { status, error: `HTTP ${status}` });
    }
  } catch (err) {
    if (signal.aborted) return finish("failed", { error: `no answer within ${timeoutMs / 1000} s` });
    return finish("failed", { error: err instanceof Error ? err.message : String(err) });
  }
}

/** Where to connect: http to the checked address (IPv4 first, the likelier to be reachable), https to the name. */
function connectionFor(url: URL, addresses: string[]): { input: string; host: string | null } {
  if (url.protocol === "https:") return { input: url.href, host: null };
  const address = addresses.find((a) => !a.includes(":")) ?? addresses[0]!;
  const pinned = new URL(url.href);
  pinned.hostname = address.includes(":") ? `[${address}]` : address;
  return { input: pinned.href, host: url.host };
}

/**
 * Reads at most about maxBytes of the answer (letting the connection be reused) and drops it. The status has
 * already decided the outcome: a body that breaks off or outlasts the attempt changes nothing.
 */
async function discardBody(response: Response, maxBytes: number): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read <= maxBytes) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
  } catch {
    // the answer's status is known; what follows it does not matter
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** DNS lookups cannot be cancelled; the attempt stops waiting for one when its time is up. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
