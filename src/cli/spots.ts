/** `surfcast spots import FILE [--replace]` — replace or extend the spot catalog (see docs/spots.md). */
import { readFileSync } from "node:fs";
import type { App } from "../app";
import { UserError } from "../core/errors";
import { noExtraPositionals, parse, requirePositional } from "./args";
import { checkCatalog, FINDING_KINDS, type FindingKind } from "../spots/check";
import { loadGeography } from "../spots/geography";
import { MODEL_GAPS_META, parseModelGaps, type ModelGap } from "../forecast/model-gaps";

export const SPOTS_HELP = `Usage: surfcast spots import FILE [--replace]
       surfcast spots check [--json]

Imports spots from JSON, GeoJSON or CSV (recognized from the content):
  JSON     [{"name", "lat", "lng", "country", "region"?, "aliases"?, "facing"?, "tideless"?}, …]
           (the default catalog's shape; "country" may be a path: "USA, California, San Diego County")
  GeoJSON  a FeatureCollection of Point features; properties name, alt_name/aliases, country or
           addr:country (ISO code), region or addr:state, facing, tideless (an OpenStreetMap export works)
  CSV      header name,lat,lng,country[,region][,aliases][,facing][,tideless]; aliases separated by ";"

facing (degrees toward open water) and tideless (true/false) override the computed values for a spot.
Bad records are reported with their index or line and skipped; the rest is imported in one transaction.
A spot already in the catalog (same name, country and position) keeps its ids and is updated.

  --replace   the catalog becomes exactly the file's spots; spots not in it are removed with their
              forecasts and tides. Without it, spots are added and updated, none removed.

A running server on the same data directory serves the new catalog within about a second.

spots check lists suspicious records of the loaded catalog, with a count per kind: far from any coastline
(with the distance: lakes, rivers, pools, offshore banks — or a misplaced record), on a country's centroid (a
placeholder position), a latitude or longitude sign that puts the spot outside its country, and duplicates
(same name within 1 km); then what the forecast refreshes found: spots where no wave model sees sea (no
forecast is served there) and wave models left out at a spot because they read only zeros or nothing (docs/forecast.md,
"Several wave models"). --json prints the whole report as JSON. Corrections to the default catalog go in the
overlay data/catalog-overlay.json (docs/spots.md).`;

export async function runSpots(app: App, argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parse(rest, { replace: { type: "boolean" }, json: { type: "boolean" } }, SPOTS_HELP);
  if (values.help || sub === undefined || sub === "help") {
    console.log(SPOTS_HELP);
    return 0;
  }
  if (sub === "check") {
    noExtraPositionals(positionals, 0, SPOTS_HELP);
    return await runCheck(app, values.json === true);
  }
  if (sub !== "import") throw new UserError(`unknown command "spots ${sub}"\n\n${SPOTS_HELP}`);
  noExtraPositionals(positionals, 1, SPOTS_HELP);
  const path = requirePositional(positionals, 0, "FILE", SPOTS_HELP);

  let source: string;
  try {
    source = readFileSync(path, "utf8");
  } catch (err) {
    throw new UserError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const replace = values.replace === true;
  console.log(`importing ${path}${replace ? " (replacing the catalog)" : ""}…`);
  const result = await app.spots.import(source, replace);
  const { file } = result;
  for (const p of file.problems) console.error(`skipped ${p.where}: ${p.message}`);
  console.log(`read ${file.total} ${file.format === "csv" ? "CSV rows" : file.format === "geojson" ? "GeoJSON features" : "JSON records"}: ${file.records.length} valid, ${file.problems.length} skipped`);
  console.log(`spots: ${result.added} added, ${result.updated} updated, ${result.unchanged} unchanged, ${result.removed} removed, ${file.problems.length} skipped; catalog now ${app.spots.all().length} spots`);
  return 0;
}

const KIND_LABEL: Record<FindingKind, string> = {
  far_from_coast: "far from any coastline",
  country_centroid: "on a country centroid",
  wrong_hemisphere: "sign in the wrong hemisphere for the country",
  duplicate: "duplicates (same name within 1 km)",
};

async function runCheck(app: App, json: boolean): Promise<number> {
  const report = checkCatalog(app.spots.all(), loadGeography());
  const gaps = Object.entries(parseModelGaps(await app.stores.meta.read(MODEL_GAPS_META))).filter(([id]) => app.spots.find(id));
  if (json) {
    console.log(JSON.stringify({ ...report, modelGaps: Object.fromEntries(gaps) }, null, 2));
    return 0;
  }
  console.log(`checked ${report.spots} spots: ${FINDING_KINDS.map((k) => `${report.counts[k]} ${KIND_LABEL[k]}`).join(", ")}`);
  for (const kind of FINDING_KINDS) {
    const found = report.findings.filter((f) => f.kind === kind);
    if (!found.length) continue;
    console.log(`\n${KIND_LABEL[kind]} (${found.length}):`);
    for (const f of found) console.log(`  ${f.id}  ${f.name} (${f.country})  ${f.lat.toFixed(4)}, ${f.lng.toFixed(4)}  ${f.detail}`);
  }
  if (report.unknownCountries.length) console.log(`\ncountries without a shape (no centroid or hemisphere check): ${report.unknownCountries.join(", ")}`);
  printModelGaps(app, gaps);
  return 0;
}

/** What the refreshes found: wave models reading only zeros or nothing at a spot (a cell on land, a model not covering it). */
function printModelGaps(app: App, gaps: [string, ModelGap][]): void {
  if (gaps.length === 0) return;
  const sealess = gaps.filter(([, g]) => g.sealess);
  const describe = ([id, g]: [string, ModelGap]) => {
    const spot = app.spots.find(id)!;
    const models = Object.entries(g.leftOut).map(([model, why]) => `${model}: ${why}`).join(", ");
    return `  ${id}  ${spot.name} (${spot.country})  ${spot.lat.toFixed(4)}, ${spot.lng.toFixed(4)}  ${models}  (refresh of ${g.at.slice(0, 16).replace("T", " ")} UTC)`;
  };
  if (sealess.length > 0) {
    console.log(`\nno wave model sees sea, so no forecast is served (${sealess.length}): a position on land, or a grid cell that is — move the spot seaward`);
    for (const gap of sealess) console.log(describe(gap));
  }
  const partial = gaps.filter(([, g]) => !g.sealess);
  if (partial.length > 0) {
    console.log(`\nwave models left out where the others see sea (${partial.length}): their nearest cell is on land, or they do not cover the spot`);
    for (const gap of partial) console.log(describe(gap));
  }
}
