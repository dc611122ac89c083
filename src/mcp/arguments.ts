/**
 * Unknown tool arguments are refused, naming the argument meant: `radius` for `radius_km` must not be dropped in
 * silence (the SDK's zod objects strip unknown keys, so the call would run with the default radius and look right).
 * Pure; the /mcp handler asks before the SDK sees the call (server.ts).
 */
import { invalidRequest, type ApiError } from "../core/errors";

/** Names a client may mean by another: the /v1 names, and common spellings. Used only when the target is accepted. */
const ALIASES: Record<string, string> = {
  q: "query",
  search: "query",
  name: "query",
  text: "query",
  radius: "radius_km",
  distance: "radius_km",
  km: "radius_km",
  id: "spot_id",
  spot: "spot_id",
  slug: "spot_id",
  latitude: "lat",
  longitude: "lng",
  lon: "lng",
  long: "lng",
  day: "days",
  unit: "units",
  count: "limit",
  max: "limit",
  n: "limit",
  size: "limit",
  skill: "level",
  hour: "hours",
};

const normalize = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/** Edit distance counting a swap of two neighbours as one edit (`levle` → `level`), or `max + 1` once it is above `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row[j] = d;
    }
    if (Math.min(...row) > max) return max + 1;
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** The accepted name a client most likely meant by `given`, or null when none is close. */
export function suggestArgument(given: string, accepted: readonly string[]): string | null {
  const g = normalize(given);
  if (g === "") return null;
  const alias = Object.hasOwn(ALIASES, g) ? ALIASES[g] : undefined;
  if (alias && accepted.includes(alias)) return alias;
  const same = accepted.find((a) => normalize(a) === g);
  if (same) return same;
  // "radius" for "radius_km", "spotid" for "spot_id", "days_ahead" for "days"
  const prefix = accepted.find((a) => g.length >= 3 && (normalize(a).startsWith(g) || g.startsWith(normalize(a))));
  if (prefix) return prefix;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const a of accepted) {
    const max = Math.min(2, Math.floor(normalize(a).length / 3));
    const d = distance(g, normalize(a), max);
    if (d <= max && d < bestDistance) [best, bestDistance] = [a, d];
  }
  return best;
}

const MAX_LISTED = 5;
const shown = (name: string) => JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);

/**
 * The error for arguments `tool` does not take, or null when every one is known: `unknown argument "radius" (did you
 * mean "radius_km"?). spots_nearby takes lat, lng, radius_km, limit.`
 */
export function unknownArguments(tool: string, accepted: readonly string[], args: Record<string, unknown>): ApiError | null {
  const unknown = Object.keys(args).filter((k) => !accepted.includes(k));
  if (unknown.length === 0) return null;
  const named = unknown.slice(0, MAX_LISTED).map((k) => {
    const meant = suggestArgument(k, accepted);
    return meant ? `${shown(k)} (did you mean "${meant}"?)` : shown(k);
  });
  const more = unknown.length > MAX_LISTED ? ` and ${unknown.length - MAX_LISTED} more` : "";
  return invalidRequest(`unknown argument${unknown.length === 1 ? "" : "s"} ${named.join(", ")}${more}. ${tool} takes ${accepted.join(", ")}.`);
}
