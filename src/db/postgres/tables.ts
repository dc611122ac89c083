/**
 * Every table of the PostgreSQL schema that mirrors a SQLite one (not the `cluster` schema: the servers' own state),
 * as `surfcast migrate` walks it: parents before the tables whose foreign keys
 * point at them, each column with the kind of value it holds, the primary key (the order rows are compared in) and
 * the identity columns (whose sequence must move past the copied ids).
 */
import { is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import * as schema from "./schema";

export type ColumnKind = "text" | "integer" | "double" | "boolean" | "bytes";

export interface TableShape {
  name: string;
  columns: { name: string; kind: ColumnKind }[];
  primaryKey: string[];
  identity: string[];
}

const KINDS: Record<string, ColumnKind> = { text: "text", bigint: "integer", "double precision": "double", boolean: "boolean", bytea: "bytes" };

function shapeOf(table: PgTable): TableShape {
  const config = getTableConfig(table);
  const columns = config.columns.map((column) => {
    const kind = KINDS[column.getSQLType()];
    if (kind === undefined) throw new Error(`${config.name}.${column.name}: no copy rule for ${column.getSQLType()}`);
    return { name: column.name, kind };
  });
  const composite = config.primaryKeys[0]?.columns.map((column) => column.name);
  return {
    name: config.name,
    columns,
    primaryKey: composite ?? config.columns.filter((column) => column.primary).map((column) => column.name),
    identity: config.columns.filter((column) => column.generatedIdentity !== undefined).map((column) => column.name),
  };
}

/** The schema's tables, each after every table it references. */
function parentsFirst(tables: PgTable[]): PgTable[] {
  const ordered: PgTable[] = [];
  const visit = (table: PgTable) => {
    if (ordered.includes(table)) return;
    for (const foreignKey of getTableConfig(table).foreignKeys) {
      const parent = foreignKey.reference().foreignTable;
      if (parent !== table) visit(parent);
    }
    ordered.push(table);
  };
  tables.forEach(visit);
  return ordered;
}

const mirrored = (Object.values(schema) as unknown[]).filter((value): value is PgTable => is(value, PgTable) && getTableConfig(value).schema === undefined);

export const TABLES: readonly TableShape[] = parentsFirst(mirrored).map(shapeOf);
