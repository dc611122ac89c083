/** The climate store (./store.ts) on SQLite: a cell is one row, replaced whole by one upsert. */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { climateCells } from "../db/schema";
import { columnsOf, excludedAll, placeholders } from "../db/statements";
import { climateOf, rowOf, VALUE_COLUMNS, type ClimateStore } from "./store";

const valueColumns = columnsOf(climateCells, VALUE_COLUMNS);

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
