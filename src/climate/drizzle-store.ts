/**
 * The climate store (./store.ts) through drizzle, on either database (db/store-dialect.ts): a cell is one row,
 * replaced whole by one upsert (two servers saving the same cell at once: the later waits, then wins with the same
 * climate).
 */
import { eq } from "drizzle-orm";
import { columnsOf, excludedAll } from "../db/statements";
import type { StoreDialect } from "../db/store-dialect";
import { climateOf, rowOf, VALUE_COLUMNS, type ClimateStore } from "./store";

export function drizzleClimateStore({ db, tables: { climateCells } }: StoreDialect): ClimateStore {
  return {
    climate: async (key) => {
      const [row] = await db.select().from(climateCells).where(eq(climateCells.cellKey, key));
      return row ? climateOf(row) : null;
    },
    saveClimate: async (climate) => {
      await db.insert(climateCells).values(rowOf(climate)).onConflictDoUpdate({ target: climateCells.cellKey, set: excludedAll(columnsOf(climateCells, VALUE_COLUMNS)) });
    },
  };
}
