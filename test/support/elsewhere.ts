/** Writes as another surfcast process makes them (`spots import`, the console): through a second connection. */
import { Database } from "bun:sqlite";
import type { Db } from "../../src/db";

export function writeElsewhere(db: Db, statement: string, params: (string | number)[] = []): void {
  const other = new Database(db.$client.filename, { strict: true });
  try {
    other.run(statement, params);
  } finally {
    other.close();
  }
}
