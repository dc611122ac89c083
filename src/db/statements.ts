/**
 * Pieces the stores build their drizzle statements from: statements prepared once per connection, the row an
 * upsert proposed, and a placeholder that reaches the driver as given.
 */
import { sql, type Column, type SQL } from "drizzle-orm";
import type { Db } from ".";

/**
 * A store's statements for a connection, built at its first use and kept with it: for stores whose functions take
 * the connection and run per request, where preparing a statement costs more than running it.
 */
export function preparedPerConnection<T>(build: (db: Db) => T): (db: Db) => T {
  const built = new WeakMap<Db, T>();
  return (db) => {
    let statements = built.get(db);
    if (statements === undefined) built.set(db, (statements = build(db)));
    return statements;
  };
}

/** In an upsert's `onConflictDoUpdate` set: the value the conflicting insert proposed for `column`. */
export function excluded(column: Column): SQL {
  return sql.raw(`excluded."${column.name}"`);
}

/**
 * A placeholder whose value is bound as given, where `sql.placeholder` does not serve: an update's `set` takes no
 * placeholder in drizzle's types, and drizzle passes a placeholder's value through its column's encoder, null
 * included, so a nullable boolean column would bind 0 for null.
 */
export function placeholderAsGiven(name: string): SQL {
  return sql`${sql.placeholder(name)}`;
}
