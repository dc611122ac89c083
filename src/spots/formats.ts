/**
 * Import file formats → validated spot records. Three shapes are read (see docs/spots.md):
 * - JSON: an array of `{name, lat, lng, country, region?, aliases?, facing?, tideless?}` — the default
 *   catalog's shape (lat/lng may be strings there);
 * - GeoJSON: a FeatureCollection of Point features (OpenStreetMap exports: name, alt_name, addr:country…);
 * - CSV with a header: name,lat,lng,country[,region][,aliases][,facing][,tideless].
 * A bad record is reported with where it stands (JSON index, GeoJSON feature index, CSV line) and skipped;
 * a file that cannot be read as any of them is rejected as a whole. Pure: text in, records out.
 */
import { UserError } from "../core/errors";
import { hexIdOf, splitCountryPath, type SpotRecord } from "./catalog";

export type ImportFormat = "json" | "geojson" | "csv";

export interface ParsedRecord extends SpotRecord {
  hexId: string;
  /** Where the record stands in the file, e.g. `index 12`, `feature 3`, `line 7`. */
  where: string;
}

export interface Problem {
  where: string;
  message: string;
}

export interface ParsedFile {
  format: ImportFormat;
  /** Records that passed validation, first occurrence of each identity only. */
  records: ParsedRecord[];
  /** Skipped records and why. */
  problems: Problem[];
  /** Records found in the file, good and bad. */
  total: number;
}

/** The fields every format is mapped onto before validation. */
interface RawSpot {
  name?: unknown;
  lat?: unknown;
  lng?: unknown;
  country?: unknown;
  region?: unknown;
  aliases?: unknown;
  facing?: unknown;
  tideless?: unknown;
}

class BadRecord extends Error {}

const DECIMAL = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
const MAX_TEXT = 200;

function text(value: unknown, field: string, required: boolean): string | null {
  if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) {
    if (required) throw new BadRecord(`missing ${field}`);
    return null;
  }
  if (typeof value !== "string") throw new BadRecord(`${field} must be a string`);
  const s = value.trim();
  if (s.length > MAX_TEXT) throw new BadRecord(`${field} is longer than ${MAX_TEXT} characters`);
  return s;
}

function number(value: unknown, field: string, min: number, max: number, required: boolean): number | null {
  if (value === undefined || value === null || value === "") {
    if (required) throw new BadRecord(`missing ${field}`);
    return null;
  }
  const n = typeof value === "number" ? value : typeof value === "string" && DECIMAL.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < min || n > max) throw new BadRecord(`${field} must be a number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return n === 0 ? 0 : n;
}

const TRUE = new Set(["true", "yes", "1"]);
const FALSE = new Set(["false", "no", "0"]);

function flag(value: unknown, field: string): boolean | null {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value === "boolean") return value;
  const s = String(value).trim().toLowerCase();
  if (TRUE.has(s)) return true;
  if (FALSE.has(s)) return false;
  throw new BadRecord(`${field} must be true or false, got ${JSON.stringify(value)}`);
}

/** Aliases as an array of strings or one string separated by `;` (OpenStreetMap's list separator). */
function aliasList(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== "string") throw new BadRecord("aliases must be strings");
    out.push(...item.split(";").map((a) => a.trim()).filter((a) => a !== ""));
  }
  if (out.some((a) => a.length > MAX_TEXT)) throw new BadRecord(`an alias is longer than ${MAX_TEXT} characters`);
  return out;
}

function toRecord(raw: RawSpot): Omit<ParsedRecord, "where"> {
  const name = text(raw.name, "name", true)!;
  const path = splitCountryPath(text(raw.country, "country", true)!);
  if (path.country === "") throw new BadRecord("missing country");
  const extraRegion = text(raw.region, "region", false);
  const region = [path.region, extraRegion].filter((r) => r !== null).join(", ") || null;
  const lat = number(raw.lat, "lat", -90, 90, true)!;
  const lng = number(raw.lng, "lng", -180, 180, true)!;
  const facing = number(raw.facing, "facing", 0, 360, false);
  const aliases = [...new Set(aliasList(raw.aliases).filter((a) => a !== name))];
  const record: SpotRecord = { name, country: path.country, region, lat, lng, aliases, facing: facing === 360 ? 0 : facing, tideless: flag(raw.tideless, "tideless") };
  return { ...record, hexId: hexIdOf(record) };
}

// ── the three shapes ────────────────────────────────────────────────────────────────────────────

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });

/** OpenStreetMap's addr:country is an ISO 3166-1 alpha-2 code: shown as the English country name. */
function countryOf(props: Record<string, unknown>): unknown {
  if (props.country !== undefined) return props.country;
  const code = props["addr:country"];
  if (typeof code === "string" && /^[A-Za-z]{2}$/.test(code.trim())) {
    try {
      return regionNames.of(code.trim().toUpperCase()) ?? code;
    } catch {
      return code;
    }
  }
  return code;
}

function geoJsonSpots(collection: Record<string, unknown>): { where: string; raw: () => RawSpot }[] {
  if (!Array.isArray(collection.features)) throw new UserError("GeoJSON: a FeatureCollection needs a `features` array");
  return collection.features.map((feature: unknown, i: number) => ({
    where: `feature ${i}`,
    raw: (): RawSpot => {
      if (!isObject(feature) || !isObject(feature.geometry) || feature.geometry.type !== "Point") throw new BadRecord("not a Point feature");
      const coordinates = feature.geometry.coordinates;
      if (!Array.isArray(coordinates) || coordinates.length < 2) throw new BadRecord("a Point needs [lng, lat] coordinates");
      const props = isObject(feature.properties) ? feature.properties : {};
      const aliases = [props.aliases, props.alt_name].filter((a) => a !== undefined && a !== null);
      return {
        name: props.name,
        lat: coordinates[1],
        lng: coordinates[0],
        country: countryOf(props),
        region: props.region ?? props["addr:state"],
        aliases: aliases.flat(),
        facing: props.facing,
        tideless: props.tideless,
      };
    },
  }));
}

function jsonSpots(records: unknown[]): { where: string; raw: () => RawSpot }[] {
  return records.map((record, i) => ({
    where: `index ${i}`,
    raw: (): RawSpot => {
      if (!isObject(record)) throw new BadRecord("not an object");
      return record;
    },
  }));
}

/** RFC 4180 rows (quoted fields may hold commas, quotes as `""` and newlines), each with its first line number. */
function csvRows(source: string): { line: number; fields: string[] }[] {
  const rows: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  const endRow = () => {
    fields.push(field);
    if (fields.length > 1 || fields[0]!.trim() !== "") rows.push({ line: rowLine, fields });
    fields = [];
    field = "";
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (quoted) {
      if (c === '"' && source[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === "\n") line++;
        field += c;
      }
    } else if (c === '"' && field.trim() === "") {
      quoted = true;
      field = "";
    } else if (c === ",") {
      fields.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && source[i + 1] === "\n") i++;
      endRow();
      rowLine = ++line;
    } else field += c;
  }
  if (quoted) throw new UserError(`CSV: a quoted field opened on line ${rowLine} is never closed`);
  endRow();
  return rows;
}

const CSV_COLUMNS = ["name", "lat", "lng", "country", "region", "aliases", "facing", "tideless"] as const;
const CSV_REQUIRED = ["name", "lat", "lng", "country"];

function csvSpots(source: string): { where: string; raw: () => RawSpot }[] {
  const [header, ...rows] = csvRows(source);
  if (!header) throw new UserError("CSV: the file is empty");
  const columns = header.fields.map((f) => f.trim().toLowerCase());
  const unknown = columns.filter((c) => !(CSV_COLUMNS as readonly string[]).includes(c));
  const missing = CSV_REQUIRED.filter((c) => !columns.includes(c));
  if (unknown.length > 0 || missing.length > 0) {
    const what = [missing.length ? `missing column(s) ${missing.join(", ")}` : "", unknown.length ? `unknown column(s) ${unknown.join(", ")}` : ""].filter(Boolean).join("; ");
    throw new UserError(`CSV header on line ${header.line}: ${what} (columns: ${CSV_COLUMNS.join(",")}; name,lat,lng,country required)`);
  }
  return rows.map(({ line, fields }) => ({
    where: `line ${line}`,
    raw: (): RawSpot => {
      if (fields.length !== columns.length) throw new BadRecord(`expected ${columns.length} fields, got ${fields.length}`);
      return Object.fromEntries(columns.map((c, i) => [c, fields[i]!.trim()]));
    },
  }));
}

/** Reads an import file; the format is recognized from the content, not the file name. */
export function parseImport(source: string): ParsedFile {
  const body = source.replace(/^\uFEFF/, "");
  const start = body.trimStart()[0];
  let format: ImportFormat;
  let entries: { where: string; raw: () => RawSpot }[];
  if (start === "[" || start === "{") {
    let data: unknown;
    try {
      data = JSON.parse(body);
    } catch (err) {
      throw new UserError(`not valid JSON: ${(err as Error).message}`);
    }
    if (Array.isArray(data)) [format, entries] = ["json", jsonSpots(data)];
    else if (isObject(data) && data.type === "FeatureCollection") [format, entries] = ["geojson", geoJsonSpots(data)];
    else throw new UserError("JSON must be an array of spots or a GeoJSON FeatureCollection");
  } else [format, entries] = ["csv", csvSpots(body)];

  const records: ParsedRecord[] = [];
  const problems: Problem[] = [];
  const firstSeen = new Map<string, string>();
  for (const { where, raw } of entries) {
    try {
      const record = toRecord(raw());
      const earlier = firstSeen.get(record.hexId);
      if (earlier !== undefined) throw new BadRecord(`duplicate of the spot at ${earlier} (same name, country and position)`);
      firstSeen.set(record.hexId, where);
      records.push({ ...record, where });
    } catch (err) {
      if (!(err instanceof BadRecord)) throw err;
      problems.push({ where, message: err.message });
    }
  }
  return { format, records, problems, total: entries.length };
}
