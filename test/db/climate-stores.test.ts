/**
 * The climate stores keep a cell's climate alike on SQLite and PostgreSQL: read back as written, hours included,
 * replaced by a climate of other years, there after a restart; and the service over either engine fetches a cell
 * once: a second service on the same database (a restart, or another server on PostgreSQL) serves it without asking
 * the upstream.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/clock";
import { closeDatabase, openDatabase } from "../../src/db";
import { closePostgres, openPostgres } from "../../src/db/postgres";
import type { CellHours, Years } from "../../src/climate/climate";
import type { Era5Source } from "../../src/climate/era5";
import { packHours, unpackHours } from "../../src/climate/hours-codec";
import { ClimateService, type ClimateState } from "../../src/climate/service";
import { drizzleClimateStore } from "../../src/climate/drizzle-store";
import type { ClimateStore, StoredClimate } from "../../src/climate/store";
import { tempDir } from "../support/env";
import { createTestDatabase, describeWithPostgres } from "../support/postgres";
import { waitFor } from "../support/wait";
import { sqliteDialect } from "../../src/db/store-dialect";
import { postgresDialect } from "../../src/db/postgres/store-dialect";

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A fresh database's store, and a store on another connection to it (a restart, another server). */
interface Opened {
  store: ClimateStore;
  another(): Promise<ClimateStore>;
}

function openSqlite(): Opened {
  const dir = tempDir("climate-stores");
  const open = () => {
    const db = openDatabase(dir);
    closing.push(async () => closeDatabase(db));
    return drizzleClimateStore(sqliteDialect(db));
  };
  return { store: open(), another: async () => open() };
}

async function openPostgresStore(): Promise<Opened> {
  const database = await createTestDatabase();
  closing.push(() => database.drop());
  const open = async () => {
    const pool = await openPostgres(database.url(), { max: 2 });
    closing.push(() => closePostgres(pool));
    return drizzleClimateStore(postgresDialect(pool));
  };
  return { store: await open(), another: open };
}

const engines = [
  { name: "SQLite", open: async () => openSqlite(), describe },
  { name: "PostgreSQL", open: openPostgresStore, describe: describeWithPostgres },
];

const HOUR = 3_600_000;
const NOW = Date.parse("2026-11-28T08:00:00Z");

/** `years` of hours: a sea that grows through each day, a null now and then. */
function hoursOf(years: Years): CellHours {
  const start = Date.UTC(years.from, 0, 1);
  const count = (Date.UTC(years.to + 1, 0, 1) - start) / HOUR;
  const hours: CellHours = { start, waveHeight: [], wavePeriod: [], waveDirection: [], windSpeed: [], windDirection: [] };
  for (let i = 0; i < count; i++) {
    hours.waveHeight.push(i % 500 === 0 ? null : Math.round((0.5 + (i % 24) / 20) * 100) / 100);
    hours.wavePeriod.push(11.25);
    hours.waveDirection.push(275);
    hours.windSpeed.push(8.4);
    hours.windDirection.push(i % 24 < 12 ? 90 : 270);
  }
  return hours;
}

const stored = (years: Years, computedAt = NOW): StoredClimate => ({
  key: "39.5,-9.5",
  years,
  computedAt,
  cell: { lat: 39.5, lng: -9.5 },
  months: Array.from({ length: 12 }, (_, i) => ({
    month: i + 1,
    waveHeight: { p10: 0.6, p25: 0.8, p50: 1.1, p75: 1.4, p90: 1.6 },
    wavePeriod: { p50: 11.25 },
    waveDirection: { dominant: 270, rose: [...new Array(12).fill(0), 1, 0, 0, 0] },
    windSpeed: { p50: 8.4 },
  })),
  hours: packHours(hoursOf(years)),
});

const SPOT = { id: "supertubos", name: "Supertubos", lat: 39.3448, lng: -9.3645, facing: 275 };

/** A source that counts its calls and answers the hours of the years asked. */
function countingSource(): { source: Era5Source; calls: () => number } {
  let calls = 0;
  return {
    source: async (_point, years) => {
      calls++;
      return { cell: { lat: 39.5, lng: -9.5 }, hours: hoursOf(years) };
    },
    calls: () => calls,
  };
}

const serviceOn = (store: ClimateStore, source: Era5Source, years = 2) =>
  new ClimateService({ store, clock: new ManualClock(NOW), years, source, logger: { info: () => {}, warn: () => {} } });

async function ready(service: ClimateService): Promise<Extract<ClimateState, { status: "ready" }>> {
  return waitFor("the climate", async () => {
    const state = await service.climate(SPOT);
    return state.status === "ready" ? state : null;
  });
}

for (const engine of engines) {
  engine.describe(`climate store on ${engine.name}`, () => {
    test("a cell's climate reads back as written, its hours included; none before", async () => {
      const { store, another } = await engine.open();
      expect(await store.climate("39.5,-9.5")).toBeNull();
      const climate = stored({ from: 2024, to: 2025 });
      await store.saveClimate(climate);
      const back = await (await another()).climate("39.5,-9.5");
      expect({ ...back!, hours: null }).toEqual({ ...climate, hours: null });
      expect(unpackHours(Date.UTC(2024, 0, 1), back!.hours)).toEqual(hoursOf({ from: 2024, to: 2025 }));
    });

    test("a climate of other years replaces the cell's", async () => {
      const { store } = await engine.open();
      await store.saveClimate(stored({ from: 2023, to: 2024 }, NOW - 1000));
      await store.saveClimate(stored({ from: 2024, to: 2025 }));
      const back = await store.climate("39.5,-9.5");
      expect(back!.years).toEqual({ from: 2024, to: 2025 });
      expect(back!.computedAt).toBe(NOW);
    });

    test("the service fetches a cell once: another service on the database serves it without the upstream", async () => {
      const { store, another } = await engine.open();
      const first = countingSource();
      const service = serviceOn(store, first.source);
      expect((await service.climate(SPOT)).status).toBe("pending");
      const answer = (await ready(service)).climate;
      expect(first.calls()).toBe(1);
      expect(answer.source.years).toEqual({ from: 2024, to: 2025 });
      expect(answer.months).toHaveLength(12);

      const second = countingSource();
      const state = await serviceOn(await another(), second.source).climate(SPOT);
      expect(state).toEqual({ status: "ready", climate: answer });
      expect(second.calls()).toBe(0);
    });

    test("other years asked for (SURFCAST_CLIMATE_YEARS changed): the stored climate is served until the new one is whole", async () => {
      const { store } = await engine.open();
      await store.saveClimate(stored({ from: 2024, to: 2025 }));
      const source = countingSource();
      const service = serviceOn(store, source.source, 3);
      const state = await service.climate(SPOT);
      expect(state.status === "ready" && state.climate.source.years).toEqual({ from: 2024, to: 2025 });
      const renewed = await waitFor("the new years", async () => {
        const next = await service.climate(SPOT);
        return next.status === "ready" && next.climate.source.years.from === 2023 ? next : null;
      });
      expect(renewed.climate.source.years).toEqual({ from: 2023, to: 2025 });
      expect(source.calls()).toBe(1);
      expect((await store.climate("39.5,-9.5"))!.years).toEqual({ from: 2023, to: 2025 });
    });
  });
}
