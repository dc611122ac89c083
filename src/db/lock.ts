/**
 * One `serve` per data directory. The quota and burst counts live in the serving process's memory (flushed to
 * SQLite every 500 ms), so two servers on one directory would each grant a key its whole quota. The lock is an
 * exclusive SQLite lock on `serve.lock` beside the database, held for the life of the process: the kernel drops
 * it when the process ends, however it ends, so a crash never leaves a stale lock behind. Operator commands
 * (keys, accounts, refresh…) do not take it and keep working while the server runs.
 */
import { Database } from "bun:sqlite";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/errors";

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  const lockFile = join(dataDir, "serve.lock");
  const pidFile = join(dataDir, "serve.pid");
  const db = new Database(lockFile, { create: true });
  try {
    db.exec("PRAGMA busy_timeout = 0");
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    // The first write takes the exclusive lock; in EXCLUSIVE mode it is kept until the connection closes.
    db.exec("CREATE TABLE IF NOT EXISTS holder (pid INTEGER)");
    db.exec("DELETE FROM holder");
  } catch {
    db.close();
    let holder = "another process";
    try {
      holder = `surfcast serve (pid ${readFileSync(pidFile, "utf8").trim()})`;
    } catch {
      /* no pid file: say "another process" */
    }
    throw new UserError(`${holder} is already serving ${dataDir}; stop it first, or give this server another --data-dir.`);
  }
  writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 });
  return { release: () => db.close() };
}
