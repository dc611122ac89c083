/**
 * An App on SQLite or on a PostgreSQL database of its own, with an alert service over that engine's alert store, a
 * manual clock and a stub in place of the delivery room's webhook address check (it refuses 127.0.0.1 and
 * anything under .internal, as the real one refuses loopback and private addresses). Forecast documents are written
 * through the forecast store, as a refresh writes them.
 */
import { loadConfig } from "../../src/config";
import { openApp, type App } from "../../src/app";
import { ManualClock } from "../../src/core/clock";
import { UserError } from "../../src/core/errors";
import { AlertService } from "../../src/alerts/service";
import { drizzleAlertStore } from "../../src/alerts/drizzle-store";
import { sqliteDialect } from "../../src/db/store-dialect";
import { postgresDialect } from "../../src/db/postgres/store-dialect";
import type { AlertStore } from "../../src/alerts/store";
import type { DailyWeather, ForecastHour } from "../../src/forecast/types";
import { tempDir } from "./env";
import { createTestDatabase, type TestDatabase } from "./postgres";

export const NOW = Date.parse("2026-11-26T08:20:00Z");
export const HOUR = 3_600_000;
/** The first hour of the test documents: the hour holding NOW. */
export const FIRST = Date.parse("2026-11-26T08:00:00Z");
export const PUBLIC = "https://surf.example.net";
export const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";

export interface AlertsWorld {
  app: App;
  clock: ManualClock;
  store: AlertStore;
  alerts: AlertService;
  /** The URLs the address check was asked about. */
  checked: string[];
  /** Writes a spot's forecast document: one hour per wave height from FIRST on, one day of light 07:00–17:00 UTC. */
  forecast(spotId: string, heights: readonly number[], fields?: (i: number) => Partial<ForecastHour>): Promise<void>;
  close(): Promise<void>;
}

export async function stubCheck(checked: string[], url: string): Promise<void> {
  checked.push(url);
  const host = new URL(url).hostname;
  if (host === "127.0.0.1" || host.endsWith(".internal")) throw new UserError(`refused: ${host} is a loopback or private address (allow its network in SURFCAST_WEBHOOK_ALLOWED_NETWORKS)`);
}

export function hourAt(time: number, waveHeight: number, fields: Partial<ForecastHour> = {}): ForecastHour {
  return {
    time: iso(time),
    waveHeight,
    swellHeight: waveHeight,
    wavePeriod: 11,
    waveDirection: 280,
    windSpeed: 12,
    windDirection: 90,
    windGust: 18,
    windDirectionType: "offshore",
    airTemperature: 16,
    waterTemperature: 15,
    weatherCode: 1,
    tide: null,
    rating: { beginner: 2, intermediate: 3, advanced: 3 },
    ...fields,
  };
}

export async function openWorld(engine: "sqlite" | "postgres", name: string): Promise<AlertsWorld> {
  let database: TestDatabase | undefined;
  if (engine === "postgres") database = await createTestDatabase();
  const clock = new ManualClock(NOW);
  const config = loadConfig({ dataDir: tempDir(name), scheduler: false, ...(database ? { databaseUrl: database.url() } : {}) }, { SURFCAST_PUBLIC_URL: PUBLIC });
  const app = await openApp(config, clock);
  const store = drizzleAlertStore(app.engine.kind === "sqlite" ? sqliteDialect(app.engine.db) : postgresDialect(app.engine.db));
  const checked: string[] = [];
  const alerts = new AlertService({ alerts: store, access: app.stores.access }, app.forecasts, clock, config, app.spots, (url) => stubCheck(checked, url));
  return {
    app,
    clock,
    store,
    alerts,
    checked,
    async forecast(spotId, heights, fields = () => ({})) {
      const hours = heights.map((h, i) => hourAt(FIRST + i * HOUR, h, fields(i)));
      const daily: DailyWeather[] = [
        { date: "2026-11-26", sunrise: "2026-11-26T07:00:00Z", sunset: "2026-11-26T17:00:00Z", uvIndexMax: 2 },
        { date: "2026-11-27", sunrise: "2026-11-27T07:00:00Z", sunset: "2026-11-27T17:00:00Z", uvIndexMax: 2 },
      ];
      await app.stores.forecasts.writeDocuments(clock.now(), [{ spotId, body: JSON.stringify({ hours, daily }) }]);
    },
    async close() {
      await app.close();
      await database?.drop();
    },
  };
}
