/** The spot store (store.ts) on SQLite: drizzle-store.ts over bun:sqlite; other processes' commits are noticed by `PRAGMA data_version`. */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { changeCheck } from "../db/changes";
import { spotAliases, spots } from "../db/schema";
import { placeholderAsGiven } from "../db/statements";
import { sqliteDialect } from "../db/store-dialect";
import type { StoredSpot } from "./catalog";
import { drizzleCatalog } from "./drizzle-store";
import type { ImportPlan } from "./store";

/**
 * An import's changes to the spot tables through statements prepared once per import: building each of thousands of
 * statements through drizzle would cost several times what writing them does. Run inside the import's transaction.
 */
function* preparedSpotWrites(db: Db, plan: ImportPlan) {
  // Bound as given (see placeholderAsGiven), the tideless flag as 1, 0 or null.
  const imported = { name: placeholderAsGiven("name"), country: placeholderAsGiven("country"), region: placeholderAsGiven("region"), lat: placeholderAsGiven("lat"), lng: placeholderAsGiven("lng"), facingOverride: placeholderAsGiven("facing"), tidelessOverride: placeholderAsGiven("tideless") };
  const id = sql.placeholder("id");
  const insert = db.insert(spots).values({ id, hexId: sql.placeholder("hexId"), ...imported }).prepare();
  const update = db.update(spots).set(imported).where(eq(spots.id, id)).prepare();
  const remove = db.delete(spots).where(eq(spots.id, id)).prepare();
  const clearAliases = db.delete(spotAliases).where(eq(spotAliases.spotId, id)).prepare();
  const addAlias = db.insert(spotAliases).values({ spotId: id, alias: sql.placeholder("alias") }).onConflictDoNothing().prepare();
  const parameters = (s: StoredSpot) => ({ ...s, tideless: s.tideless === null ? null : s.tideless ? 1 : 0 });
  for (const id of plan.remove) remove.run({ id });
  for (const s of plan.update) {
    update.run(parameters(s));
    clearAliases.run({ id: s.id });
  }
  for (const s of plan.add) insert.run(parameters(s));
  for (const s of [...plan.update, ...plan.add]) for (const alias of s.aliases) addAlias.run({ id: s.id, alias });
}

export const sqliteCatalog = (db: Db) => drizzleCatalog(sqliteDialect(db), changeCheck(db), (_tx, plan) => preparedSpotWrites(db, plan));
