/**
 * The folders are the architecture (docs/architecture.md, "Rooms and layers"): imports run from a higher layer to a
 * lower one or within a room, and no module imports itself back through others; each room with persistence has one
 * store shape (docs/architecture.md, "One way to the database per room"). Read from the sources' own import
 * statements, so a new upward import or circle fails here before review.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { ROOT } from "../support/env";

/** Each room's layer: a room may import rooms of lower layers only (and itself). */
const LAYERS: Record<string, number> = {
  core: 0,
  db: 1,
  access: 2,
  spots: 2,
  tls: 2,
  tides: 3,
  observations: 3,
  forecast: 4,
  now: 5,
  climate: 5,
  embed: 6,
  alerts: 6,
  config: 7,
  app: 8,
  ops: 9,
  http: 10,
  console: 10,
  mcp: 11,
  server: 12,
  cli: 13,
  main: 14,
};

const SRC = join(ROOT, "src");
const sources = [...new Bun.Glob("**/*.ts").scanSync(SRC)].filter((f) => !f.endsWith(".test.ts") && !f.endsWith(".d.ts") && !f.endsWith(".gen.ts"));
const roomOf = (file: string) => (file.includes("/") ? file.slice(0, file.indexOf("/")) : file.replace(/\.ts$/, ""));

/** The rooms that run the process rather than hold its rules: the only ones that tune the runtime. */
const PROCESS_ROOMS = new Set(["app", "ops", "server", "cli", "main"]);

const texts = new Map(sources.map((file) => [file, readFileSync(join(SRC, file), "utf8")]));

/** file → the src files it imports (type-only imports included: they tie the rooms together all the same). */
const imports = new Map<string, string[]>();
for (const file of sources) {
  const text = texts.get(file)!;
  const targets: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"|\bimport\(\s*"(\.[^"]+)"\s*\)/g)) {
    const resolved = join(dirname(join(SRC, file)), m[1] ?? m[2]!);
    const target = [resolved, `${resolved}.ts`, join(resolved, "index.ts")].find((p) => p.endsWith(".ts") && existsSync(p));
    if (target && target.startsWith(SRC + "/")) targets.push(relative(SRC, target));
  }
  imports.set(file, targets);
}

describe("rooms and layers", () => {
  test("every room has a layer", () => {
    expect([...new Set(sources.map(roomOf))].filter((r) => LAYERS[r] === undefined)).toEqual([]);
    // The reading of imports works: the composition root imports every domain room.
    expect(new Set(imports.get("app.ts")!.map(roomOf))).toEqual(new Set(["access", "alerts", "climate", "config", "core", "db", "embed", "forecast", "now", "observations", "spots", "tides", "tls"]));
  });

  test("no import runs from a lower room to a higher one, or sideways to another room of its layer", () => {
    const wrong: string[] = [];
    for (const [file, targets] of imports) {
      for (const target of targets) {
        const from = roomOf(file);
        const to = roomOf(target);
        if (from !== to && LAYERS[to]! >= LAYERS[from]!) wrong.push(`${file} → ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test("no circle of modules", () => {
    // Tarjan's strongly connected components: any component of more than one module is a circle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[][] = [];
    let next = 0;
    const visit = (v: string) => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      for (const w of imports.get(v) ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        if (component.length > 1) circles.push(component.sort());
      }
    };
    for (const file of imports.keys()) if (!index.has(file)) visit(file);
    expect(circles).toEqual([]);
  });
});

describe("the runtime and module state", () => {
  test("no domain room collects garbage or reads the engine: long jobs call the pacer they are given (core/pacing.ts)", () => {
    const tuning = /\bBun\.(?:gc|shrink)\s*\(|\bedenGC\s*\(|"bun:jsc"/;
    expect(sources.filter((file) => !PROCESS_ROOMS.has(roomOf(file)) && tuning.test(texts.get(file)!))).toEqual([]);
    // The check sees what it looks for: the process rooms do collect.
    expect(tuning.test(texts.get("ops/memory.ts")!)).toBe(true);
  });

  test("no exported module-level set or map of callbacks: listeners belong to what makes the events (App.refreshEvents)", () => {
    // A module-wide registry of listeners, `export const x = new Set<(…) => …>()`: read from the declaration's type.
    const registry = /^export (?:const|let) \w+ = new (?:Set|Map)<[^>(\n]*\([^)\n]*\)\s*=>/m;
    expect(sources.filter((file) => registry.test(texts.get(file)!))).toEqual([]);
    expect(registry.test("export const refreshListeners = new Set<(summary: RefreshSummary) => void>();")).toBe(true);
  });
});

describe("refusals", () => {
  test("no domain room takes an audience: its rules refuse with facts, and the CLI and the console word them (cli/wording.ts, console/wording.ts)", () => {
    const DOMAIN_ROOMS = new Set(["access", "alerts", "embed", "forecast", "spots", "tides"]);
    const audience = /\baudience\b/i;
    expect(sources.filter((file) => DOMAIN_ROOMS.has(roomOf(file)) && audience.test(texts.get(file)!))).toEqual([]);
    // The check sees what it looks for: a service that took its reader as a parameter.
    expect(audience.test('async test(id: string, audience: Audience = "operator")')).toBe(true);
  });
});

describe("one store shape", () => {
  const isStoreImplementation = (file: string) => /\/(sqlite|postgres|drizzle)-store\.ts$/.test(file);
  /** The rooms with persistence: those with a store implementation. */
  const storeRooms = [...new Set(sources.filter(isStoreImplementation).map(roomOf))].sort();
  /** Rooms whose one-server store is not SQLite, with the file that implements it: the data directory keeps TLS keys as 0600 files. */
  const ONE_BOX_STORES: Record<string, string> = { tls: "file-store.ts" };
  const engine = /from\s+"(?:bun:sqlite|drizzle-orm\/(?:sqlite-core|pg-core|bun-sqlite|bun-sql))"|\bBun\.sql\b|\bnew SQL\(/;

  test("each room with persistence declares one asynchronous store interface in store.ts, implemented for SQLite and PostgreSQL", () => {
    expect(storeRooms).toEqual(["access", "alerts", "climate", "console", "embed", "forecast", "observations", "spots", "tides", "tls"]);
    const misshapen = storeRooms.filter((room) => {
      const store = texts.get(`${room}/store.ts`);
      // One drizzle store over either database's dialect, or one store per engine.
      const perEngine = [ONE_BOX_STORES[room] ?? "sqlite-store.ts", "postgres-store.ts"].map((name) => `${room}/${name}`);
      const implemented = texts.has(`${room}/drizzle-store.ts`) || perEngine.every((file) => texts.has(file));
      return !store || !/^export interface \w+Store\b/m.test(store) || !implemented;
    });
    expect(misshapen).toEqual([]);
  });

  test("a store interface names no engine: store.ts imports neither the db room nor drizzle", () => {
    const engineBound = storeRooms.filter((room) => imports.get(`${room}/store.ts`)!.some((target) => roomOf(target) === "db") || /from\s+"drizzle-orm/.test(texts.get(`${room}/store.ts`)!));
    expect(engineBound).toEqual([]);
  });

  test("only db/ and the store implementations import a database engine", () => {
    expect(sources.filter((file) => roomOf(file) !== "db" && !isStoreImplementation(file) && engine.test(texts.get(file)!))).toEqual([]);
    // The check sees what it looks for.
    expect(engine.test(texts.get("db/index.ts")!) && engine.test(texts.get("db/postgres/index.ts")!)).toBe(true);
  });

  test("no service asks which store it holds: no instanceof on a store, no store implementation imported", () => {
    const services = sources.filter((file) => file.endsWith("/service.ts"));
    // tls has no service: its keeper (tls/keeper.ts) holds the store.
    expect(services.length).toBeGreaterThanOrEqual(storeRooms.filter((room) => room !== "tls").length);
    const asking = services.filter((file) => /\binstanceof\s+\w*Store\b/.test(texts.get(file)!) || imports.get(file)!.some(isStoreImplementation));
    expect(asking).toEqual([]);
    expect(/\binstanceof\s+\w*Store\b/.test("if (store instanceof TideStore)")).toBe(true);
  });
});

describe("one mount table", () => {
  /** A regular expression anchored at a path's first slash: a route matched by hand. */
  const pathPattern = /\/\^\\\//;
  /** A request's path compared with a literal path, or with the start or end of one. */
  const pathComparison = /\b(?:path|pathname)\s*[!=]==\s*"\/|\b(?:path|pathname)\.(?:startsWith|endsWith)\(/;
  /** Where a slash is split or compared for what it is not a request path: the reason is the exception. */
  const NOT_REQUEST_PATHS: Record<string, string> = {
    "spots/catalog.ts": "a catalog name with alternatives (`Ribeira d'Ilhas / Ericeira`)",
    "core/proxy.ts": "a CIDR prefix (`10.0.0.0/8`)",
    "cli/healthcheck.ts": "the URL `surfcast healthcheck` is given, completed to /healthz",
    "db/postgres/failure.ts": "the database name in a PostgreSQL URL",
    "embed/origin.ts": "an origin an owner types, which must have no path",
    "forecast/demo.ts": "the requests `serve --demo` would send to Open-Meteo, answered by a function in place of fetch",
    "tls/acme.ts": "the ACME challenge's path on the plain HTTP port of `serve --https`, which answers challenges and redirects everything else to https",
  };
  /** The matcher itself. */
  const MATCHER = "core/paths.ts";

  test("no file matches paths by hand: every route is a row of core/mounts.ts, found by core/paths.ts", () => {
    const byHand = sources.filter((file) => {
      if (file === MATCHER || NOT_REQUEST_PATHS[file]) return false;
      const text = texts.get(file)!;
      return pathPattern.test(text) || text.includes('.split("/")') || pathComparison.test(text);
    });
    expect(byHand).toEqual([]);
    // The checks see what they look for.
    expect(pathPattern.test(String.raw`const CONFIRM = /^\/alerts\/confirm\/([A-Za-z0-9_-]{20,100})$/;`)).toBe(true);
    expect(pathComparison.test(`if (path === "/v1/now")`) && pathComparison.test("path.startsWith(prefix)")).toBe(true);
    for (const [file, reason] of Object.entries(NOT_REQUEST_PATHS)) expect([file, texts.has(file)]).toEqual([file, reason !== ""]);
  });

  test("every server routes through the mount table: the API port's gate and the metrics port", () => {
    // serve.ts only tries the port before the database is opened, answering nothing, and stops at once; web-server.ts
    // listens with the gate's own options over TLS, and beside it on the plain HTTP port of `serve --https` (challenges, redirects).
    expect(sources.filter((file) => texts.get(file)!.includes("Bun.serve(")).sort()).toEqual(["ops/metrics.ts", "server/http.ts", "server/serve.ts", "server/web-server.ts"]);
    expect(texts.get("server/web-server.ts")!).toContain("Bun.serve({ ...this.options,");
    expect(texts.get("server/serve.ts")!).toContain("fetch: () => new Response(null) }).stop(true)");
    expect(texts.get("server/http.ts")!).toContain("createGate(");
    expect(texts.get("http/gate.ts")!).toContain("mountAt(path, req.method)");
    expect(texts.get("ops/metrics.ts")!).toContain("metricsMountAt(");
  });
});
