/**
 * An online backup: `VACUUM INTO` copies one consistent snapshot of the database (a read transaction, so the
 * server keeps serving and writing meanwhile), then the copy is checked with `PRAGMA integrity_check`.
 */
import { Database } from "bun:sqlite";
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { UserError } from "../core/errors";
import type { Db } from "./index";

export interface BackupResult {
  path: string;
  bytes: number;
  durationMs: number;
}

export function backupDatabase(db: Db, target: string): BackupResult {
  if (existsSync(target)) throw new UserError(`${target} already exists: choose a new file name (a backup never overwrites)`);
  if (!existsSync(dirname(target))) throw new UserError(`directory ${dirname(target)} does not exist`);
  const started = performance.now();
  // Written under a temporary name and renamed when checked: a file at `target` is always a whole, good backup.
  const partial = `${target}.partial-${process.pid}`;
  try {
    writeFileSync(partial, "", { mode: 0o600, flag: "wx" }); // VACUUM INTO fills an empty file; 0600 like the database
    db.$client.query("VACUUM INTO ?").run(partial);
    const copy = new Database(partial, { readonly: true });
    try {
      const rows = copy.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
      const verdict = rows.map((r) => r.integrity_check).join("; ");
      if (verdict !== "ok") throw new Error(`integrity_check of the copy says: ${verdict}`);
    } finally {
      copy.close();
    }
    renameSync(partial, target);
  } catch (err) {
    rmSync(partial, { force: true });
    const code = String((err as { code?: unknown }).code ?? "");
    if (code === "SQLITE_FULL" || code === "ENOSPC") throw new UserError(`no space left for the backup at ${target}: free some space or choose another place`);
    if (code === "EACCES" || code === "EROFS" || code.startsWith("SQLITE_CANTOPEN")) throw new UserError(`cannot write ${target}: ${(err as Error).message}`);
    throw err;
  }
  return { path: target, bytes: statSync(target).size, durationMs: Math.round(performance.now() - started) };
}
