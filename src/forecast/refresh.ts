/**
 * The forecast refresh: plans batches of spots that share model grid cells, fetches each batch from both
 * Open-Meteo APIs, assembles one document per spot and writes the batch in one transaction. A failed batch
 * leaves its spots' previous documents untouched. Batching, dedup and fault rules: docs/forecast.md.
 */
import type { Clock } from "../core/clock";
import { plainPacer, type Pacer } from "../core/pacing";
import type { MaybePromise } from "../core/maybe-promise";
import type { DocumentTide, SeaLevelSeries } from "../tides/types";
import { assembleDocument, BEST_MATCH_ONLY, type MarineModels } from "./document";
import type { ForecastCorrection } from "../observations/types";
import { seaLevelOf as modelSeaLevel } from "./consensus";
import { allNull, modelSeries, UpstreamError, type Endpoint, type LocationSeries, type OpenMeteoClient, type Point } from "./openmeteo";
import type { LeftOutReason } from "./types";
import type { ForecastStore } from "./store";
import { packDocument } from "../db/document-codec";

export interface RefreshSpot {
  id: string;
  lat: number;
  lng: number;
}

// ── planning (pure) ──────────────────────────────────────────────────────────────────────────────

/** MeteoFrance MFWAM, the marine `best_match` model, has a 1/12° grid. */
export const marineCell = (p: Point) => `${Math.floor(p.lat * 12)}:${Math.floor(p.lng * 12)}`;
/** ~0.1°: between ICON-EU (0.0625°) and IFS HRES (~0.1°), the models serving the coasts. */
export const forecastCell = (p: Point) => `${Math.floor(p.lat * 10)}:${Math.floor(p.lng * 10)}`;
/** 1° tiles nest both grids exactly (12 and 10 cells per degree), so whole tiles never split a cell. */
const tileOf = (p: Point) => `${Math.floor(p.lat)}:${Math.floor(p.lng)}`;

export interface CellRequest {
  key: string;
  /** The point sent upstream: the first spot of the cell. */
  point: Point;
}

export interface Batch {
  spots: RefreshSpot[];
  marine: CellRequest[];
  forecast: CellRequest[];
}

/**
 * Groups spots into batches of at most `batchSize` distinct marine cells and `batchSize` distinct forecast
 * cells. Whole 1° tiles go into one batch when they fit, so a cell is fetched once per refresh.
 */
export function planBatches(spots: readonly RefreshSpot[], batchSize: number): Batch[] {
  const tiles = Map.groupBy(spots, tileOf);
  const batches: Batch[] = [];
  let current: { spots: RefreshSpot[]; marine: Map<string, Point>; forecast: Map<string, Point> } | null = null;
  const flush = () => {
    if (current && current.spots.length > 0) {
      const requests = (m: Map<string, Point>) => [...m].map(([key, point]) => ({ key, point }));
      batches.push({ spots: current.spots, marine: requests(current.marine), forecast: requests(current.forecast) });
    }
    current = { spots: [], marine: new Map(), forecast: new Map() };
  };
  const newCells = (group: readonly RefreshSpot[], cell: (p: Point) => string, known: Map<string, Point>) =>
    new Set(group.map(cell).filter((k) => !known.has(k))).size;
  const fits = (group: readonly RefreshSpot[]) =>
    current !== null &&
    current.marine.size + newCells(group, marineCell, current.marine) <= batchSize &&
    current.forecast.size + newCells(group, forecastCell, current.forecast) <= batchSize;
  const add = (s: RefreshSpot) => {
    current!.spots.push(s);
    if (!current!.marine.has(marineCell(s))) current!.marine.set(marineCell(s), { lat: s.lat, lng: s.lng });
    if (!current!.forecast.has(forecastCell(s))) current!.forecast.set(forecastCell(s), { lat: s.lat, lng: s.lng });
  };
  flush();
  for (const key of [...tiles.keys()].sort()) {
    const group = tiles.get(key)!;
    if (!fits(group)) flush();
    for (const s of group) {
      if (!fits([s])) flush();
      add(s);
    }
  }
  flush();
  return batches;
}

// ── running ──────────────────────────────────────────────────────────────────────────────────────

export interface RefreshProgress {
  batch: number;
  batches: number;
  /** Spots of this batch, and how many of them got a new document. */
  batchSpots: number;
  batchWritten: number;
  /** Spots handled so far (refreshed or not), and refreshed so far, of spotsTotal. */
  spotsDone: number;
  spotsOk: number;
  spotsTotal: number;
  batchOk: boolean;
}

/** How a run ended: every spot refreshed, some kept their previous document, or none was refreshed. */
export type RefreshOutcome = "complete" | "partial" | "failed";

export function outcomeOf(s: Pick<RefreshSummary, "ok" | "failed">): RefreshOutcome {
  return s.failed === 0 ? "complete" : s.ok > 0 ? "partial" : "failed";
}

/** Consecutive failed batches after which a refresh gives up the rest of its run (the upstream is down). */
export const GIVE_UP_AFTER_BATCHES = 3;

export interface RefreshSummary {
  spots: number;
  ok: number;
  failed: number;
  failedSpotIds: string[];
  batches: number;
  failedBatches: number;
  /** HTTP requests sent to Open-Meteo, retries included. */
  requests: number;
  /** Open-Meteo call weight of those requests (both APIs). */
  weight: number;
  /** Distinct locations requested per API (after grid dedup). */
  locations: Record<Endpoint, number>;
  durationMs: number;
  /** One line per failed batch, plus why the refresh stopped early if it did. */
  errors: string[];
  /** Stopped early after GIVE_UP_AFTER_BATCHES consecutive failed batches (the upstream is down). */
  gaveUp?: boolean;
  /**
   * Spots with data where a wave model was left out (its series all zero or null), with which and why; `sealess`:
   * no counted model saw sea there, so no document was written (`surfcast spots check` lists both).
   */
  modelGaps: Map<string, { leftOut: Record<string, LeftOutReason>; sealess: boolean }>;
}

export interface RefreshDeps {
  forecasts: Pick<ForecastStore, "writeDocuments">;
  clock: Clock;
  client: OpenMeteoClient;
  batchSize: number;
  tides: {
    /** The spot's tide hours and datum; `seaLevel`: the model's series for its marine cell (model-served spots). */
    forDocument(spotId: string, seaLevel?: SeaLevelSeries): MaybePromise<DocumentTide>;
    /** Stores what the sea-level model said for each spot of a batch, before its documents are assembled. */
    acceptSeaLevel?(entries: readonly { spotId: string; series: SeaLevelSeries }[]): MaybePromise<void>;
  };
  /** spot id → facing; asked once, when the first batch has data (no facing work while upstream is down). */
  facings: () => Promise<Map<string, number | null>>;
  onProgress?: (p: RefreshProgress) => void;
  /**
   * Where the refresh pauses and drops its garbage (default: pauses only). The server's pacer also hands back, before
   * the first of several batches, what came before (a first start's import and tide pass, hours of serving), so that
   * the batches' garbage piles on a collected heap: a first start's first batch was its peak (bench/README.md).
   */
  pacer?: Pacer;
  /** Called after each written batch (the server drops its cached bodies). */
  onWritten?: () => void;
  /** Stops between batches (server shutdown). */
  signal?: AbortSignal;
  /** Gives up the rest of the run after this many consecutive failed batches (default GIVE_UP_AFTER_BATCHES). */
  giveUpAfter?: number;
  /** The data is synthetic (serve --demo): every document is marked so, and served labelled as demo data. */
  demo?: boolean;
  /** The marine models the client asks for, and the ones that count (default: `best_match` alone). */
  models?: MarineModels;
  /** The bias correction of each spot where it holds (SURFCAST_BIAS_CORRECTION, docs/forecast.md); none elsewhere. */
  corrections?: ReadonlyMap<string, ForecastCorrection>;
}

/** Spots assembled between two yields to the event loop, and two young-generation collections. */
const YIELD_EVERY = 20;
/** Batches of one marine model between two full collections: a batch of several models leaves as much garbage as that many. */
const FULL_COLLECTION_EVERY = 3;

interface BatchOutcome {
  written: string[];
  error?: string;
  /** Continuing is pointless: upstream unreachable or its quota is exhausted. */
  fatal?: boolean;
}

/** A batch's upstream answers (cell key → series per API), or why they could not be had. */
type Fetched = { marine: Map<string, LocationSeries>; forecast: Map<string, LocationSeries> } | BatchOutcome;

/** Both APIs' answers for a batch (requested together); never rejects. */
async function fetchBatch(deps: RefreshDeps, batch: Batch, summary: RefreshSummary): Promise<Fetched> {
  const fetchCells = async (endpoint: Endpoint, cells: CellRequest[]) => {
    try {
      const result = await deps.client.fetch(endpoint, cells.map((c) => c.point));
      summary.requests += result.requests;
      summary.weight += result.weight;
      return new Map(cells.map((c, i): [string, LocationSeries] => [c.key, result.locations[i]!]));
    } catch (err) {
      if (err instanceof UpstreamError) {
        summary.requests += err.cost.requests;
        summary.weight += err.cost.weight;
      }
      throw err;
    }
  };
  const [marine, forecast] = await Promise.allSettled([fetchCells("marine", batch.marine), fetchCells("forecast", batch.forecast)]);
  if (marine.status === "rejected" || forecast.status === "rejected") {
    const failures = [marine, forecast].flatMap((r, i) => (r.status === "rejected" ? [{ endpoint: i === 0 ? "marine" : "forecast", err: r.reason as unknown }] : []));
    const error = failures.map((f) => `${f.endpoint}: ${f.err instanceof Error ? f.err.message : String(f.err)}`).join("; ");
    const fatal = failures.some((f) => f.err instanceof UpstreamError && (f.err.unreachable || f.err.quotaExhausted));
    return { written: [], error, fatal };
  }
  return { marine: marine.value, forecast: forecast.value };
}

/** A batch's answers, and how long the upstream took to give them (from the request to the parsed answers). */
interface TimedFetch {
  fetched: Fetched;
  answerMs: number;
}

async function timedFetch(deps: RefreshDeps, batch: Batch, summary: RefreshSummary): Promise<TimedFetch> {
  const started = performance.now();
  const fetched = await fetchBatch(deps, batch, summary);
  return { fetched, answerMs: performance.now() - started };
}

/**
 * Whether to ask for the next batch while this one is assembled: when the upstream took at least half as long to
 * answer this batch as the refresh took to assemble and write the one before. Then the overlap hides a real wait and
 * the next answers arrive about when they are needed. A faster upstream's answers would sit parsed through most of an
 * assembly, raising the refresh's peak, to save a short wait (bench/README.md). The second batch is never asked for
 * during the first: nothing has been timed yet.
 */
export function fetchAhead(answerMs: number, lastAssemblyMs: number | undefined): boolean {
  return lastAssemblyMs !== undefined && answerMs * 2 >= lastAssemblyMs;
}

/** Assembles, compresses and writes the documents of a fetched batch. */
async function writeBatch(deps: RefreshDeps, pacer: Pacer, batch: Batch, fetched: Fetched, facings: () => Promise<Map<string, number | null>>, summary: RefreshSummary): Promise<BatchOutcome> {
  if ("written" in fetched) return fetched;
  if (deps.signal?.aborted) return { written: [], error: "stopped" };
  const { marine, forecast } = fetched;

  // One series object per marine cell, so spots sharing a cell share the tide work done on it.
  const seaLevels = new Map<LocationSeries, SeaLevelSeries>();
  const models = deps.models ?? BEST_MATCH_ONLY;
  const seaLevelOf = (m: LocationSeries): SeaLevelSeries | undefined => {
    const values = modelSeaLevel(modelSeries(m, models.requested));
    if (!values) return undefined;
    let series = seaLevels.get(m);
    if (!series) seaLevels.set(m, (series = { time: m.hourly.time, values }));
    return series;
  };
  try {
    const entries = batch.spots.flatMap((spot) => {
      const m = marine.get(marineCell(spot));
      const series = m && !allNull(m) ? seaLevelOf(m) : undefined;
      return series ? [{ spotId: spot.id, series }] : [];
    });
    await deps.tides.acceptSeaLevel?.(entries);
  } catch (err) {
    return { written: [], error: `writing sea levels failed: ${(err as Error).message}` };
  }

  // Compressed as soon as assembled: a batch holds each spot's document at a tenth of its JSON size.
  const documents: { spotId: string; body: Uint8Array }[] = [];
  let facingOf: Map<string, number | null> | undefined;
  for (const [n, spot] of batch.spots.entries()) {
    if (n % YIELD_EVERY === YIELD_EVERY - 1) {
      // Assembly leaves short-lived objects by the hundred KB per spot: a young-generation collection (a few ms: little
      // of it survives) keeps them from piling up until the next full one, which lowers a refresh's peak under load.
      pacer.dropYoung();
      // Assembly (tides, ratings) is CPU work: let a serving process answer requests in between.
      await pacer.pause();
    }
    const m = marine.get(marineCell(spot));
    const f = forecast.get(forecastCell(spot));
    if (!m || !f || allNull(m) || allNull(f)) continue; // no data for this point: keep the previous document
    const tide = await deps.tides.forDocument(spot.id, seaLevelOf(m));
    facingOf ??= await facings();
    const doc = assembleDocument(m, f, facingOf.get(spot.id) ?? null, tide.hourly, { spot, models, correction: deps.corrections?.get(spot.id) });
    const leftOut = doc.models?.leftOut ?? {};
    if (Object.keys(leftOut).length > 0) summary.modelGaps.set(spot.id, { leftOut, sealess: doc.models?.used.length === 0 });
    if (doc.hours.length > 0) documents.push({ spotId: spot.id, body: packDocument(JSON.stringify({ ...doc, ...tide.reference, ...(deps.demo ? { demo: true } : {}) })) });
  }
  try {
    if (documents.length > 0) await deps.forecasts.writeDocuments(deps.clock.now(), documents);
  } catch (err) {
    return { written: [], error: `writing documents failed: ${(err as Error).message}` };
  }
  deps.onWritten?.();
  return { written: documents.map((d) => d.spotId) };
}

export async function runForecastRefresh(deps: RefreshDeps, spots: readonly RefreshSpot[]): Promise<RefreshSummary> {
  const started = performance.now();
  const batches = planBatches(spots, deps.batchSize);
  const summary: RefreshSummary = {
    spots: spots.length,
    ok: 0,
    failed: 0,
    failedSpotIds: [],
    batches: batches.length,
    failedBatches: 0,
    requests: 0,
    weight: 0,
    locations: { marine: batches.reduce((n, b) => n + b.marine.length, 0), forecast: batches.reduce((n, b) => n + b.forecast.length, 0) },
    durationMs: 0,
    errors: [],
    modelGaps: new Map(),
  };
  const ok = new Set<string>();
  let facingMap: Promise<Map<string, number | null>> | null = null;
  const facings = () => (facingMap ??= deps.facings());
  let spotsDone = 0;
  let stopped = false;
  let consecutiveFailures = 0;
  const giveUpAfter = deps.giveUpAfter ?? GIVE_UP_AFTER_BATCHES;
  const pacer = deps.pacer ?? plainPacer;
  const collectEvery = Math.max(1, Math.round(FULL_COLLECTION_EVERY / (deps.models ?? BEST_MATCH_ONLY).requested.length));
  // A one-batch refresh (a spot asked for) does not wait for the memory work.
  if (batches.length > 1) await pacer.beforeBatches();
  // The next batch is fetched while this one is assembled (CPU work) when the upstream is slow enough for it to pay
  // (fetchAhead): its time to answer, a network's round trip, overlaps ours. Only after a batch's answers came: while
  // the upstream fails, batches are asked one after another as before, and at most two requests are in flight.
  let next: Promise<TimedFetch> | null = null;
  let lastAssemblyMs: number | undefined;
  for (const [index, batch] of batches.entries()) {
    if (!stopped && deps.signal?.aborted) {
      stopped = true;
      summary.errors.push("stopped before the remaining batches");
    }
    // Once stopped, the remaining batches count as failed without a request.
    let outcome: BatchOutcome | null = null;
    if (!stopped) {
      const answered: Promise<TimedFetch> = next ?? timedFetch(deps, batch, summary);
      const { fetched, answerMs } = await answered;
      const following = batches[index + 1];
      next = following && !("written" in fetched) && !deps.signal?.aborted && fetchAhead(answerMs, lastAssemblyMs) ? timedFetch(deps, following, summary) : null;
      const assembling = performance.now();
      outcome = await writeBatch(deps, pacer, batch, fetched, facings, summary);
      lastAssemblyMs = performance.now() - assembling;
    }
    if (outcome) for (const id of outcome.written) ok.add(id);
    if (!outcome || outcome.error !== undefined) summary.failedBatches++;
    if (outcome?.error !== undefined) summary.errors.push(`batch ${index + 1}/${batches.length}: ${outcome.error}`);
    consecutiveFailures = outcome?.error === undefined ? 0 : consecutiveFailures + 1;
    if (outcome?.fatal) {
      stopped = true;
      summary.errors.push("gave up on the remaining batches");
    } else if (!stopped && consecutiveFailures >= giveUpAfter && index + 1 < batches.length) {
      stopped = true;
      summary.gaveUp = true;
      summary.errors.push(`upstream down: ${consecutiveFailures} batches failed in a row; gave up the remaining ${batches.length - index - 1} batches`);
    }
    // What the eden collections left (parsed responses, the documents' survivors) goes in a full collection every
    // few batches: one after every batch made the refresh much slower, none at all raised its peak (bench/README.md).
    if (index % collectEvery === collectEvery - 1) pacer.dropAll();
    spotsDone += batch.spots.length;
    const batchWritten = outcome?.written.length ?? 0;
    const batchOk = outcome !== null && outcome.error === undefined && batchWritten === batch.spots.length;
    deps.onProgress?.({ batch: index + 1, batches: batches.length, batchSpots: batch.spots.length, batchWritten, spotsDone, spotsOk: ok.size, spotsTotal: spots.length, batchOk });
  }
  summary.ok = ok.size;
  summary.failedSpotIds = spots.filter((s) => !ok.has(s.id)).map((s) => s.id);
  summary.failed = summary.failedSpotIds.length;
  summary.durationMs = Math.round(performance.now() - started);
  return summary;
}

/** Log fields of a summary: one line per refresh, whatever happened. */
export function summaryFields(s: RefreshSummary): Record<string, unknown> {
  return {
    outcome: outcomeOf(s),
    spots: s.spots,
    ok: s.ok,
    failed: s.failed,
    batches: s.batches,
    failedBatches: s.failedBatches,
    requests: s.requests,
    weight: Math.round(s.weight * 10) / 10,
    marineLocations: s.locations.marine,
    forecastLocations: s.locations.forecast,
    durationMs: s.durationMs,
  };
}
