/**
 * Conditional GETs (RFC 9110 §13.1.2): If-None-Match compares entity tags weakly — `W/"x"` matches `"x"` — takes a
 * list of tags, and `*` matches any current representation. The /v1 routes and the embeds share it.
 */

/** An entity tag in a list: its weak marker and its quoted opaque part (which may hold commas). */
const ENTITY_TAG = /\s*(?:W\/)?("[^"]*")\s*(?:,|$)/gy;

/** The quoted part of a tag, without its weak marker. */
const opaqueOf = (tag: string) => (tag.startsWith("W/") ? tag.slice(2) : tag);

/** Whether a request's If-None-Match names the representation whose tag is `etag` (a 304 then answers a GET or HEAD). */
export function noneMatchHolds(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  // The common case first: a client sending back the tag it was given.
  if (ifNoneMatch === etag) return true;
  if (ifNoneMatch.trim() === "*") return true;
  const wanted = opaqueOf(etag);
  ENTITY_TAG.lastIndex = 0;
  for (let m = ENTITY_TAG.exec(ifNoneMatch); m !== null && m[0] !== ""; m = ENTITY_TAG.exec(ifNoneMatch)) {
    if (m[1] === wanted) return true;
  }
  return false;
}
