/**
 * The origins an embed may be framed by, as they go into `Content-Security-Policy: frame-ancestors`. Only
 * `http(s)://host[:port]` is accepted, checked character by character rather than by a URL parser (WHATWG URL
 * parsing accepted `https://*`, `https://a;sandbox`, `https://a,b` and `https://a'x'`, and a `;` let the owner
 * add directives such as `report-uri` to the policy). What passes is written back in one canonical form, so the
 * header can only ever hold source expressions of CSP's host-source grammar.
 *
 * - scheme `http` or `https` (any case), then `://`;
 * - host: a DNS name of LDH labels (letters, digits, hyphens; 1..63 characters, no hyphen at either end; at most
 *   253 in all; no trailing dot), `localhost`, or an IPv4 address in dotted-quad form. A name whose last label is
 *   a number (`1.2.3`, `a.0x1f`) is refused: URL parsers read it as an IPv4 address, so it would never match.
 *   No wildcards (list each site), no IPv6 literals (CSP's host-source grammar has no brackets), no IDN in
 *   Unicode (give its `xn--` form);
 * - an optional port 1..65535 without leading zeros (the scheme's default port is dropped);
 * - nothing after but an optional `/`: no user, path, query or fragment, no spaces, quotes, `;` or `,`.
 */
import { UserError } from "../core/errors";

const SHAPE = /^(https?):\/\/([a-z0-9.-]+)(?::([1-9][0-9]{0,4}))?\/?$/i;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
/** A last label URL parsers take for a number (WHATWG "ends in a number"). */
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/;
const DEFAULT_PORT: Record<string, string> = { http: "80", https: "443" };
const MAX_INPUT = 300;

/** The typed text as it may be shown back on one line: quoted, control and non-ASCII characters escaped, cut. */
function shown(raw: string): string {
  const escaped = raw.replace(/[^\x20-\x7e]|["\\]/g, (c) => (c === '"' || c === "\\" ? "\\" + c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
  return `"${escaped.length > 80 ? escaped.slice(0, 80) + "..." : escaped}"`;
}

/** Why a text that failed the shape is not an origin, in the owner's words. */
function reason(text: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined || !text.slice(scheme.length + 1).startsWith("//")) return "give the scheme and host, like https://shop.example";
  if (scheme !== "http" && scheme !== "https") return "only http:// and https:// sites can show it";
  const rest = text.slice(scheme.length + 3);
  if (rest.includes("*")) return "wildcards are not accepted: list each site (https://www.shop.example, https://shop.example)";
  if (rest.startsWith("[")) return "IPv6 addresses cannot be allowed (a Content-Security-Policy cannot name them): use the site's host name";
  const authority = /^[^/?#]*/.exec(rest)![0];
  if (authority.includes("@")) return "no user name or password: just scheme, host and port";
  if (rest.length > authority.length && !/^\/?$/.test(rest.slice(authority.length))) return "no path, query or fragment: just scheme, host and port";
  const port = /:([^:]*)$/.exec(authority)?.[1];
  if (port !== undefined && !/^[1-9][0-9]{0,4}$/.test(port)) return "a port is a number from 1 to 65535";
  return "a host name is made of letters, digits, hyphens and dots (one origin per entry, no spaces, quotes, commas or semicolons)";
}

/** The canonical origin (`https://shop.example`, `http://localhost:8080`) or the reason it is not one. */
export function parseOrigin(raw: string): { origin: string } | { problem: string } {
  const text = raw.trim();
  if (text.length === 0 || text.length > MAX_INPUT) return { problem: "give the scheme and host, like https://shop.example" };
  const m = SHAPE.exec(text);
  if (!m) return { problem: reason(text) };
  const scheme = m[1]!.toLowerCase();
  const host = m[2]!.toLowerCase();
  const port = m[3];
  if (!IPV4.test(host)) {
    const labels = host.split(".");
    if (host.length > 253 || !labels.every((l) => LABEL.test(l))) {
      return { problem: "a host name is labels of 1 to 63 letters, digits and hyphens (no hyphen at either end), joined by single dots" };
    }
    if (NUMERIC_LABEL.test(labels.at(-1)!)) return { problem: "a host name cannot end in a number (write an IPv4 address in full, like 192.0.2.10)" };
  }
  if (port !== undefined && Number(port) > 65535) return { problem: "a port is a number from 1 to 65535" };
  const kept = port === undefined || port === DEFAULT_PORT[scheme] ? "" : `:${port}`;
  return { origin: `${scheme}://${host}${kept}` };
}

/** The canonical origin, or a UserError of one line naming what was typed and why it is refused. */
export function originOf(raw: string): string {
  const parsed = parseOrigin(raw);
  if ("problem" in parsed) throw new UserError(`${shown(raw)} is not an origin: ${parsed.problem}`);
  return parsed.origin;
}

/** Whether a text is already an origin in canonical form (a stored origin read back). */
export function isCanonicalOrigin(text: string): boolean {
  const parsed = parseOrigin(text);
  return "origin" in parsed && parsed.origin === text;
}
