/**
 * The composition root: opens the database and builds every service once. The HTTP server, the MCP server
 * and the console commands all work on one `App`.
 */
import type { Config } from "./config";
import { ForecastDemand } from "./forecast/demand";
import { setCacheBudget } from "./core/caches";
import { systemClock, type Clock } from "./core/clock";
import { openDatabase, closeDatabase, databaseFailure, databasePath, type Db } from "./db";
import { changeCheck } from "./db/changes";
import { seedPlans, sqliteAccessStore } from "./access/sqlite-store";
import type { AccessStore } from "./access/store";
import { KeyRegistry } from "./access/registry";
import { UsageMeter } from "./access/meter";
import { SpotService } from "./spots/service";
import { sqliteCatalog } from "./spots/catalog-store";
import { ForecastService } from "./forecast/service";
import { TideService } from "./tides/service";
import { TideStore } from "./tides/store";
import { NowService } from "./now/service";
import { BestSpotsService } from "./forecast/best-spots";
import { SurfSummaryService } from "./forecast/summary";
import { EmbedService } from "./embed/service";
import { andThen } from "./core/maybe-promise";
import { sqliteForecastStore, type ForecastStore } from "./forecast/sqlite-store";
import { sqliteEmbedStore } from "./embed/sqlite-store";
import type { EmbedStore } from "./embed/store";

/**
 * The tide station worker's entrypoint, resolved here: in the compiled binary every module shares the bundle's URL,
 * the binary at the root of its embedded files (where the worker is `tides/station-worker.js`), as this file is at
 * the root of src/.
 */
const STATION_WORKER_URL = new URL("./tides/station-worker.ts", import.meta.url);

/** The rooms' state in the database, as small asynchronous functions (the console, above App, makes its own store). */
export interface Stores {
  access: AccessStore;
  embeds: EmbedStore;
  forecasts: ForecastStore;
}

export interface App {
  config: Config;
  clock: Clock;
  db: Db;
  stores: Stores;
  keys: KeyRegistry;
  meter: UsageMeter;
  spots: SpotService;
  forecasts: ForecastService;
  tides: TideService;
  now: NowService;
  bestSpots: BestSpotsService;
  summaries: SurfSummaryService;
  embeds: EmbedService;
  /** Which spots were asked for; in the `requested` refresh scope it fetches a first forecast on demand. */
  demand: ForecastDemand;
  /** Writes what is pending (forecast demand, usage) and closes the database. */
  close(): Promise<void>;
}

export async function openApp(config: Config, clock: Clock = systemClock, busyTimeoutMs?: number, create = true): Promise<App> {
  setCacheBudget(config.cacheMb);
  const db = openDatabase(config.dataDir, busyTimeoutMs, create);
  let spots: SpotService;
  try {
    seedPlans(db);
    spots = await SpotService.open(sqliteCatalog(db));
  } catch (err) {
    closeDatabase(db);
    throw databaseFailure(err, databasePath(config.dataDir));
  }
  const stores: Stores = { access: sqliteAccessStore(db), embeds: sqliteEmbedStore(db), forecasts: sqliteForecastStore(db) };
  const meter = new UsageMeter(stores.access, clock);
  const forecasts = new ForecastService(stores.forecasts, clock, spots, changeCheck(db));
  const tides = new TideService(new TideStore(db), clock, spots, STATION_WORKER_URL);
  const keys = new KeyRegistry(stores.access, changeCheck(db));
  const app: App = {
    config,
    clock,
    db,
    stores,
    keys,
    meter,
    spots,
    forecasts,
    tides,
    now: new NowService(clock, spots, forecasts, tides),
    bestSpots: new BestSpotsService(spots, forecasts, clock),
    summaries: new SurfSummaryService(spots, forecasts, tides),
    embeds: new EmbedService(stores, clock, config, spots, keys, changeCheck(db)),
    demand: new ForecastDemand(
      stores.forecasts,
      clock,
      // Without the scheduler the server calls no upstream at all, on demand neither (`serve --no-scheduler`).
      config.scheduler ? config.refreshScope : "all",
      (spotId) => (spots.find(spotId) === undefined ? "unknown" : andThen(forecasts.current(spotId, clock.now()), (forecast) => (forecast?.hour != null ? "current" : "missing"))),
    ),
    async close() {
      await app.demand.flush();
      tides.close();
      await meter.flush();
      closeDatabase(db);
    },
  };
  return app;
}
