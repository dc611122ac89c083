/**
 * The PostgreSQL database (SURFCAST_DATABASE_URL) that several servers share: drizzle's pg dialect over Bun's
 * built-in client, migrated at open from the migrations embedded in the binary.
 */
import { SQL } from "bun";
import { drizzle, type BunSQLDatabase } from "drizzle-orm/bun-sql";
import { UserError } from "../../core/errors";
import { DATABASE_URL_PROTOCOLS, serviceUrl } from "../../core/service-url";
import { withDeadline } from "./deadline";
import { postgresFailure } from "./failure";
import { migrations } from "./migrations.gen";
import * as schema from "./schema";

export type PgDb = BunSQLDatabase<typeof schema> & { $client: SQL };
export { schema };

/** A database that does not answer within this is reported, not waited for (Bun's default is 30 s). */
const CONNECT_TIMEOUT_S = 10;

/**
 * The session-level advisory lock every process takes around its migrations: processes starting together on one
 * database apply them one after the other, and each one after the first finds nothing left to do. The number only
 * has to be one that nothing else locks.
 */
const MIGRATION_LOCK = 0x5375_7266_0001;

export interface PostgresOptions {
  /** Connections in the pool (Bun's default is 10). */
  max?: number;
  /** A statement on the pool, or the start of a transaction, that has not answered within this rejects (deadline.ts). */
  deadlineMs?: number;
}

/**
 * Connects to `url` and applies the migrations this binary embeds. An operator mistake (malformed URL, nothing
 * listening, wrong user or password, missing database) is one UserError line without the password.
 */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<PgDb> {
  const checked = serviceUrl(url, "the database URL", DATABASE_URL_PROTOCOLS);
  if (checked === undefined) throw new UserError("the database URL is empty: check SURFCAST_DATABASE_URL (or --database-url)");
  const client = new SQL({ url: checked, max: options.max, connectionTimeout: CONNECT_TIMEOUT_S });
  try {
    await migrate(client);
  } catch (err) {
    await client.close();
    throw postgresFailure(err, checked, CONNECT_TIMEOUT_S);
  }
  return drizzle({ client: options.deadlineMs === undefined ? client : withDeadline(client, options.deadlineMs), schema }) as PgDb;
}

async function migrate(client: SQL): Promise<void> {
  const connection = await client.reserve();
  let unlocked = false;
  try {
    await connection`SELECT pg_advisory_lock(${MIGRATION_LOCK})`;
    const db = drizzle({ client: connection });
    // The internals `migrate()` uses, fed from the embedded array instead of a folder.
    const internals = db as unknown as { dialect: { migrate(m: typeof migrations, s: unknown, c: object): Promise<void> }; session: unknown };
    await internals.dialect.migrate(migrations, internals.session, {});
    await connection`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`;
    unlocked = true;
  } finally {
    // A connection that may still hold the lock is closed rather than pooled: closing it releases the lock.
    if (unlocked) await connection.release();
    else await connection.close();
  }
}

/** The bytes the database takes on its server (tables, indexes, their free space). */
export async function databaseSize(db: PgDb): Promise<number> {
  const [row] = await db.$client`SELECT pg_database_size(current_database())::bigint AS bytes`;
  return Number((row as { bytes: bigint | number | string }).bytes);
}

/** Waits briefly for queries in flight, then closes every connection of the pool. */
export async function closePostgres(db: PgDb): Promise<void> {
  await db.$client.close({ timeout: 5 });
}
