/**
 * The request target, reduced to one form before anything decides on it. Bun builds `request.url` from the Host
 * header: with no Host (HTTP/1.0 may omit it) or one it cannot use (empty, `x/y`, `a b`) it hands over the bare
 * origin-form target (`/v1/spots/x`), and it keeps some odd hosts (`[zz`, `localhost:abc`) as they come. The router
 * reads the path at an offset of that URL, so the gate and the router could see different paths. Every request
 * therefore passes through `targetOf()` first: a request the router would read differently is rebuilt or refused,
 * and the path the gate decides on is the path the router will route.
 */

/** A request with its canonical path, or the reason it cannot be served. */
export type Target = { ok: true; path: string; request: Request } | { ok: false; reason: string };

/** A DNS name or IPv4 address (letters, digits, `.`, `-`, `_`), or a bracketed IPv6 literal; then an optional port. */
const HOST = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::([0-9]{1,5}))?$/;

export function validHost(host: string): boolean {
  const m = HOST.exec(host);
  return m !== null && (m[1] === undefined || (Number(m[1]) > 0 && Number(m[1]) <= 65535));
}

function pathFrom(url: string, start: number): string {
  const q = url.indexOf("?", start);
  return q === -1 ? url.slice(start) : url.slice(start, q);
}

const BAD_HOST = "The Host header is not a valid host name: send the name (and port) of this server, e.g. 'Host: api.example.com'.";

/** `scheme://host/` of the last request whose host passed: nearly every request repeats it, and skips the check. */
let lastGoodOrigin = "http://localhost/";

export function targetOf(req: Request): Target {
  const url = req.url;
  if (url.startsWith(lastGoodOrigin)) return { ok: true, path: pathFrom(url, lastGoodOrigin.length - 1), request: req };
  if (url.startsWith("http://") || url.startsWith("https://")) {
    const hostStart = url.indexOf("//") + 2;
    const pathStart = url.indexOf("/", hostStart);
    if (pathStart === -1 || !validHost(url.slice(hostStart, pathStart))) return { ok: false, reason: BAD_HOST };
    lastGoodOrigin = url.slice(0, pathStart + 1);
    return { ok: true, path: pathFrom(url, pathStart), request: req };
  }
  // Bun could not use the Host. None at all is HTTP/1.0 (health checkers send that): serve it as if it named
  // this server. A Host that is present but unusable is a client error.
  if (url.charCodeAt(0) !== 47 /* "/" */) return { ok: false, reason: "The request target must be a path starting with '/'." };
  if (req.headers.get("host") !== null) return { ok: false, reason: BAD_HOST };
  const request = new Request(`http://localhost${url}`, req);
  return { ok: true, path: pathFrom(request.url, "http://localhost".length), request };
}
