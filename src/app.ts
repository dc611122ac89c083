/**
 * The composition root: opens the database and builds every service once. The HTTP server, the MCP server
 * and the console commands all work on one `App`. The database is the data directory's SQLite file, or, for several
 * servers, the PostgreSQL database they share (with Redis counting quotas and bursts): the services are the same,
 * over either engine's stores.
 */
import { CertificateState } from "./tls/state";
import type { Config } from "./config";
import { ForecastDemand } from "./forecast/demand";
import { setCacheBudget } from "./core/caches";
import { isoUtc, systemClock, type Clock } from "./core/clock";
import { openDatabase, closeDatabase, databaseFailure, databasePath, type Db } from "./db";
import { changeCheck } from "./db/changes";
import { seedPlans, sqliteAccessStore } from "./access/sqlite-store";
import type { AccessStore } from "./access/store";
import { KeyRegistry } from "./access/registry";
import { UsageMeter, type Meter } from "./access/meter";
import { SharedUsageMeter } from "./access/shared-meter";
import { authenticationRefusal, RedisConnection } from "./access/redis-connection";
import { DEFAULT_PREFIX, RedisLimits } from "./access/redis-limits";
import { postgresAccessStore, seedPostgresPlans } from "./access/postgres-store";
import { UserError } from "./core/errors";
import { log } from "./core/log";
import { Listeners } from "./core/listeners";
import { maskPassword } from "./core/service-url";
import { closePostgres, openPostgres, type PgDb } from "./db/postgres";
import { ChangeFeed, type ChangeTopic } from "./db/postgres/changes";
import { thisNode, type NodeInfo } from "./db/postgres/nodes";
import { postgresDialect } from "./db/postgres/store-dialect";
import { metaStore, sqliteDialect, type StoreDialect } from "./db/store-dialect";
import { drizzleEmbedStore } from "./embed/drizzle-store";
import { drizzleAlertStore } from "./alerts/drizzle-store";
import { drizzleObservationStore } from "./observations/drizzle-store";
import { drizzleClimateStore } from "./climate/drizzle-store";
import { version } from "../package.json";
import { postgresForecastStore } from "./forecast/postgres-store";
import { postgresTideStore } from "./tides/postgres-store";
import { SpotService } from "./spots/service";
import { postgresCatalog } from "./spots/postgres-store";
import { sqliteCatalog } from "./spots/sqlite-store";
import type { CatalogStore } from "./spots/store";
import { ForecastService } from "./forecast/service";
import { TideService } from "./tides/service";
import type { RefreshSummary } from "./forecast/refresh";
import type { TideStore } from "./tides/store";
import { sqliteTideStore } from "./tides/sqlite-store";
import { NowService } from "./now/service";
import { BestSpotsService } from "./forecast/best-spots";
import { SurfSummaryService } from "./forecast/summary";
import { EmbedService } from "./embed/service";
import { ViewAllowance } from "./embed/allowance";
import { SharedViewAllowance } from "./embed/shared-allowance";
import { andThen } from "./core/maybe-promise";
import { sqliteForecastStore } from "./forecast/sqlite-store";
import type { ForecastStore } from "./forecast/store";
import type { EmbedStore } from "./embed/store";
import { AlertService } from "./alerts/service";
import { CalendarFeeds } from "./alerts/feeds";
import { checkTarget } from "./alerts/delivery/address";
import type { AlertStore } from "./alerts/store";
import type { ObservationStore } from "./observations/store";
import { NdbcFetcher, type FetchTurn } from "./observations/fetcher";
import { ObservationsService } from "./observations/service";
import { ServedObservations } from "./observations/served";
import { VerificationService } from "./observations/verification-service";
import { openMeteoHindcast } from "./observations/hindcast";
import type { ClimateStore } from "./climate/store";
import { ClimateService } from "./climate/service";
import { openMeteoEra5 } from "./climate/era5";

/**
 * The tide station worker's entrypoint, resolved here: in the compiled binary every module shares the bundle's URL,
 * the binary at the root of its embedded files (where the worker is `tides/station-worker.js`), as this file is at
 * the root of src/.
 */
const STATION_WORKER_URL = new URL("./tides/station-worker.ts", import.meta.url);

/** Small facts of the install kept in the database (`meta`): the address the last server announced, its scope. */
export interface MetaStore {
  read(key: string): Promise<string | null>;
  write(key: string, value: string | null): Promise<void>;
}

/** The rooms' state in the database, as small asynchronous functions (the console, above App, makes its own store). */
export interface Stores {
  access: AccessStore;
  embeds: EmbedStore;
  alerts: AlertStore;
  forecasts: ForecastStore;
  /** Buoys' files, the station table, the models' hours at buoys: what NDBC and Open-Meteo last said survives a restart. */
  observations: ObservationStore;
  /** Each ERA5-Ocean cell's climate, fetched once. */
  climate: ClimateStore;
  meta: MetaStore;
}

/**
 * Where the state lives: the data directory's SQLite file (one server), or the PostgreSQL database several servers
 * share, with the feed through which each hears the others' changes.
 */
export type Engine = { kind: "sqlite"; db: Db } | { kind: "postgres"; db: PgDb; feed: ChangeFeed; node: NodeInfo };

export interface App {
  config: Config;
  clock: Clock;
  engine: Engine;
  stores: Stores;
  keys: KeyRegistry;
  meter: Meter;
  /** The Redis several servers count in (quotas, embed views, sign-in failures); null on one box. */
  redis: RedisConnection | null;
  spots: SpotService;
  forecasts: ForecastService;
  tides: TideService;
  now: NowService;
  bestSpots: BestSpotsService;
  summaries: SurfSummaryService;
  embeds: EmbedService;
  alerts: AlertService;
  /** The nearest buoy's readings beside the forecast (observations/). */
  observations: ObservationsService;
  /** The observations answer's JSON, kept while it holds. */
  servedObservations: ServedObservations;
  /** How right each wave model has been at a spot's buoy. */
  verification: VerificationService;
  /** A spot's months from its ERA5-Ocean cell (climate/). */
  climate: ClimateService;
  /** Alerts' calendar feeds as served: their texts kept, their fetches allowed and counted. */
  calendars: CalendarFeeds;
  /** Which spots were asked for; in the `requested` refresh scope it fetches a first forecast on demand. */
  demand: ForecastDemand;
  /** Requests this process has answered (the gate counts them, health probes aside): what tells the idle release an idle server from a busy one. */
  activity: { requests: number };
  /** Every finished refresh's summary (server/refresh.ts tells; the metrics and the alert deliveries listen). */
  refreshEvents: Listeners<RefreshSummary>;
  /** The certificate served over TLS, if any: its expiry and a failing renewal (server/web-server.ts tells; /healthz and /metrics read). */
  certificate: CertificateState;
  /** Writes what is pending (forecast demand, usage) and closes the database. */
  close(): Promise<void>;
}

/** What the services are built on: one engine's stores and the checks that say another process changed a topic. */
interface Foundation {
  engine: Engine;
  stores: Stores;
  catalog: CatalogStore;
  tideStore: TideStore;
  /** A new check per copy kept in memory: true when another process (or server) changed the topic since. */
  changes(topic: ChangeTopic): () => boolean;
  meter(clock: Clock): Meter;
  redis: RedisConnection | null;
  close(): Promise<void>;
}

/** The stores that run as their drizzle store over the database's dialect, with nothing of their own per engine. */
function dialectStores(dialect: StoreDialect) {
  return { embeds: drizzleEmbedStore(dialect), alerts: drizzleAlertStore(dialect), observations: drizzleObservationStore(dialect), climate: drizzleClimateStore(dialect), meta: metaStore(dialect) };
}

/** The data directory's SQLite file: one server, counted in its memory. */
function sqliteFoundation(config: Config, busyTimeoutMs: number | undefined, create: boolean): Foundation {
  const db = openDatabase(config.dataDir, busyTimeoutMs, create);
  try {
    seedPlans(db);
  } catch (err) {
    closeDatabase(db);
    throw databaseFailure(err, databasePath(config.dataDir));
  }
  const access = sqliteAccessStore(db);
  return {
    engine: { kind: "sqlite", db },
    stores: { access, forecasts: sqliteForecastStore(db), ...dialectStores(sqliteDialect(db)) },
    catalog: sqliteCatalog(db),
    tideStore: sqliteTideStore(db),
    // One detector per connection (PRAGMA data_version) answers every topic: any commit elsewhere reloads.
    changes: () => changeCheck(db),
    meter: (clock) => new UsageMeter(access, clock),
    redis: null,
    close: async () => closeDatabase(db),
  };
}

/**
 * How long a request waits for PostgreSQL before its 503 (db/postgres/deadline.ts): a database that hangs (a network
 * cut) costs a request this, not the minutes TCP takes to give up. Well above what a healthy statement takes.
 */
const STATEMENT_DEADLINE_MS = 1_500;

/** The PostgreSQL database several servers share; quotas and bursts counted in Redis when `redisUrl` is set. */
async function postgresFoundation(config: Config, url: string): Promise<Foundation> {
  const db = await openPostgres(url, { deadlineMs: STATEMENT_DEADLINE_MS });
  let feed: ChangeFeed | undefined;
  let redis: RedisConnection | undefined;
  try {
    await seedPostgresPlans(db);
    feed = await ChangeFeed.start(db, url);
    redis = config.redisUrl === undefined ? undefined : await connectRedis(config.redisUrl);
  } catch (err) {
    await feed?.stop();
    await closePostgres(db);
    throw err;
  }
  const changes = feed;
  const access = postgresAccessStore(db);
  const limits = redis && new RedisLimits(redis);
  return {
    engine: { kind: "postgres", db, feed, node: thisNode(version, null, Date.now()) },
    stores: { access, forecasts: postgresForecastStore(db), ...dialectStores(postgresDialect(db)) },
    catalog: postgresCatalog(db, feed.changeCheck("spots")),
    tideStore: postgresTideStore(db, { generation: () => changes.generation("tides") }),
    changes: (topic) => changes.changeCheck(topic),
    // Commands other than serve admit no request: without Redis they count nothing.
    meter: (clock) => (limits ? new SharedUsageMeter(limits, access, clock) : new UsageMeter(access, clock)),
    redis: redis ?? null,
    async close() {
      redis?.close();
      await changes.stop();
      await closePostgres(db);
    },
  };
}

async function connectRedis(url: string): Promise<RedisConnection> {
  const redis = new RedisConnection(url);
  try {
    await redis.ready();
  } catch (err) {
    redis.close();
    const refusal = await authenticationRefusal(url);
    if (refusal !== null) throw new UserError(`Redis at ${maskPassword(url)} refused authentication (${refusal}): check the user and password in SURFCAST_REDIS_URL (or --redis-url)`);
    throw new UserError(`cannot reach Redis at ${maskPassword(url)} (${(err as Error).message}): check SURFCAST_REDIS_URL (or --redis-url), and that Redis runs and listens there`);
  }
  return redis;
}

/**
 * `observationTurn`: the turn in which NDBC is asked for a source (server/observation-fetches.ts, given by the entry
 * point: the server layer sits above this root); without it each fetch just runs.
 */
export async function openApp(config: Config, clock: Clock = systemClock, busyTimeoutMs?: number, create = true, observationTurn?: (app: App, signal: AbortSignal) => FetchTurn): Promise<App> {
  setCacheBudget(config.cacheMb);
  const base = config.databaseUrl === undefined ? sqliteFoundation(config, busyTimeoutMs, create) : await postgresFoundation(config, config.databaseUrl);
  let spots: SpotService;
  try {
    spots = await SpotService.open(base.catalog);
  } catch (err) {
    await base.close();
    throw base.engine.kind === "sqlite" ? databaseFailure(err, databasePath(config.dataDir)) : err;
  }
  const { stores } = base;
  const meter = base.meter(clock);
  const forecasts = new ForecastService(stores.forecasts, clock, spots, base.changes("forecasts"));
  const tides = new TideService(base.tideStore, clock, spots, STATION_WORKER_URL);
  const keys = new KeyRegistry(stores.access, base.changes("access"));
  // Ends the fetches waiting for another server's turn when the app closes.
  const closing = new AbortController();
  const fetcher = new NdbcFetcher({
    baseUrl: config.observations.ndbcUrl,
    publicUrl: config.publicUrl,
    fetch: (url, init) => fetch(url, init),
    clock,
    store: stores.observations,
    logger: log,
    // On a shared database one server fetches each source's due state (the app is built by the time anyone asks).
    ...(observationTurn ? { turn: (source: string, slot: string, fetchAndStore: () => Promise<void>) => observationTurn(app, closing.signal)(source, slot, fetchAndStore) } : {}),
  });
  const observations = new ObservationsService({
    fetcher,
    clock,
    enabled: config.observations.enabled,
    radiusKm: config.observations.buoyRadiusKm,
    // What this API serves for that hour at the spot.
    forecastAt: (spot, hour) => andThen(forecasts.current(spot.id, hour), (current) => (current?.hour ? { time: isoUtc(hour), waveHeight: current.hour.waveHeight } : null)),
  });
  const verification = new VerificationService({
    observations,
    store: stores.observations,
    clock,
    models: config.openMeteo.waveModels,
    hindcast: openMeteoHindcast({ marineUrl: config.openMeteo.marineUrl, apiKey: config.openMeteo.apiKey, fetch: (url, init) => fetch(url, init) }),
    logger: log,
  });
  const app: App = {
    config,
    clock,
    engine: base.engine,
    stores,
    keys,
    meter,
    redis: base.redis,
    spots,
    forecasts,
    tides,
    now: new NowService(clock, spots, forecasts, tides, observations),
    bestSpots: new BestSpotsService(spots, forecasts, clock),
    summaries: new SurfSummaryService(spots, forecasts, tides),
    embeds: new EmbedService(stores, clock, config, spots, keys, base.changes("embeds"), base.redis ? new SharedViewAllowance(base.redis, DEFAULT_PREFIX) : new ViewAllowance()),
    // A webhook's target is checked when the alert is made (and again at each delivery: DNS can change).
    alerts: new AlertService(stores, forecasts, clock, config, spots, async (url) => {
      const verdict = await checkTarget(url, config.webhookAllowedNetworks);
      if (!verdict.ok) throw new UserError(verdict.reason);
    }),
    observations,
    servedObservations: new ServedObservations(observations),
    verification,
    climate: new ClimateService({
      store: stores.climate,
      clock,
      years: config.climate.years,
      source: openMeteoEra5({ marineUrl: config.openMeteo.marineUrl, archiveUrl: config.climate.archiveUrl, apiKey: config.openMeteo.apiKey, timeoutMs: config.openMeteo.timeoutMs, fetch: (url, init) => fetch(url, init) }),
      logger: log,
    }),
    calendars: new CalendarFeeds(() => app),
    demand: new ForecastDemand(
      stores.forecasts,
      clock,
      // Without the scheduler the server calls no upstream at all, on demand neither (`serve --no-scheduler`).
      config.scheduler ? config.refreshScope : "all",
      (id) => spots.find(id)?.id,
      (spotId) => andThen(forecasts.current(spotId, clock.now()), (forecast) => (forecast?.hour != null ? "current" : "missing")),
    ),
    activity: { requests: 0 },
    refreshEvents: new Listeners(),
    certificate: new CertificateState(),
    async close() {
      // A database that is away must not keep the process from stopping: what could not be written is said, once.
      closing.abort();
      const unwritten = (what: string) => (err: unknown) => log.error(`${what} could not be written before closing`, { error: String(err) });
      await app.demand.flush().catch(unwritten("forecast demand"));
      tides.close();
      await meter.close().catch(unwritten("usage counts"));
      await spots.settled();
      await base.close();
    },
  };
  return app;
}
