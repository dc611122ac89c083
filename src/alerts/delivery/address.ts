/**
 * Which webhook targets may be called. A webhook is a request the server makes on an owner's behalf, so an
 * owner must not be able to aim it at the server's own network: every address a target's host resolves to must
 * be public unicast, unless the operator lists its network in SURFCAST_WEBHOOK_ALLOWED_NETWORKS (a shop's Home
 * Assistant on its LAN), and then only on the port it names if it names one. Allowing rather than denying by range:
 * any special range ipaddr.js knows (and any it learns) is refused, not only the ones named here. The server's own
 * listening ports on this machine are refused even inside an allowed network: a webhook (or a redirect) must not
 * become a request to the server itself.
 */
import { lookup } from "node:dns/promises";
import { networkInterfaces } from "node:os";
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** One entry of the operator's allowed networks: a network, and the one port it is open on (null: every port). */
export interface AllowedNetwork {
  network: Address;
  bits: number;
  port: number | null;
}

/** The operator's allowed networks, parsed once. */
export type AllowedNetworks = readonly AllowedNetwork[];

/** Resolves a host name to every address it has (A and AAAA). */
export type Resolver = (host: string) => Promise<string[]>;

/** Where this server can be reached: no webhook calls it, whatever the allowed networks say. */
export interface OwnAddresses {
  ports: ReadonlySet<number>;
  /** This machine's interface addresses (loopback and unspecified addresses always count). */
  addresses: readonly string[];
}

export type TargetCheck =
  | { ok: true; url: URL; addresses: string[] }
  /** `refused`: the target is not allowed (final); otherwise it could not be checked now (DNS failed: try again later). */
  | { ok: false; refused: boolean; reason: string };

export const ALLOWED_NETWORKS_VARIABLE = "SURFCAST_WEBHOOK_ALLOWED_NETWORKS";

/** An entry with a port: `[IPv6 network]:port`, or `IPv4 network:port` (an IPv6 one needs the brackets). */
const BRACKETED = /^\[([^\]]+)\](?::(\d{1,5}))?$/;
const IPV4_WITH_PORT = /^([\d.]+(?:\/\d+)?):(\d{1,5})$/;

function networkOf(text: string): [Address, number] {
  if (text.includes("/")) return ipaddr.parseCIDR(text);
  const address = ipaddr.parse(text);
  return [address, address.kind() === "ipv4" ? 32 : 128];
}

function allowedNetworkOf(entry: string): AllowedNetwork {
  const withPort = BRACKETED.exec(entry) ?? IPV4_WITH_PORT.exec(entry);
  const [network, bits] = networkOf(withPort ? withPort[1]! : entry);
  const port = withPort?.[2] === undefined ? null : Number(withPort[2]);
  if (port !== null && (port < 1 || port > 65535)) throw new Error("port out of range");
  return { network, bits, port };
}

/**
 * Parses the comma-separated list; throws an Error naming the bad entry. A bare address counts as one host; an
 * entry may end in a port (`127.0.0.1:8123`, `192.168.1.0/24:8123`, `[fd00::1]:8123`) to allow that port only.
 */
export function parseAllowedNetworks(text: string | undefined): AllowedNetworks {
  return (text ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "")
    .map((entry) => {
      try {
        return allowedNetworkOf(entry);
      } catch {
        throw new Error(
          `${ALLOWED_NETWORKS_VARIABLE}: "${entry}" is not an IPv4 or IPv6 network with an optional port (e.g. 192.168.1.0/24, fd00::/8, 127.0.0.1:8123, [fd00::1]:8123)`,
        );
      }
    });
}

export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The ports this process listens on, added by the server once it listens. */
export const listeningPorts = new Set<number>();

/** This process's listening ports and this machine's addresses, as they are now (interfaces come and go). */
export function thisServer(): OwnAddresses {
  const addresses = Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((e) => e.address));
  return { ports: listeningPorts, addresses };
}

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
};

const cidr = (text: string) => ipaddr.parseCIDR(text) as [ipaddr.IPv6, number];

/**
 * The IPv6 forms that carry an IPv4 address, and where it sits in the 16 bytes: a packet to one reaches that IPv4
 * address (through a translator, relay or tunnel), so the address is judged as it. The NAT64 local-use prefix is
 * read as a /96, the form DNS64 makes.
 */
const IPV4_CARRIERS: readonly { network: [ipaddr.IPv6, number]; ipv4: (bytes: number[]) => number[] }[] = [
  { network: cidr("::ffff:0:0/96"), ipv4: (b) => b.slice(12) }, // mapped
  { network: cidr("::ffff:0:0:0/96"), ipv4: (b) => b.slice(12) }, // IPv4-translated (RFC 6145)
  { network: cidr("64:ff9b::/96"), ipv4: (b) => b.slice(12) }, // NAT64, well-known prefix
  { network: cidr("64:ff9b:1::/48"), ipv4: (b) => b.slice(12) }, // NAT64, local-use prefix
  { network: cidr("2002::/16"), ipv4: (b) => b.slice(2, 6) }, // 6to4: the gateway
  { network: cidr("2001::/32"), ipv4: (b) => b.slice(12).map((x) => x ^ 0xff) }, // Teredo: the client, inverted
];

/** IPv4-compatible addresses (`::a.b.c.d`), deprecated since 2006: refused outright, never allowed. */
const IPV4_COMPATIBLE = cidr("::/96");
const IPV4_COMPATIBLE_WORDS = "an IPv4-compatible address (deprecated)";

function isIpv4Compatible(address: Address): boolean {
  return address.kind() === "ipv6" && address.match(IPV4_COMPATIBLE) && !["unspecified", "loopback"].includes(address.range());
}

/**
 * Reads an address the way a URL does, or null when it is none. ipaddr.js alone would read `::a.b.c.d` as the
 * mapped `::ffff:a.b.c.d`; a URL (and the resolver) reads it as the IPv4-compatible `::a.b.c.d`.
 */
function parseAddress(text: string): Address | null {
  try {
    return ipaddr.parse(text.includes(":") ? new URL(`http://[${text}]/`).hostname.slice(1, -1) : text);
  } catch {
    return null;
  }
}

/** What an address is judged as: the IPv4 address an IPv6 form carries, else itself. */
export function judgedAs(text: string): Address {
  const address = parseAddress(text);
  if (address === null) throw new Error(`"${text}" is not an address`);
  if (address.kind() === "ipv4") return address;
  const carrier = IPV4_CARRIERS.find(({ network }) => address.match(network));
  return carrier ? new ipaddr.IPv4(carrier.ipv4(address.toByteArray())) : address;
}

/** The class that makes an address refused, or null for public unicast. */
export function addressClass(text: string): string | null {
  if (isIpv4Compatible(parseAddress(text)!)) return IPV4_COMPATIBLE_WORDS;
  const range = judgedAs(text).range();
  return range === "unicast" ? null : (RANGE_WORDS[range] ?? "a reserved address");
}

/** Allowed when the address itself, or the IPv4 address it is judged as, is in a network open on this port. */
function isAllowed(text: string, port: number, allowed: AllowedNetworks): boolean {
  const candidates = [parseAddress(text)!, judgedAs(text)];
  return candidates.some((a) => allowed.some((n) => (n.port === null || n.port === port) && a.kind() === n.network.kind() && a.match(n.network, n.bits)));
}

function isOwn(text: string, port: number, own: OwnAddresses): boolean {
  if (!own.ports.has(port)) return false;
  const address = judgedAs(text);
  if (["loopback", "unspecified"].includes(address.range())) return true;
  return own.addresses.some((a) => parseAddress(a) !== null && judgedAs(a).toNormalizedString() === address.toNormalizedString());
}

/**
 * The refusal for one resolved address, or null when it may be called. A name's refusal says what kind of address
 * it resolves to, never which: the owner must not learn how the server's resolver maps internal names.
 */
function refusalFor(address: string, port: number, allowed: AllowedNetworks, own: OwnAddresses, host?: string): string | null {
  const subject = host !== undefined && host !== address ? `${host} resolves to` : `${address} is`;
  if (isOwn(address, port, own)) return `refused: ${host ?? address} port ${port} is this server's own address`;
  const kind = addressClass(address);
  if (kind === IPV4_COMPATIBLE_WORDS) return `refused: ${subject} ${kind}`;
  if (kind === null || isAllowed(address, port, allowed)) return null;
  return `refused: ${subject} ${kind}; allow it with ${ALLOWED_NETWORKS_VARIABLE}`;
}

/** The URL's host without IPv6 brackets, and whether it is an address literal (then nothing is resolved). */
function hostOf(url: URL): { host: string; literal: boolean } {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return { host, literal: ipaddr.isValid(host) };
}

const portOf = (url: URL) => (url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80);

/**
 * Checks a webhook target: an http(s) URL whose host resolves only to addresses that may be called. Every
 * address counts, not just the first: a client could connect to any of them.
 */
export async function checkTarget(target: string, allowed: AllowedNetworks, resolve: Resolver = systemResolver, own: OwnAddresses = thisServer()): Promise<TargetCheck> {
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
    if (parseAddress(address) === null) return { ok: false, refused: true, reason: `refused: ${host} resolves to something that is not an address` };
    const refusal = refusalFor(address, portOf(url), allowed, own, literal ? undefined : host);
    if (refusal !== null) return { ok: false, refused: true, reason: refusal };
  }
  return { ok: true, url, addresses };
}
