/**
 * Builds the single executable `dist/surfcast`.
 *
 * What a plain `bun build --compile` would miss, and how it is embedded here:
 * - the tide database: `@neaps/tide-database` reads `../generated/neaps.tcdb` relative to its own module at load
 *   time; the plugin rewrites that read to an import `with {type: "file"}`, which embeds the file.
 * - the default spot catalog: `src/spots/default-catalog.ts` imports it `with {type: "file"}`; the plugin points
 *   that import at `SPOTS_SOURCE` when set (default `../shared/data/spots/surfspots.json`).
 * - migrations: embedded as code (`src/db/migrations.gen.ts`).
 * - the bytecode layout: the functions a running server uses are placed together (Bun's profile-guided
 *   `bytecodeOrder`), from dist/bytecode-order.txt; when that file is missing (a fresh clone), a native build of the
 *   server is built once without it, recorded by scripts/bytecode-order.ts, and built again.
 * - the place-name gazetteer: the GeoNames towns near the catalog's spots (scripts/towns.ts) are written to
 *   dist/towns.json (never committed: derived from the catalog); the plugin replaces `src/spots/towns-file.ts`
 *   with an import of that file `with {type: "file"}`, which embeds it.
 * - what the station rule and the facing method decide for the default catalog's spots (scripts/tide-choices.ts,
 *   scripts/facings.ts; docs/tides.md, "Loading cost"), made again when the catalog, the rule or the method changed:
 *   written to dist/tide-choices.json.gz and dist/facings.json.gz (never committed) and embedded the same way, in place of
 *   `src/tides/built-choices-file.ts` and `src/forecast/built-facings-file.ts`.
 * - the default catalog's first import (scripts/default-seed.ts; docs/spots.md): the spots it adds to an empty
 *   database, made again when the catalog or the import code changed, written to dist/default-seed.json.gz and
 *   embedded in place of `src/spots/built-seed-file.ts`.
 */
import type { BunPlugin } from "bun";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { townSubset } from "./towns";
import { writeTideChoices } from "./tide-choices";
import { writeDefaultSeed } from "./default-seed";
import { writeFacings } from "./facings";
import { recordBytecodeOrder } from "./bytecode-order";
import { dirname, join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const outfile = process.env.OUTFILE ? resolve(process.env.OUTFILE) : join(root, "dist/surfcast");
/** Another entry point compiled the same way (bench/memory.ts compiles bench/week-server.ts); default src/main.ts. */
const entry = resolve(process.env.ENTRY ?? join(root, "src/main.ts"));
const spotsSource = resolve(process.env.SPOTS_SOURCE ?? join(root, "../shared/data/spots/surfspots.json"));
/** A Bun compile target (`bun-linux-arm64`, `bun-darwin-arm64`, …) for a cross-compiled binary; default: this machine. */
const target = process.env.BUILD_TARGET as Bun.Build.CompileTarget | undefined;

if (!existsSync(spotsSource)) {
  console.error(`build: spot catalog not found at ${spotsSource} (set SPOTS_SOURCE=path/to/surfspots.json)`);
  process.exit(1);
}

const townsFile = join(root, "dist/towns.json");
mkdirSync(dirname(townsFile), { recursive: true });
const catalogText = readFileSync(spotsSource, "utf8");
const towns = JSON.stringify(townSubset(catalogText));
// Tests that search from source read this file while the release test cross-builds in parallel: replace it whole
// (a rename), and only when it changed, so a reader never sees it half written.
if (!existsSync(townsFile) || readFileSync(townsFile, "utf8") !== towns) {
  writeFileSync(`${townsFile}.${process.pid}`, towns);
  renameSync(`${townsFile}.${process.pid}`, townsFile);
}

const choicesFile = join(root, "dist/tide-choices.json.gz");
const facingsFile = join(root, "dist/facings.json.gz");
const seedFile = join(root, "dist/default-seed.json.gz");
await writeTideChoices(catalogText, choicesFile);
await writeFacings(catalogText, facingsFile);
await writeDefaultSeed(catalogText, seedFile);

/** A module that exports the path of an embedded file: `export const <name> = <the file, embedded>`. */
const embeddedPath = (name: string, file: string) => ({
  contents: `import embedded from ${JSON.stringify(file)} with { type: "file" };\nexport const ${name} = embedded;`,
  loader: "js" as const,
});

const embedPlugin: BunPlugin = {
  name: "surfcast-embed",
  setup(build) {
    build.onResolve({ filter: /surfspots\.json$/ }, () => ({ path: spotsSource }));
    // A redirected import loses its `type: "file"` attribute: load it as a file again, so the binary embeds the
    // catalog's bytes and the import yields their path (not a parsed array).
    build.onLoad({ filter: /surfspots\.json$/ }, async (args) => ({ contents: await Bun.file(args.path).text(), loader: "file" }));
    build.onLoad({ filter: /[\\/]spots[\\/]towns-file\.ts$/ }, () => embeddedPath("townsFile", townsFile));
    build.onLoad({ filter: /[\\/]tides[\\/]built-choices-file\.ts$/ }, () => embeddedPath("builtChoicesFile", choicesFile));
    build.onLoad({ filter: /[\\/]forecast[\\/]built-facings-file\.ts$/ }, () => embeddedPath("builtFacingsFile", facingsFile));
    build.onLoad({ filter: /[\\/]spots[\\/]built-seed-file\.ts$/ }, () => embeddedPath("builtSeedFile", seedFile));
    build.onLoad({ filter: /@neaps[\\/]tide-database[\\/]dist[\\/]node[\\/]index\.js$/ }, async (args) => {
      const source = await Bun.file(args.path).text();
      const tcdb = join(dirname(args.path), "../generated/neaps.tcdb");
      const needle = "new URL(`../generated/neaps.tcdb`,import.meta.url)";
      if (!source.includes(needle)) throw new Error("build: @neaps/tide-database changed how it loads neaps.tcdb");
      const patched =
        `import __surfcastTcdb from ${JSON.stringify(tcdb)} with { type: "file" };\n` +
        source.replace(needle, "__surfcastTcdb");
      return { contents: patched, loader: "js" };
    });
  },
};

/** The recorded bytecode order (never committed: recorded from this tree's own binary, see scripts/bytecode-order.ts). */
const orderFile = join(root, "dist/bytecode-order.txt");

async function build(bytecodeOrder: string | false): Promise<void> {
  const result = await Bun.build({
    // The tide station worker (src/tides/station-database.ts starts it) is an entrypoint of its own, as Bun requires.
    entrypoints: [entry, join(root, "src/tides/station-worker.ts")],
    compile: { outfile, ...(target ? { target } : {}), bytecodeOrder },
    minify: true,
    // Precompiled bytecode: a start parses no JavaScript (restart to first /healthz ~100 ms sooner, #18).
    bytecode: true,
    format: "esm",
    sourcemap: "linked",
    target: "bun",
    plugins: [embedPlugin],
    define: { "process.env.SURFCAST_BUILD": JSON.stringify(new Date().toISOString()) },
  });
  if (!result.success) {
    for (const message of result.logs) console.error(message);
    process.exit(1);
  }
}

const started = performance.now();
const haveOrder = existsSync(orderFile);
await build(haveOrder && orderFile);
// Only the server itself, built for this machine, can be run to record the order.
if (!haveOrder && !target && !process.env.ENTRY) {
  await recordBytecodeOrder(outfile, orderFile);
  await build(orderFile);
}
console.log(`built ${outfile} in ${((performance.now() - started) / 1000).toFixed(1)}s (catalog: ${spotsSource})`);
