/**
 * The observation store in memory: for tests, and for a server until its database keeps observations. What it
 * keeps is lost at a restart.
 */
import type { ObservationStore, StoredBuoy, StoredHindcast, StoredStationTable } from "./store";
import type { LeadForecast } from "./verification";

export class MemoryObservationStore implements ObservationStore {
  private table: StoredStationTable | null = null;
  private readonly buoys = new Map<string, StoredBuoy>();
  private readonly hindcasts = new Map<string, StoredHindcast>();
  /** buoy id → `model/issuedAt/time` → forecast. */
  private readonly issued = new Map<string, Map<string, LeadForecast>>();

  async stationTable(): Promise<StoredStationTable | null> {
    return this.table;
  }
  async saveStationTable(table: StoredStationTable): Promise<void> {
    this.table = table;
  }
  async buoy(id: string): Promise<StoredBuoy | null> {
    return this.buoys.get(id) ?? null;
  }
  async saveBuoy(buoy: StoredBuoy): Promise<void> {
    this.buoys.set(buoy.id, buoy);
  }
  async hindcast(buoyId: string): Promise<StoredHindcast | null> {
    return this.hindcasts.get(buoyId) ?? null;
  }
  async saveHindcast(buoyId: string, hindcast: StoredHindcast): Promise<void> {
    this.hindcasts.set(buoyId, hindcast);
  }
  async hindcastBuoys(since: number): Promise<string[]> {
    return [...this.hindcasts].filter(([, h]) => h.checkedAt >= since).map(([id]) => id).sort();
  }
  async addLeadForecasts(buoyId: string, forecasts: readonly LeadForecast[], keepFrom: number): Promise<void> {
    const kept = this.issued.get(buoyId) ?? new Map<string, LeadForecast>();
    for (const f of forecasts) kept.set(`${f.model}/${f.issuedAt}/${f.time}`, f);
    for (const [key, f] of kept) if (f.time < keepFrom) kept.delete(key);
    this.issued.set(buoyId, kept);
  }
  async leadForecasts(buoyId: string, from: number, to: number): Promise<LeadForecast[]> {
    return [...(this.issued.get(buoyId)?.values() ?? [])].filter((f) => f.time >= from && f.time < to);
  }
}
