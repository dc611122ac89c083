/**
 * Pieces the stores build their drizzle statements from: statements prepared once per connection, the row an
 * upsert proposed, and a placeholder that reaches the driver as given.
 */
import { sql, type Column, type GetColumnData, type Placeholder, type SQL } from "drizzle-orm";
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

/** A placeholder per column, named after its key: the values of a prepared insert (`sql.placeholder`'s caveats apply). */
export function placeholders<K extends string>(columns: Record<K, Column>): Record<K, Placeholder<K>> {
  return Object.fromEntries(Object.keys(columns).map((key) => [key, sql.placeholder(key)])) as Record<K, Placeholder<K>>;
}

/** An upsert's `onConflictDoUpdate` set that takes each of these columns from the row the insert proposed. */
export function excludedAll<K extends string>(columns: Record<K, Column>): Record<K, SQL> {
  return Object.fromEntries(Object.entries<Column>(columns).map(([key, column]) => [key, excluded(column)])) as Record<K, SQL>;
}

/** A prepared select as the driver answers it, before drizzle maps its rows: arrays in the order of its fields. */
interface SelectArrays {
  values(placeholders?: Record<string, unknown>): unknown[][];
}

/**
 * A prepared select of plain columns whose rows are built here from the driver's arrays, for reads that answer
 * requests: drizzle's own row mapping, general enough for joins and nested fields, costs a good part of what a
 * short indexed read does. `prepare` must select exactly `fields`, which gives the arrays their order.
 */
export function preparedRows<F extends Record<string, Column>>(fields: F, prepare: (fields: F) => SelectArrays) {
  const query = prepare(fields);
  const keys = Object.keys(fields);
  const columns = Object.values<Column>(fields);
  const toRow = (values: unknown[]) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) row[keys[i]!] = values[i] === null ? null : columns[i]!.mapFromDriverValue(values[i]);
    return row as { [K in keyof F]: GetColumnData<F[K]> };
  };
  return {
    all: (placeholders: Record<string, unknown>) => query.values(placeholders).map(toRow),
    get: (placeholders: Record<string, unknown>) => {
      const first = query.values(placeholders)[0];
      return first === undefined ? undefined : toRow(first);
    },
  };
}

/**
 * The columns of `table` under the names a store's rows use (row field → the table's column property): one list of a
 * select's fields serves the SQLite and the PostgreSQL table of the same name.
 */
export function columnsOf<T, const M extends Record<string, keyof T>>(table: T, names: M): { -readonly [F in keyof M]: T[M[F]] } {
  return Object.fromEntries(Object.entries(names).map(([field, column]) => [field, table[column as keyof T]])) as { -readonly [F in keyof M]: T[M[F]] };
}
