/**
 * What the observations room keeps (readings survive a restart, and several servers share them): each source whole
 * as JSON (observation_sources) and the issued forecasts as rows (buoy_lead_forecasts), through drizzle-store.ts on
 * either database. The rules stay in the fetcher and the services: a store keeps what it is given.
 */
import type { MetRow, SpecRow, Station } from "./ndbc";
import type { LeadForecast, ModelHours } from "./verification";

/** What a conditional GET sends back to ask "changed since?". */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

/** A file's last good answer, parsed; a bad answer never replaces it. */
export interface GoodFile<Row> extends Validators {
  rows: Row[];
  /** When this body came, epoch ms. */
  fetchedAt: number;
}

/** A run of failed attempts at a source: logged when it starts, and spacing the attempts while it lasts. */
export interface FailureSpell {
  since: number;
  failures: number;
  /** The latest failure, for the operator: `http 503`, `html`, `all_missing`, `timeout`, … */
  problem: string;
}

/** When a source was last asked, and whether it is failing. */
export interface Attempts {
  /** The last attempt, good or bad, epoch ms. */
  checkedAt: number;
  failure: FailureSpell | null;
}

export interface StoredStationTable extends Attempts {
  table: GoodFile<Station> | null;
}

export interface StoredBuoy extends Attempts {
  /** Upper-cased station id. */
  id: string;
  met: GoodFile<MetRow> | null;
  spec: GoodFile<SpecRow> | null;
  /** The last answer for its `.txt` was a 404: NDBC has no realtime file for this station. */
  missing: boolean;
}

/** The models' recent hours at a buoy's position (one Open-Meteo request a day). */
export interface StoredHindcast {
  /** The buoy's position, where each refresh asks for the models' forecasts too (`keepForecastsAtBuoys`). */
  position: { lat: number; lng: number };
  /** The last attempt, epoch ms. */
  checkedAt: number;
  /** The last good answer, or null when none came yet. */
  hours: ModelHours | null;
  fetchedAt: number | null;
}

export interface ObservationStore {
  stationTable(): Promise<StoredStationTable | null>;
  saveStationTable(table: StoredStationTable): Promise<void>;
  buoy(id: string): Promise<StoredBuoy | null>;
  saveBuoy(buoy: StoredBuoy): Promise<void>;
  hindcast(buoyId: string): Promise<StoredHindcast | null>;
  saveHindcast(buoyId: string, hindcast: StoredHindcast): Promise<void>;
  /** The buoys whose hindcast was attempted since `since` (epoch ms): the buoys verification is in use for. */
  hindcastBuoys(since: number): Promise<string[]>;
  /**
   * Keeps issued forecasts at a buoy, one per model, issue and hour (the same again replaces it), and drops those of
   * hours before `keepFrom`.
   */
  addLeadForecasts(buoyId: string, forecasts: readonly LeadForecast[], keepFrom: number): Promise<void>;
  /** The issued forecasts of hours from `from` (inclusive) to `to` (exclusive). */
  leadForecasts(buoyId: string, from: number, to: number): Promise<LeadForecast[]>;
}

/** Each source's key in observation_sources, kept whole as JSON: the station table is one, a buoy and its hindcast are one each per station id. */
export const SOURCE_KEYS = {
  stations: "stations",
  buoy: (id: string) => `buoy:${id}`,
  hindcast: (buoyId: string) => `hindcast:${buoyId}`,
} as const;

/** An issued forecast's fields and the buoy_lead_forecasts columns they are kept in (columnsOf). */
export const LEAD_FORECAST_COLUMNS = {
  model: "model",
  issuedAt: "issuedAt",
  time: "hour",
  waveHeight: "waveHeight",
} as const;
