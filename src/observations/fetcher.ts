/**
 * NDBC, asked politely (docs/observations.md, "The upstream"): the station table at most once a day; a buoy's files
 * only when a spot's answer needs them, and at most once per BUOY_INTERVAL_MS; conditional GETs (ETag,
 * Last-Modified), gzip, a User-Agent naming Surfcast and the operator's public URL; failures spaced out, from
 * minutes to an hour. A bad answer (an error page, a 404, a cut or empty body, a file of `MM`s) never replaces the last
 * good file, and a run of them is logged once, when it starts.
 */
import { DAY_MS, HOUR_MS, MINUTE_MS, type Clock } from "../core/clock";
import { parseMetFile, parseSpecFile, parseStationTable, type Parsed, type Station } from "./ndbc";
import { candidateStations, chooseBuoy, mergeReadings, type Candidate, type CandidateState, type Reading } from "./readings";
import { SharedRuns } from "../core/shared-runs";
import type { Attempts, GoodFile, ObservationStore, StoredBuoy, StoredStationTable, Validators } from "./store";

export const DEFAULT_NDBC_URL = "https://www.ndbc.noaa.gov";
/** A buoy's files are asked for at most this often… */
export const BUOY_INTERVAL_MS = 30 * MINUTE_MS;
/** …and those of a station whose files carry no wave height, once a day (it is passed over meanwhile). */
const NO_WAVES_INTERVAL_MS = DAY_MS;
/** The station table changes when stations come and go: once a day. */
export const TABLE_INTERVAL_MS = DAY_MS;
/** The first retry after a failure; each next one waits twice as long, up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 5 * MINUTE_MS;
export const MAX_BACKOFF_MS = HOUR_MS;
const TIMEOUT_MS = 20_000;

export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Runs the fetch that replaces a source's stored state, in that source's turn: on several servers, one of those that
 * found the same state due runs it while the others wait and then read what it stored. `slot` names the state
 * replaced, the same on every server that read it. Without one, each fetch just runs.
 */
export type FetchTurn = (source: string, slot: string, fetchAndStore: () => Promise<void>) => Promise<void>;

export interface NdbcFetcherOptions {
  /** SURFCAST_NDBC_URL, without a trailing slash needed. */
  baseUrl: string;
  /** The operator's public URL, named in the User-Agent so that NDBC knows whom to tell. */
  publicUrl: string;
  fetch: FetchFunction;
  clock: Clock;
  store: ObservationStore;
  logger: Logger;
  timeoutMs?: number;
  turn?: FetchTurn;
}

/** A buoy as its stored files show it. */
export interface BuoyView {
  /** Newest first. */
  readings: Reading[];
  state: CandidateState;
  /** Its latest attempt failed. */
  failing: boolean;
}

/** A spot's buoy with its readings, or why there is none. */
export type BuoyChoice = { buoy: Candidate; view: BuoyView } | { reason: "no_buoy_in_reach" | "source_unavailable" };

/** How long to wait after the `failures`-th failure in a row: 5 min, 10, 20, 40, then an hour. */
export const backoffMs = (failures: number) => Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (failures - 1));

/** Whether a source may be asked now: its interval since the last attempt has passed, or its backoff when failing. */
function due(attempts: Attempts, now: number, intervalMs: number, floorMs: number): boolean {
  const wait = attempts.failure ? Math.max(floorMs, backoffMs(attempts.failure.failures)) : intervalMs;
  return now - attempts.checkedAt >= wait;
}

const tableDue = (attempts: Attempts, now: number) => due(attempts, now, TABLE_INTERVAL_MS, 0);

/** A buoy is due after its interval, a day for a station whose files carry no waves (passed over meanwhile). */
const buoyDue = (attempts: Attempts, state: CandidateState, now: number) =>
  due(attempts, now, state === "no_waves" && !attempts.failure ? NO_WAVES_INTERVAL_MS : BUOY_INTERVAL_MS, BUOY_INTERVAL_MS);

type Answer = { kind: "body"; text: string; validators: Validators } | { kind: "unchanged" } | { kind: "missing" } | { kind: "failed"; problem: string };

/** A file's next state from an answer: a new good file, the old one kept, or the old one kept with the problem. */
function nextFile<Row>(old: GoodFile<Row> | null, answer: Answer, parse: (text: string) => Parsed<Row>, now: number): { file: GoodFile<Row> | null; problem: string | null } {
  if (answer.kind === "unchanged") return { file: old, problem: null };
  if (answer.kind === "missing") return { file: old, problem: "http 404" };
  if (answer.kind === "failed") return { file: old, problem: answer.problem };
  const parsed = parse(answer.text);
  if (!parsed.ok) return { file: old, problem: parsed.problem };
  return { file: { rows: parsed.rows, fetchedAt: now, ...answer.validators }, problem: null };
}

export class NdbcFetcher {
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  /** One request per source at a time: callers asking at once share it. */
  private readonly requests = new SharedRuns();
  /**
   * What this process last read or stored of the station table and of each buoy: served without reading the store
   * again (a buoy's 45 days are ~1.6 MB of JSON) until the source is due, when the store is read first, since another
   * server may have fetched it meanwhile.
   */
  private knownTable: (Attempts & { stations: Station[] | null }) | null = null;
  private readonly knownBuoys = new Map<string, Attempts & { view: BuoyView }>();
  /** The merged readings of a buoy's stored files, kept until either file changes. */
  private readonly merged = new Map<string, { met: number | null; spec: number | null; readings: Reading[] }>();

  constructor(private readonly options: NdbcFetcherOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.headers = { "User-Agent": `Surfcast (+${options.publicUrl})`, "Accept-Encoding": "gzip" };
  }

  /** The station table, fetched again when a day old; null while none was ever read. */
  async stations(): Promise<Station[] | null> {
    const known = this.knownTable;
    if (known && !tableDue(known, this.options.clock.now())) return known.stations;
    const stored = await this.requests.run("stations", async () => {
      const { store } = this.options;
      const old = await store.stationTable();
      const now = this.options.clock.now();
      if (old && !tableDue(old, now)) return old;
      return this.inTurn("stations", old, () => store.stationTable(), async () => {
        const answer = await this.get("/activestations.xml", old?.table ?? null, "utf-8");
        const { file, problem } = nextFile(old?.table ?? null, answer, (text) => {
          const parsed = parseStationTable(text);
          return parsed.ok ? { ok: true, rows: parsed.stations } : parsed;
        }, now);
        const next: StoredStationTable = { table: file, ...this.attempted("station table", old, now, problem) };
        await store.saveStationTable(next);
        return next;
      });
    });
    const stations = stored?.table?.rows ?? null;
    if (stored) this.knownTable = { checkedAt: stored.checkedAt, failure: stored.failure, stations };
    return stations;
  }

  /** A buoy's readings, its files asked for again when due. `id` as the table spells it, in any case. */
  async buoy(stationId: string): Promise<BuoyView> {
    const id = stationId.toUpperCase();
    const known = this.knownBuoys.get(id);
    if (known && !buoyDue(known, known.view.state, this.options.clock.now())) return known.view;
    const stored = await this.requests.run(`buoy ${id}`, async () => {
      const { store } = this.options;
      const old = await store.buoy(id);
      const now = this.options.clock.now();
      if (old && !buoyDue(old, viewOf(old, []).state, now)) return old;
      return this.inTurn(`buoy ${id}`, old, () => store.buoy(id), async () => {
        const [metAnswer, specAnswer] = await Promise.all([
          this.get(`/data/realtime2/${id}.txt`, old?.met ?? null, "latin1"),
          this.get(`/data/realtime2/${id}.spec`, old?.spec ?? null, "latin1"),
        ]);
        const met = nextFile(old?.met ?? null, metAnswer, parseMetFile, now);
        // Not every station has a spectral summary: its 404 is no failure.
        const spec = nextFile(old?.spec ?? null, specAnswer.kind === "missing" ? { kind: "unchanged" } : specAnswer, parseSpecFile, now);
        const problem = met.problem ?? spec.problem;
        const next: StoredBuoy = { id, met: met.file, spec: spec.file, missing: metAnswer.kind === "missing", ...this.attempted(`buoy ${id}`, old, now, problem) };
        await store.saveBuoy(next);
        return next;
      });
    });
    // Nothing stored after another server's turn: its fetch failed before it could store anything.
    if (!stored) return { readings: [], state: "unavailable", failing: true };
    const view = viewOf(stored, this.readingsOf(stored));
    this.knownBuoys.set(id, { checkedAt: stored.checkedAt, failure: stored.failure, view });
    return view;
  }

  /**
   * A point's buoy: the nearest station within `radiusKm` whose files carry a wave height. Candidates are asked for
   * nearest first, and only until one has waves.
   */
  async nearestBuoy(lat: number, lng: number, radiusKm: number): Promise<BuoyChoice> {
    const stations = await this.stations();
    if (stations === null) return { reason: "source_unavailable" };
    const seen: (Candidate & { state: CandidateState; view: BuoyView })[] = [];
    for (const candidate of candidateStations(stations, lat, lng, radiusKm)) {
      const view = await this.buoy(candidate.station.id);
      seen.push({ ...candidate, state: view.state, view });
      if (view.state === "waves") break;
    }
    const choice = chooseBuoy(seen);
    if ("reason" in choice) return choice;
    const { view, station, distanceKm } = choice.buoy;
    return { buoy: { station, distanceKm }, view };
  }

  private readingsOf(buoy: StoredBuoy): Reading[] {
    const met = buoy.met?.fetchedAt ?? null;
    const spec = buoy.spec?.fetchedAt ?? null;
    const kept = this.merged.get(buoy.id);
    if (kept && kept.met === met && kept.spec === spec) return kept.readings;
    const readings = mergeReadings(buoy.met?.rows ?? [], buoy.spec?.rows ?? []);
    this.merged.set(buoy.id, { met, spec, readings });
    return readings;
  }

  /**
   * Runs `fetch` in the source's turn (options.turn), the slot named after the stored state it replaces: the state
   * fetched here, or, when another server took the turn, what it stored.
   */
  private async inTurn<T extends Attempts>(source: string, old: T | null, read: () => Promise<T | null>, fetch: () => Promise<T>): Promise<T | null> {
    const { turn } = this.options;
    if (!turn) return fetch();
    let fetched = null as T | null;
    await turn(source, old ? `after ${new Date(old.checkedAt).toISOString()}` : "first", async () => {
      fetched = await fetch();
    });
    return fetched ?? (await read());
  }

  /** The attempt's record; a failure spell is logged when it starts, and its end when a good answer comes. */
  private attempted(source: string, old: Attempts | null, now: number, problem: string | null): Attempts {
    const failure = old?.failure ?? null;
    if (problem === null) {
      if (failure) this.options.logger.info("NDBC answers again", { source, failures: failure.failures, since: new Date(failure.since).toISOString() });
      return { checkedAt: now, failure: null };
    }
    if (!failure) this.options.logger.warn("NDBC answer unusable; the last good file stays in use", { source, problem });
    return { checkedAt: now, failure: { since: failure?.since ?? now, failures: (failure?.failures ?? 0) + 1, problem } };
  }

  /** One conditional GET; never throws. */
  private async get(path: string, old: Validators | null, charset: "utf-8" | "latin1"): Promise<Answer> {
    const headers: Record<string, string> = { ...this.headers };
    if (old?.etag) headers["If-None-Match"] = old.etag;
    if (old?.lastModified) headers["If-Modified-Since"] = old.lastModified;
    try {
      const response = await this.options.fetch(this.baseUrl + path, { headers, signal: AbortSignal.timeout(this.options.timeoutMs ?? TIMEOUT_MS) });
      if (response.status === 304) return { kind: "unchanged" };
      if (response.status === 404) {
        await response.body?.cancel();
        return { kind: "missing" };
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        return { kind: "failed", problem: `http ${response.status}` };
      }
      const text = new TextDecoder(charset).decode(await response.arrayBuffer());
      return { kind: "body", text, validators: { etag: response.headers.get("ETag"), lastModified: response.headers.get("Last-Modified") } };
    } catch (error) {
      return { kind: "failed", problem: error instanceof Error && error.name === "TimeoutError" ? "timeout" : "unreachable" };
    }
  }
}

/** What a buoy's stored files say: waves when a reading has a wave height, none when its files have none or it has no file. */
function viewOf(buoy: StoredBuoy, readings: Reading[]): BuoyView {
  const failing = buoy.failure !== null;
  const hasFiles = buoy.met !== null || buoy.spec !== null;
  const hasWave = (rows: readonly { waveHeight: number | null }[] = []) => rows.some((r) => r.waveHeight !== null);
  const waves = hasWave(buoy.met?.rows) || hasWave(buoy.spec?.rows);
  const state: CandidateState = waves ? "waves" : hasFiles || buoy.missing ? "no_waves" : "unavailable";
  return { readings, state, failing };
}
