/**
 * Origin policy for /mcp (the MCP transport spec asks servers to validate Origin against DNS rebinding).
 * Allowed: no Origin header (non-browser clients), an origin listed in SURFCAST_MCP_ALLOWED_ORIGINS ("*" allows
 * every origin), or an Origin naming the host the request was sent to — when that host is one of the server's own
 * names: loopback (localhost, 127.0.0.1, [::1]), SURFCAST_PUBLIC_URL's host, or SURFCAST_ALLOWED_HOSTS. Origin equal
 * to Host alone proves nothing: a DNS-rebinding page at http://attacker.example:8080 sends exactly that.
 */

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Lower-case scheme://host[:port] as browsers send it; entries that are not URLs (e.g. "null") stay as given. */
function normalizeOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin.trim();
  }
}

/** The host of `origin` when it names the same host (and port) as the request's Host header, else null. */
function sameHost(origin: string, host: string): string | null {
  try {
    const o = new URL(origin);
    // Parse the Host header under the origin's scheme so default ports (:80/:443) compare equal.
    return o.host === new URL(`${o.protocol}//${host}`).host ? o.hostname : null;
  } catch {
    return null;
  }
}

export function createOriginPolicy(allowedOrigins: readonly string[], serverHosts: readonly string[]): (origin: string, host: string) => boolean {
  if (allowedOrigins.includes("*")) return () => true;
  const allowed = new Set(allowedOrigins.map(normalizeOrigin));
  const own = new Set([...LOOPBACK, ...serverHosts.map((h) => h.toLowerCase())]);
  return (origin, host) => {
    if (allowed.has(normalizeOrigin(origin))) return true;
    const hostname = sameHost(origin, host);
    return hostname !== null && own.has(hostname);
  };
}
