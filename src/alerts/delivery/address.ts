/**
 * Which webhook targets may be called. A webhook is a request the server makes on an owner's behalf, so an
 * owner must not be able to aim it at the server's own network: every address a target's host resolves to must
 * be public unicast, unless the operator lists its network in SURFCAST_WEBHOOK_ALLOWED_NETWORKS (a shop's Home
 * Assistant on its LAN). Allowing rather than denying by range: any special range ipaddr.js knows (and any it
 * learns) is refused, not only the ones named here.
 */
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** The operator's allowed networks, parsed once. */
export type AllowedNetworks = readonly (readonly [Address, number])[];

/** Resolves a host name to every address it has (A and AAAA). */
export type Resolver = (host: string) => Promise<string[]>;

export type TargetCheck =
  | { ok: true; url: URL; addresses: string[] }
  /** `refused`: the target is not allowed (final); otherwise it could not be checked now (DNS failed: try again later). */
  | { ok: false; refused: boolean; reason: string };

export const ALLOWED_NETWORKS_VARIABLE = "SURFCAST_WEBHOOK_ALLOWED_NETWORKS";

/** Parses the comma-separated CIDR list; throws an Error naming the bad entry. A bare address counts as one host. */
export function parseAllowedNetworks(text: string | undefined): AllowedNetworks {
  const networks: [Address, number][] = [];
  for (const entry of (text ?? "").split(",").map((e) => e.trim()).filter((e) => e !== "")) {
    try {
      if (entry.includes("/")) networks.push(ipaddr.parseCIDR(entry));
      else {
        const address = ipaddr.parse(entry);
        networks.push([address, address.kind() === "ipv4" ? 32 : 128]);
      }
    } catch {
      throw new Error(`${ALLOWED_NETWORKS_VARIABLE}: "${entry}" is not an IPv4 or IPv6 network (e.g. 192.168.1.0/24, fd00::/8)`);
    }
  }
  return networks;
}

export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** ipaddr.js range names, worded for the refusal. Ranges not listed here are called "a reserved address". */
const RANGE_WORDS: Record<string, string> = {
  loopback: "a loopback address",
  private: "a private address",
  uniqueLocal: "a private (unique local) address",
  linkLocal: "a link-local address (which includes cloud metadata services)",
  unspecified: "an unspecified address",
  multicast: "a multicast address",
  broadcast: "a broadcast address",
  carrierGradeNat: "a carrier-grade NAT address",
  deprecatedSiteLocal: "a site-local address",
  rfc6052: "a NAT64 address",
  rfc6145: "an IPv4-translated address",
  "6to4": "a 6to4 address",
  teredo: "a Teredo address",
};

/**
 * The class that makes an address refused, or null for public unicast. An IPv6 address carrying an IPv4 one
 * (mapped ::ffff:a.b.c.d, or the old compatible ::a.b.c.d) is judged as that IPv4 address.
 */
export function addressClass(text: string): string | null {
  const range = ipaddr.process(text).range();
  return range === "unicast" ? null : (RANGE_WORDS[range] ?? "a reserved address");
}

function isAllowed(text: string, allowed: AllowedNetworks): boolean {
  const candidates = [ipaddr.parse(text), ipaddr.process(text)];
  return candidates.some((a) => allowed.some(([network, bits]) => a.kind() === network.kind() && a.match(network, bits)));
}

/** The refusal for one resolved address, or null when it may be called. */
function refusalFor(address: string, allowed: AllowedNetworks, host?: string): string | null {
  const kind = addressClass(address);
  if (kind === null || isAllowed(address, allowed)) return null;
  const subject = host !== undefined && host !== address ? `${host} resolves to ${address},` : `${address} is`;
  return `refused: ${subject} ${kind}; allow it with ${ALLOWED_NETWORKS_VARIABLE}`;
}

/** The URL's host without IPv6 brackets, and whether it is an address literal (then nothing is resolved). */
function hostOf(url: URL): { host: string; literal: boolean } {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return { host, literal: ipaddr.isValid(host) };
}

/**
 * Checks a webhook target: an http(s) URL whose host resolves only to addresses that may be called. Every
 * address counts, not just the first: a client could connect to any of them.
 */
export async function checkTarget(target: string, allowed: AllowedNetworks, resolve: Resolver = systemResolver): Promise<TargetCheck> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { ok: false, refused: true, reason: `refused: "${target}" is not a URL` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, refused: true, reason: `refused: only http and https URLs can receive webhooks, not ${url.protocol}` };
  }
  const { host, literal } = hostOf(url);
  let addresses: string[];
  if (literal) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      const code = (err as { code?: string }).code ?? (err instanceof Error ? err.message : String(err));
      return { ok: false, refused: false, reason: `${host} does not resolve (${code})` };
    }
    if (addresses.length === 0) return { ok: false, refused: false, reason: `${host} does not resolve (no address)` };
  }
  for (const address of addresses) {
    if (!ipaddr.isValid(address)) return { ok: false, refused: true, reason: `refused: ${host} resolves to "${address}", not an address` };
    const refusal = refusalFor(address, allowed, literal ? undefined : host);
    if (refusal !== null) return { ok: false, refused: true, reason: refusal };
  }
  return { ok: true, url, addresses };
}
