/**
 * The one path matcher of the server: path templates compiled once into a table, then matched without allocating
 * (every request asks, /v1's hot path included). A template is a path whose segments are literal text, `{name}`
 * (one non-empty segment, which may end in literal text: `{token}.ics`), or, as the last segment, `*`: whatever
 * follows, possibly nothing (`/console/*` matches `/console/` and everything below it, not `/console`).
 *
 * Order of precedence: a fixed path, then the templates in table order, then, for a path ending in `/`, a row that
 * takes the same path without it (`trailingSlash`), then the `*` rows. A row that names its methods matches only
 * requests of those methods; the others fall through to what comes after it.
 */

export interface PathRow {
  readonly path: string;
  /** The methods the row answers; absent, its handler takes every method. */
  readonly methods?: readonly string[];
  /** The row also answers its path followed by one `/`. */
  readonly trailingSlash?: boolean;
}

/** A template as the literal text before its first parameter, then each parameter with the literal text after it. */
interface Compiled {
  readonly prefix: string;
  readonly params: readonly { readonly name: string; readonly after: string }[];
  readonly indexOf: ReadonlyMap<string, number>;
}

/** `{name}` and the literal text up to the next parameter (or the end). */
const PARAMETER = /\{(\w+)\}([^{]*)/g;

function compile(path: string): Compiled {
  const first = path.indexOf("{");
  const params = [...path.slice(first).matchAll(PARAMETER)].map((m) => ({ name: m[1]!, after: m[2]! }));
  return { prefix: path.slice(0, first), params, indexOf: new Map(params.map((p, i) => [p.name, i])) };
}

/**
 * Whether `path` fits the template; when it does, the text of parameter `wanted` (`""` for -1, which slices nothing).
 * A parameter runs to the end of its segment, less the literal text that ends the segment in the template.
 */
function walk({ prefix, params }: Compiled, path: string, wanted: number): string | null {
  if (!path.startsWith(prefix)) return null;
  if (params.length === 1) {
    // One parameter (every /v1 template): it is what lies between the two literals, and holds no slash.
    const { after } = params[0]!;
    const end = path.length - after.length;
    if (end <= prefix.length || !path.endsWith(after)) return null;
    const slash = path.indexOf("/", prefix.length);
    if (slash !== -1 && slash < end) return null;
    return wanted === 0 ? path.slice(prefix.length, end) : "";
  }
  let at = prefix.length;
  let found = "";
  for (let i = 0; i < params.length; i++) {
    const { after } = params[i]!;
    const slash = path.indexOf("/", at);
    const segmentEnd = slash === -1 ? path.length : slash;
    const inSegment = after.indexOf("/");
    const end = segmentEnd - (inSegment === -1 ? after.length : inSegment);
    if (end <= at || !path.startsWith(after, end)) return null;
    if (i === wanted) found = path.slice(at, end);
    at = end + after.length;
  }
  return at === path.length ? found : null;
}

export interface PathTable<R extends PathRow> {
  /** The row serving `path` for `method` (any method when absent), or null. */
  match(path: string, method?: string): R | null;
  /** The text of a matched row's parameter `name` as it stands in the path (not decoded); null when the row has none. */
  param(row: R, path: string, name: string): string | null;
}

export function compilePaths<R extends PathRow>(rows: readonly R[]): PathTable<R> {
  const takes = (row: R, method: string | undefined) => method === undefined || row.methods === undefined || row.methods.includes(method);
  const fixed = new Map<string, R>();
  const templates: { row: R; compiled: Compiled }[] = [];
  const rests: { row: R; prefix: string }[] = [];
  const compiledOf = new Map<R, Compiled>();
  for (const row of rows) {
    if (row.path.endsWith("/*")) {
      rests.push({ row, prefix: row.path.slice(0, -1) });
    } else if (row.path.includes("{")) {
      const compiled = compile(row.path);
      templates.push({ row, compiled });
      compiledOf.set(row, compiled);
    } else {
      if (fixed.has(row.path)) throw new Error(`two rows for ${row.path}`);
      fixed.set(row.path, row);
    }
  }

  const exact = (path: string, method: string | undefined): R | null => {
    const row = fixed.get(path);
    if (row && takes(row, method)) return row;
    for (const { row, compiled } of templates) if (walk(compiled, path, -1) !== null && takes(row, method)) return row;
    return null;
  };

  return {
    match(path, method) {
      const found = exact(path, method);
      if (found) return found;
      if (path.length > 1 && path.endsWith("/")) {
        const withoutSlash = exact(path.slice(0, -1), method);
        if (withoutSlash?.trailingSlash) return withoutSlash;
      }
      for (const { row, prefix } of rests) if (path.startsWith(prefix) && takes(row, method)) return row;
      return null;
    },
    param(row, path, name) {
      const compiled = compiledOf.get(row);
      const index = compiled?.indexOf.get(name);
      if (!compiled || index === undefined) return null;
      return walk(compiled, path, index) ?? walk(compiled, path.slice(0, -1), index)!;
    },
  };
}
