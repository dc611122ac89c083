/** The climate store (./store.ts) on SQLite: a cell is one row, replaced whole by one upsert. */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { climateCells } from "../db/schema";
import { excludedAll, placeholders } from "../db/statements";
import { climateOf, rowOf, type ClimateStore } from "./store";

const valueColumns = {
  yearsFrom: climateCells.yearsFrom,
  yearsTo: climateCells.yearsTo,
  computedAt: climateCells.computedAt,
  summary: climateCells.summary,
  hours: climateCells.hours,
};

export function sqliteClimateStore(db: Db): ClimateStore {
  const q = {
    climate: db
      .select({ cellKey: climateCells.cellKey, ...valueColumns })
      .from(climateCells)
      .where(eq(climateCells.cellKey, sql.placeholder("cellKey")))
      .prepare(),
    put: db
      .insert(climateCells)
      .values({ cellKey: sql.placeholder("cellKey"), ...placeholders(valueColumns) })
      .onConflictDoUpdate({ target: climateCells.cellKey, set: excludedAll(valueColumns) })
      .prepare(),
  };
  return {
    climate: async (key) => {
      const row = q.climate.get({ cellKey: key });
      return row ? climateOf(row) : null;
    },
    saveClimate: async (climate) => void q.put.run({ ...rowOf(climate), hours: Buffer.from(climate.hours) }),
  };
}
