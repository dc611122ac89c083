/** `surfcast backup FILE` — a consistent copy of the database while the server runs. */
import { resolve } from "node:path";
import type { App } from "../app";
import { backupDatabase } from "../db/backup";
import { UserError } from "../core/errors";
import { noExtraPositionals, parse, requirePositional } from "./args";

export const BACKUP_HELP = `Usage: surfcast backup FILE

Writes a consistent copy of the database to FILE (a new file, mode 0600) while the server keeps serving,
checks it with SQLite's integrity_check and prints its size. To restore: stop the server, replace
DATA_DIR/surfcast.db with the copy (and remove surfcast.db-wal and surfcast.db-shm), start the server.`;

export function runBackup(app: App, argv: string[]): void {
  const { positionals } = parse(argv, {}, BACKUP_HELP);
  noExtraPositionals(positionals, 1, BACKUP_HELP);
  if (app.engine.kind !== "sqlite") throw new UserError("backup copies the data directory's SQLite file; on PostgreSQL (--database-url) use pg_dump, e.g. pg_dump --format=custom --file=FILE DATABASE_URL");
  const result = backupDatabase(app.engine.db, resolve(requirePositional(positionals, 0, "FILE", BACKUP_HELP)));
  console.log(`backup written to ${result.path}: ${(result.bytes / 1_048_576).toFixed(1)} MiB (${result.bytes} bytes), integrity ok, ${(result.durationMs / 1000).toFixed(1)} s`);
}
