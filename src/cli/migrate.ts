/** `surfcast migrate`: parses and prints; the copy and its check are db/postgres/copy-from-sqlite.ts. */
import type { Config } from "../config";
import { UserError } from "../core/errors";
import { maskPassword } from "../core/service-url";
import { databasePath } from "../db";
import { noExtraPositionals, parse } from "./args";

export const MIGRATE_HELP = `Usage: surfcast migrate [--replace]   (with --data-dir DIR and --database-url URL)

Copies the data directory's SQLite database (--data-dir, env SURFCAST_DATA_DIR) into the PostgreSQL database
(--database-url, env SURFCAST_DATABASE_URL) that several servers share: every table, row by row — accounts,
API keys with their hashes, usage, console sessions and invitations, embeds, the spot catalog, forecasts, tide
windows and meta. The SQLite file is only read. The copy is one PostgreSQL transaction that commits only after every
table has been read back and matched (row count and a SHA-256 digest of its rows, computed the same way from both
sides); on any mismatch nothing is committed. Account ids are kept, and new ones continue after them.
  --replace   empty a database that already holds accounts, API keys or forecasts, then copy; without it
              such a database is refused and left as it is
Stop the server first: what it writes after the copy's snapshot stays in SQLite only (a rehearsal while it serves
is fine: copy again with --replace once it is stopped). See docs/postgres.md.`;

/** Progress lines per table: at most this many before its last. */
const PROGRESS_STEPS = 10;

export async function runMigrate(config: Config, argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { replace: { type: "boolean" } }, MIGRATE_HELP);
  noExtraPositionals(positionals, 0, MIGRATE_HELP);
  if (config.databaseUrl === undefined) throw new UserError("migrate needs the PostgreSQL database to copy into: --database-url postgres://user:password@host:port/database (or SURFCAST_DATABASE_URL)");
  const started = performance.now();
  // Loaded by this command only: the other commands, serve among them, never load PostgreSQL's client and dialect.
  const [{ closePostgres, openPostgres }, { copySqliteToPostgres }, { openSqliteSource }] = await Promise.all([import("../db/postgres"), import("../db/postgres/copy-from-sqlite"), import("../db/postgres/sqlite-source")]);
  const source = openSqliteSource(config.dataDir);
  try {
    const target = await openPostgres(config.databaseUrl);
    try {
      console.log(`copying ${databasePath(config.dataDir)} into ${maskPassword(config.databaseUrl)}${values.replace ? " (replacing what it holds)" : ""}`);
      let nextStep = 0;
      let verifying = false;
      const checks = await copySqliteToPostgres(source, target, {
        replace: values.replace === true,
        onCopied(table, copied, total) {
          if (copied === total) {
            console.log(`  ${table}: ${total} row${total === 1 ? "" : "s"}`);
            nextStep = 0;
          } else if (copied >= nextStep) {
            console.log(`  ${table}: ${copied} of ${total} rows…`);
            nextStep = copied + Math.ceil(total / PROGRESS_STEPS);
          }
        },
        onVerified(check) {
          if (!verifying) console.log("verifying: every row read back from PostgreSQL and compared with SQLite");
          verifying = true;
          console.log(`  ${check.table.padEnd(22)} ${String(check.rows).padStart(8)} row${check.rows === 1 ? " " : "s"}  sha256 ${check.digest.slice(0, 16)}  ok`);
        },
      });
      const rows = checks.reduce((sum, check) => sum + check.rows, 0);
      console.log(`migrated ${checks.length} tables, ${rows} rows, verified, in ${((performance.now() - started) / 1000).toFixed(1)} s; the SQLite database was not changed`);
      return 0;
    } finally {
      await closePostgres(target);
    }
  } finally {
    source.close();
  }
}
