/**
 * A fake NDBC for tests and benchmarks. No network: Bun.serve on 127.0.0.1.
 *
 *   const ndbc = await startFakeNdbc({ stations: [{ id: "51201", name: "Waimea Bay, HI (106)", lat: 21.671, lng: -158.118 }], now: () => clock.now() });
 *   // point Surfcast at it: SURFCAST_NDBC_URL = ndbc.url
 *   ndbc.setStation("51201", { files: "html" });   // its files are an HTML error page from now on
 *   ndbc.setTable("unavailable");                  // /activestations.xml answers 503
 *   ndbc.requests                                  // [{ n, path, status, ifNoneMatch, ifModifiedSince, userAgent, acceptEncoding }]
 *   ndbc.reset(); await ndbc.close();
 *
 * Serves `/activestations.xml` and `/data/realtime2/{ID}.txt|.spec` in exactly the real layout
 * (/work/shared/data/ndbc: 93-character `.txt` lines, 69-character `.spec` lines, right-aligned, the real two header
 * lines), generated at each request from the scenario and the given clock: rows every 10 minutes, newest first, the
 * wave figures on the :50 rows and repeated without the dominant period on the :40 rows, the spectral summary hourly at
 * :40, PTDY on the :00 rows, 45 days of them. ETag and Last-Modified on every file, 304 to a matching conditional GET,
 * gzip when asked for, 404 with Apache's HTML body for an unknown station or path.
 *
 * A station's files (`files`): "waves" (default), "no_waves" (a fixed station: hourly rows whose wave columns are
 * `MM`, no `.spec`), "all_mm" (every value `MM`), "html" (200 with an HTML error page), "unavailable" (503 with one),
 * "missing" (404), "truncated" (the file cut inside a row). `ageMinutes` makes its newest row older (a stale buoy);
 * `waveHeight(time)` is the sea it measures (a known series for verification).
 */
import { HOUR_MS, MINUTE_MS } from "../../src/core/clock";

export type FakeFiles = "waves" | "no_waves" | "all_mm" | "html" | "unavailable" | "missing" | "truncated";

export interface FakeStation {
  id: string;
  name: string;
  lat: number;
  lng: number;
  owner?: string;
  /** The table's type (default "buoy"). */
  type?: string;
  files?: FakeFiles;
  /** Minutes from the clock's now back to its newest row (default 15, the usual delay). */
  ageMinutes?: number;
  /** Significant wave height at a moment, m (default a swell around 1.5 m, rising and falling over 13 hours). */
  waveHeight?: (time: number) => number;
  /** Days of rows (default 45, as NDBC keeps). */
  days?: number;
}

export type FakeTable = "ok" | "html" | "unavailable";

export interface FakeNdbcRequest {
  n: number;
  path: string;
  status: number;
  ifNoneMatch: string | null;
  ifModifiedSince: string | null;
  userAgent: string | null;
  acceptEncoding: string | null;
}

export interface FakeNdbc {
  url: string;
  requests: FakeNdbcRequest[];
  setStation(id: string, changes: Partial<FakeStation>): void;
  setTable(table: FakeTable): void;
  /** The requests for a path (`/data/realtime2/51201.txt`). */
  requestsFor(path: string): FakeNdbcRequest[];
  reset(): void;
  close(): Promise<void>;
}

const MET_HEADER = [
  "#YY  MM DD hh mm WDIR WSPD GST  WVHT   DPD   APD MWD   PRES  ATMP  WTMP  DEWP  VIS PTDY  TIDE",
  "#yr  mo dy hr mn degT m/s  m/s     m   sec   sec degT   hPa  degC  degC  degC  nmi  hPa    ft",
];
const MET_WIDTHS = [4, 3, 3, 3, 3, 4, 5, 5, 6, 6, 6, 4, 7, 6, 6, 6, 5, 5, 6];
const SPEC_HEADER = [
  "#YY  MM DD hh mm WVHT  SwH  SwP  WWH  WWP SwD WWD  STEEPNESS  APD MWD",
  "#yr  mo dy hr mn    m    m  sec    m  sec  -  degT     -      sec degT",
];
const SPEC_WIDTHS = [4, 3, 3, 3, 3, 5, 5, 5, 5, 5, 4, 4, 11, 5, 4];
const COMPASS = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"];

const APACHE_404 =
  '<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n</body></html>\n';
const ERROR_PAGE = "<!DOCTYPE html>\n<html><head><title>Service Unavailable</title></head><body><h1>The NDBC web site is temporarily unavailable.</h1></body></html>\n";

const defaultSea = (time: number) => 1.5 + 0.6 * Math.sin((2 * Math.PI * time) / (13 * HOUR_MS));

const line = (fields: readonly string[], widths: readonly number[]) => fields.map((f, i) => f.padStart(widths[i]!)).join("");
const stamp = (time: number) => {
  const d = new Date(time);
  return [String(d.getUTCFullYear()), ...[d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()].map((n) => String(n).padStart(2, "0"))];
};
const fixed = (n: number, decimals: number) => n.toFixed(decimals);

/** The times of a station's rows, newest first, every `stepMinutes`. */
function rowTimes(station: FakeStation, now: number, stepMinutes: number): number[] {
  const step = stepMinutes * MINUTE_MS;
  const newest = Math.floor((now - (station.ageMinutes ?? 15) * MINUTE_MS) / step) * step;
  const count = Math.floor(((station.days ?? 45) * 24 * 60) / stepMinutes);
  return Array.from({ length: count }, (_, i) => newest - i * step);
}

/** `realtime2/{ID}.txt` as NDBC writes it. */
export function metFileText(station: FakeStation, now: number): string {
  const sea = station.waveHeight ?? defaultSea;
  const allMissing = station.files === "all_mm";
  const noWaves = station.files === "no_waves";
  const rows = rowTimes(station, now, noWaves ? 60 : 10).map((time) => {
    const minute = new Date(time).getUTCMinutes();
    const waves = !noWaves && !allMissing && (minute === 50 || minute === 40);
    const wave = waves ? [fixed(sea(time), 1), minute === 50 ? "12" : "MM", "8.5", "290"] : ["MM", "MM", "MM", "MM"];
    const weather = allMissing ? ["MM", "MM", "MM"] : [String(150 + (Math.floor(time / HOUR_MS) % 20)), "7.0", "9.0"];
    const rest = allMissing ? ["MM", "MM", "MM"] : ["1015.2", "18.5", "16.1"];
    const tendency = !allMissing && minute === 0 ? "+0.6" : "MM";
    return line([...stamp(time), ...weather, ...wave, ...rest, "MM", "MM", tendency, "MM"], MET_WIDTHS);
  });
  return [...MET_HEADER, ...rows].join("\n") + "\n";
}

/** `realtime2/{ID}.spec` as NDBC writes it: hourly at :40. */
export function specFileText(station: FakeStation, now: number): string {
  const sea = station.waveHeight ?? defaultSea;
  const allMissing = station.files === "all_mm";
  const rows = rowTimes(station, now, 10)
    .filter((time) => new Date(time).getUTCMinutes() === 40)
    .map((time) => {
      if (allMissing) return line([...stamp(time), "MM", "MM", "MM", "MM", "MM", "MM", "MM", "N/A", "MM", "MM"], SPEC_WIDTHS);
      const height = sea(time);
      const swell = Math.sqrt(0.8) * height;
      const windSea = Math.sqrt(0.2) * height;
      return line([...stamp(time), fixed(height, 1), fixed(swell, 1), "12.9", fixed(windSea, 1), "5.9", COMPASS[13]!, COMPASS[9]!, "SWELL", "8.5", "290"], SPEC_WIDTHS);
    });
  return [...SPEC_HEADER, ...rows].join("\n") + "\n";
}

const escapeXml = (text: string) => text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** `activestations.xml` as NDBC writes it (letter ids in lower case). */
export function stationTableText(stations: readonly FakeStation[]): string {
  const rows = stations.map(
    (s) =>
      `  <station id="${/[a-z]/i.test(s.id) ? s.id.toLowerCase() : s.id}" lat="${s.lat}" lon="${s.lng}" elev="0" name="${escapeXml(s.name)}" owner="${escapeXml(s.owner ?? "NDBC")}" pgm="NDBC Meteorological/Ocean" type="${s.type ?? "buoy"}" met="y" currents="n" waterquality="n" dart="n"/>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<stations created="2026-11-21T14:40:01UTC" count="${stations.length}">`,
    "  <!--Site Elevation (elev attribute), when present, is reported in meters above mean sea level.-->",
    ...rows,
    "</stations>",
  ].join("\n") + "\n";
}

const html = (status: number, body: string) => new Response(body, { status, headers: { "Content-Type": "text/html; charset=iso-8859-1" } });

export async function startFakeNdbc(options: { stations: FakeStation[]; now?: () => number }): Promise<FakeNdbc> {
  const now = options.now ?? Date.now;
  const initial = options.stations.map((s) => ({ ...s }));
  let stations = initial.map((s) => ({ ...s }));
  let table: FakeTable = "ok";
  const requests: FakeNdbcRequest[] = [];

  /** A file's answer: 304 when the validators match, else the body (gzipped when asked for). */
  const file = (req: Request, body: string, newest: number) => {
    const etag = `"${Bun.hash(body).toString(16)}"`;
    // NDBC rewrites a file some minutes after its newest row.
    const lastModified = new Date(Math.floor(newest / 1000) * 1000 + 17 * MINUTE_MS).toUTCString();
    const ifNoneMatch = req.headers.get("if-none-match");
    const ifModifiedSince = req.headers.get("if-modified-since");
    const unchanged = ifNoneMatch !== null ? ifNoneMatch === etag : ifModifiedSince !== null && Date.parse(ifModifiedSince) >= Date.parse(lastModified);
    const headers: Record<string, string> = { "Content-Type": "text/plain; charset=ISO-8859-1", ETag: etag, "Last-Modified": lastModified, Server: "Apache" };
    if (unchanged) return new Response(null, { status: 304, headers });
    if ((req.headers.get("accept-encoding") ?? "").includes("gzip")) return new Response(Bun.gzipSync(new TextEncoder().encode(body)), { headers: { ...headers, "Content-Encoding": "gzip" } });
    return new Response(body, { headers });
  };

  const answer = (req: Request, path: string): Response => {
    if (path === "/activestations.xml") {
      if (table === "html") return html(200, ERROR_PAGE);
      if (table === "unavailable") return html(503, ERROR_PAGE);
      return file(req, stationTableText(stations), now() - 10 * MINUTE_MS);
    }
    const match = /^\/data\/realtime2\/([A-Z0-9]+)\.(txt|spec)$/.exec(path);
    const station = match ? stations.find((s) => s.id.toUpperCase() === match[1]) : undefined;
    if (!match || !station) return html(404, APACHE_404);
    const kind = station.files ?? "waves";
    if (kind === "missing" || (kind === "no_waves" && match[2] === "spec")) return html(404, APACHE_404);
    if (kind === "html") return html(200, ERROR_PAGE);
    if (kind === "unavailable") return html(503, ERROR_PAGE);
    const t = now();
    const body = match[2] === "txt" ? metFileText(station, t) : specFileText(station, t);
    const newest = t - (station.ageMinutes ?? 15) * MINUTE_MS;
    return file(req, kind === "truncated" ? body.slice(0, Math.floor(body.length / 2) + 7) : body, newest);
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      const response = req.method === "GET" ? answer(req, path) : new Response("Method Not Allowed", { status: 405 });
      requests.push({
        n: requests.length + 1,
        path,
        status: response.status,
        ifNoneMatch: req.headers.get("if-none-match"),
        ifModifiedSince: req.headers.get("if-modified-since"),
        userAgent: req.headers.get("user-agent"),
        acceptEncoding: req.headers.get("accept-encoding"),
      });
      return response;
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    setStation(id, changes) {
      stations = stations.map((s) => (s.id === id ? { ...s, ...changes } : s));
    },
    setTable(next) {
      table = next;
    },
    requestsFor(path) {
      return requests.filter((r) => r.path === path);
    },
    reset() {
      requests.length = 0;
      stations = initial.map((s) => ({ ...s }));
      table = "ok";
    },
    async close() {
      await server.stop(true);
    },
  };
}
