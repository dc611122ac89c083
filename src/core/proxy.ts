/**
 * The client address behind a reverse proxy (SURFCAST_TRUST_PROXY). `X-Forwarded-For` is believed only when the
 * TCP peer is a proxy the operator named; then the client is the right-most address that is not one of those
 * proxies (every proxy appends the address it saw, so addresses left of it may be forged by the client).
 * Used for the console's per-address sign-in throttling. See README "Behind a reverse proxy".
 */
import { BlockList, isIP } from "node:net";
import { UserError } from "./errors";
import { log } from "./log";

/** Who is on the other end of a connection (Bun's Server, fetch's second argument): its socket address. */
export interface Peer {
  requestIP(req: Request): { address: string } | null;
}

/** null when no proxy is trusted: the socket peer is the client. */
export type TrustedProxies = BlockList | null;

/** `::ffff:192.0.2.1` (an IPv4 client on a dual-stack socket) is the IPv4 address. */
function plain(address: string): string {
  return address.toLowerCase().startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

const familyOf = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4");

/** Comma-separated addresses and CIDR ranges (`127.0.0.1, 10.0.0.0/8, ::1, fd00::/8`); a bad entry is a UserError. */
export function parseTrustedProxies(value: string | undefined): TrustedProxies {
  if (value === undefined || value.trim() === "") return null;
  const list = new BlockList();
  for (const raw of value.split(",")) {
    const entry = raw.trim();
    const [address = "", prefix, extra] = entry.split("/");
    const family = isIP(address);
    const bits = prefix === undefined ? null : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (family === 0 || extra !== undefined || Number.isNaN(bits) || (bits !== null && bits > (family === 4 ? 32 : 128))) {
      throw new UserError(`SURFCAST_TRUST_PROXY: "${entry}" is not an IP address or CIDR range (expected e.g. 127.0.0.1, 10.0.0.0/8 or ::1, comma-separated)`);
    }
    if (bits === null) list.addAddress(plain(address), familyOf(plain(address)));
    else list.addSubnet(address, bits, family === 4 ? "ipv4" : "ipv6");
  }
  return list;
}

/** The address to throttle by: the socket peer, or what a trusted proxy says in X-Forwarded-For. */
export function clientAddress(peer: string, forwardedFor: string | null, trusted: TrustedProxies): string {
  if (trusted === null || forwardedFor === null) return peer;
  const isTrusted = (address: string) => isIP(address) !== 0 && trusted.check(plain(address), familyOf(plain(address)));
  if (!isTrusted(peer)) return peer;
  const hops = forwardedFor.split(",").map((s) => s.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!isTrusted(hops[i]!)) return plain(hops[i]!);
  // Every hop is one of our proxies: the left-most is the closest thing to a client.
  return hops.length > 0 ? plain(hops[0]!) : peer;
}

let warnedUntrusted = false;

/**
 * Said once per process when a peer that is not a trusted proxy sends X-Forwarded-For: every client behind an
 * unnamed proxy shares its address, and `consequence` says what that costs them.
 */
export function warnUntrustedForwarding(peer: string, trusted: TrustedProxies, consequence: string): void {
  if (warnedUntrusted || (trusted !== null && isIP(peer) !== 0 && trusted.check(plain(peer), familyOf(plain(peer))))) return;
  warnedUntrusted = true;
  log.warn(`requests from ${peer} carry X-Forwarded-For, but ${peer} is not a trusted proxy, so ${consequence}; if it is your reverse proxy, set SURFCAST_TRUST_PROXY=${peer}`);
}
