/**
 * NDBC's files as typed rows: the station table (`activestations.xml`), a buoy's standard meteorological file
 * (`realtime2/{ID}.txt`) and its spectral wave summary (`realtime2/{ID}.spec`). Pure: text in, rows out, in the API's
 * units (m, s, degrees, km/h, °C, hPa). What each column means is told in docs/observations.md.
 *
 * A body that is not such a file (an HTML error page, a 404 body, an empty or cut answer, a file of `MM`s) is a
 * `problem`, never an exception: the caller keeps what it had.
 */

export interface Station {
  /** Upper-cased, as the realtime2 file names spell it (the table writes letter ids in lower case). */
  id: string;
  name: string;
  lat: number;
  lng: number;
  owner: string;
  /** `buoy`, `fixed`, `other` (classic NDBC buoys), `dart`, `tao`, `oilrig`, `usv`. */
  type: string;
  /** Reported meteorological data in the past 8 hours. Whether a station measures waves only its files tell. */
  met: boolean;
}

/** One row of `{ID}.txt`; every figure null where the file has none. */
export interface MetRow {
  /** Epoch ms, UTC. */
  time: number;
  windDirection: number | null;
  /** km/h (the file says m/s). */
  windSpeed: number | null;
  windGust: number | null;
  waveHeight: number | null;
  dominantPeriod: number | null;
  averagePeriod: number | null;
  waveDirection: number | null;
  pressure: number | null;
  airTemperature: number | null;
  waterTemperature: number | null;
}

/** One row of `{ID}.spec`; directions given as compass points are in degrees. */
export interface SpecRow {
  time: number;
  waveHeight: number | null;
  swellHeight: number | null;
  swellPeriod: number | null;
  swellDirection: number | null;
  windWaveHeight: number | null;
  windWavePeriod: number | null;
  windWaveDirection: number | null;
  averagePeriod: number | null;
  waveDirection: number | null;
}

/** Why a body is not the file it was asked for. */
export type FileProblem = "empty" | "html" | "no_header" | "no_rows" | "all_missing";

export type Parsed<T> = { ok: true; rows: T[] } | { ok: false; problem: FileProblem };

// ── the station table ────────────────────────────────────────────────────────────────────────────

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
    if (name[0] !== "#") return ENTITIES[name] ?? whole;
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
  });
}

/** `activestations.xml` → its stations; one without an id or a position is left out. */
export function parseStationTable(xml: string): { ok: true; stations: Station[] } | { ok: false; problem: FileProblem } {
  if (xml.trim() === "") return { ok: false, problem: "empty" };
  if (!/<stations\b/.test(xml)) return { ok: false, problem: /<html\b/i.test(xml) ? "html" : "no_header" };
  const stations: Station[] = [];
  for (const element of xml.matchAll(/<station\s([^>]*?)\/?>/g)) {
    const attributes = Object.fromEntries([...element[1]!.matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1]!, decodeEntities(a[2]!)]));
    const lat = Number(attributes.lat);
    const lng = Number(attributes.lon);
    if (!attributes.id || attributes.lat === undefined || attributes.lon === undefined || !Number.isFinite(lat) || !Number.isFinite(lng)) continue;
    stations.push({
      id: attributes.id.toUpperCase(),
      name: (attributes.name ?? "").trim(),
      lat,
      lng,
      owner: (attributes.owner ?? "").trim(),
      type: attributes.type ?? "",
      met: attributes.met === "y",
    });
  }
  return stations.length === 0 ? { ok: false, problem: "no_rows" } : { ok: true, stations };
}

// ── the realtime2 files ──────────────────────────────────────────────────────────────────────────

/**
 * Tokens that mean "no value": `MM` (realtime), `N/A` (steepness), `NO` (no swell separated). The numeric sentinels
 * (`-99` in `.spec` directions; `99.00`, `999`, `9999.0` in the historical files) fall outside every field's range.
 */
const MISSING = new Set(["MM", "N/A", "NO"]);

type Read = (token: string) => number | null;

/** A number within [min, max], rounded to `decimals`; anything else is no value. */
const inRange =
  (min: number, max: number, decimals: number, scale = 1): Read =>
  (token) => {
    if (MISSING.has(token)) return null;
    const n = Number(token);
    if (token === "" || !Number.isFinite(n) || n < min || n > max) return null;
    const f = 10 ** decimals;
    return Math.round(n * scale * f) / f;
  };

const meters = inRange(0, 30, 2);
const seconds = inRange(0, 40, 1);
const degrees = inRange(0, 360, 0);
/** m/s → km/h. */
const kmh = inRange(0, 90, 1, 3.6);
const celsius = inRange(-60, 60, 1);
const hectopascals = inRange(800, 1100, 1);

const COMPASS = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"];

/** A 16-point compass direction (`SSE`) → degrees, rounded (SSE → 158); a number is read as degrees. */
export const compassDegrees: Read = (token) => {
  const point = COMPASS.indexOf(token);
  return point === -1 ? degrees(token) : Math.round(point * 22.5) % 360;
};

type Fields<Row> = { [K in Exclude<keyof Row, "time">]: { column: string; read: Read } };

const MET_FIELDS: Fields<MetRow> = {
  windDirection: { column: "WDIR", read: degrees },
  windSpeed: { column: "WSPD", read: kmh },
  windGust: { column: "GST", read: kmh },
  waveHeight: { column: "WVHT", read: meters },
  dominantPeriod: { column: "DPD", read: seconds },
  averagePeriod: { column: "APD", read: seconds },
  waveDirection: { column: "MWD", read: degrees },
  pressure: { column: "PRES", read: hectopascals },
  airTemperature: { column: "ATMP", read: celsius },
  waterTemperature: { column: "WTMP", read: celsius },
};

const SPEC_FIELDS: Fields<SpecRow> = {
  waveHeight: { column: "WVHT", read: meters },
  swellHeight: { column: "SwH", read: meters },
  swellPeriod: { column: "SwP", read: seconds },
  swellDirection: { column: "SwD", read: compassDegrees },
  windWaveHeight: { column: "WWH", read: meters },
  windWavePeriod: { column: "WWP", read: seconds },
  windWaveDirection: { column: "WWD", read: compassDegrees },
  averagePeriod: { column: "APD", read: seconds },
  waveDirection: { column: "MWD", read: degrees },
};

const TIME_COLUMNS = ["YY", "MM", "DD", "hh", "mm"] as const;

/** Epoch ms of a row's `YY MM DD hh mm` (a two-digit year is of the 1900s, as in NDBC's oldest files), or null. */
function timeOf(parts: readonly string[]): number | null {
  if (!parts.every((p) => /^\d{1,4}$/.test(p))) return null;
  const [y, mo, d, h, mi] = parts.map(Number) as [number, number, number, number, number];
  const year = y < 100 ? 1900 + y : y;
  const ms = Date.UTC(year, mo - 1, d, h, mi);
  const back = new Date(ms);
  return back.getUTCMonth() === mo - 1 && back.getUTCDate() === d && back.getUTCHours() === h && back.getUTCMinutes() === mi ? ms : null;
}

/**
 * A realtime2 file's rows, newest first. Columns are found by the header's names, so a file with other columns
 * (the historical files' lack of PTDY) still reads. A row whose field count is not the header's (a cut last line)
 * is dropped.
 */
function parseRealtime<Row extends { time: number }>(text: string, fields: Fields<Row>): Parsed<Row> {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  if (lines.length === 0) return { ok: false, problem: "empty" };
  if (!/^#?YY\s/.test(lines[0]!)) return { ok: false, problem: /<(!doctype|html|head|body|title)\b/i.test(text) ? "html" : "no_header" };
  const header = lines[0]!.replace(/^#/, "").trim().split(/\s+/);
  const timeIndexes = TIME_COLUMNS.map((c) => header.indexOf(c));
  if (timeIndexes.includes(-1)) return { ok: false, problem: "no_header" };
  const columns = Object.entries(fields as Record<string, { column: string; read: Read }>).map(([name, f]) => ({ name, index: header.indexOf(f.column), read: f.read }));

  const rows: Row[] = [];
  let anyValue = false;
  for (const line of lines) {
    if (line.startsWith("#")) continue;
    const tokens = line.trim().split(/\s+/);
    if (tokens.length !== header.length) continue;
    const time = timeOf(timeIndexes.map((i) => tokens[i]!));
    if (time === null) continue;
    const row: Record<string, number | null> = { time };
    for (const c of columns) {
      const value = c.index === -1 ? null : c.read(tokens[c.index]!);
      row[c.name] = value;
      if (value !== null) anyValue = true;
    }
    rows.push(row as Row);
  }
  if (rows.length === 0) return { ok: false, problem: "no_rows" };
  if (!anyValue) return { ok: false, problem: "all_missing" };
  return { ok: true, rows: rows.sort((a, b) => b.time - a.time) };
}

/** `realtime2/{ID}.txt`. */
export const parseMetFile = (text: string): Parsed<MetRow> => parseRealtime(text, MET_FIELDS);

/** `realtime2/{ID}.spec`. */
export const parseSpecFile = (text: string): Parsed<SpecRow> => parseRealtime(text, SPEC_FIELDS);
