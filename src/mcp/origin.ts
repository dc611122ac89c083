/**
 * Origin policy for /mcp (the MCP transport spec asks servers to validate Origin against DNS rebinding).
 * Allowed: no Origin header (non-browser clients), an Origin naming the host the request was sent to, or an
 * origin listed in SURFCAST_MCP_ALLOWED_ORIGINS ("*" allows every origin).
 */

/** Lower-case scheme://host[:port] as browsers send it; entries that are not URLs (e.g. "null") stay as given. */
function normalizeOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin.trim();
  }
}

/** Whether `origin` names the same host (and port) as the request's Host header. */
function sameHost(origin: string, host: string): boolean {
  try {
    const o = new URL(origin);
    // Parse the Host header under the origin's scheme so default ports (:80/:443) compare equal.
    return o.host === new URL(`${o.protocol}//${host}`).host;
  } catch {
    return false;
  }
}

export function createOriginPolicy(allowedOrigins: readonly string[]): (origin: string, host: string) => boolean {
  if (allowedOrigins.includes("*")) return () => true;
  const allowed = new Set(allowedOrigins.map(normalizeOrigin));
  return (origin, host) => allowed.has(normalizeOrigin(origin)) || sameHost(origin, host);
}
