/**
 * What the climate room keeps: one row per ERA5-Ocean cell, written once its whole decade is fetched and computed,
 * replaced only by a climate of other years (drizzle-store.ts, on either database); the rules (which years, when
 * to fetch again) stay in the service.
 */
import type { SeaMonth, Years } from "./climate";

export interface StoredClimate {
  /** The cell's key (climate.ts `cellOf`). */
  key: string;
  years: Years;
  /** When it was computed, epoch ms. */
  computedAt: number;
  /** The grid point the Marine API answered from. */
  cell: { lat: number; lng: number };
  /** The cell's months, the same for every spot in it. */
  months: SeaMonth[];
  /** The decade's hours (./hours-codec.ts), for the months of each spot's own (its facing, its daylight). */
  hours: Uint8Array;
}

export interface ClimateStore {
  climate(key: string): Promise<StoredClimate | null>;
  /** Keeps a cell's climate, replacing the one it had. */
  saveClimate(climate: StoredClimate): Promise<void>;
}

/** A stored climate's row, as both engines keep it (climate_cells). */
export interface ClimateRow {
  cellKey: string;
  yearsFrom: number;
  yearsTo: number;
  computedAt: number;
  summary: string;
  hours: Uint8Array;
}

/** A row's fields beside its key, named as the climate_cells columns of both schemas (db/statements `columnsOf`). */
export const VALUE_COLUMNS = { yearsFrom: "yearsFrom", yearsTo: "yearsTo", computedAt: "computedAt", summary: "summary", hours: "hours" } as const;

export const rowOf = (c: StoredClimate): ClimateRow => ({
  cellKey: c.key,
  yearsFrom: c.years.from,
  yearsTo: c.years.to,
  computedAt: c.computedAt,
  summary: JSON.stringify({ cell: c.cell, months: c.months }),
  hours: c.hours,
});

export function climateOf(row: ClimateRow): StoredClimate {
  const { cell, months } = JSON.parse(row.summary) as Pick<StoredClimate, "cell" | "months">;
  return { key: row.cellKey, years: { from: row.yearsFrom, to: row.yearsTo }, computedAt: row.computedAt, cell, months, hours: new Uint8Array(row.hours) };
}
