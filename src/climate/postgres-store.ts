/**
 * The climate store (./store.ts) on the shared PostgreSQL database: a cell is one row, replaced whole by one upsert
 * (two servers saving the same cell at once: the later waits, then wins with the same climate).
 */
import { eq } from "drizzle-orm";
import { climateCells } from "../db/postgres/schema";
import type { PgQueryable } from "../db/postgres/transaction";
import { columnsOf, excludedAll } from "../db/statements";
import { climateOf, rowOf, VALUE_COLUMNS, type ClimateStore } from "./store";

const valueColumns = columnsOf(climateCells, VALUE_COLUMNS);

export function postgresClimateStore(db: PgQueryable): ClimateStore {
  return {
    climate: async (key) => {
      const [row] = await db.select().from(climateCells).where(eq(climateCells.cellKey, key));
      return row ? climateOf(row) : null;
    },
    saveClimate: async (climate) => {
      await db.insert(climateCells).values(rowOf(climate)).onConflictDoUpdate({ target: climateCells.cellKey, set: excludedAll(valueColumns) });
    },
  };
}
