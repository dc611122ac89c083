/**
 * A PostgreSQL database of its own for each test file: created with a random name on the server at
 * SURFCAST_TEST_POSTGRES_URL (default: the local PostgreSQL, user postgres, trust) and dropped at the end.
 * Without a reachable server the tests that need one are skipped, with one line that says why.
 */
import { SQL } from "bun";
import { describe } from "bun:test";

const ADMIN_URL = process.env.SURFCAST_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function probe(): Promise<string | null> {
  const admin = new SQL({ url: ADMIN_URL, connectionTimeout: 3, max: 1 });
  try {
    await admin`SELECT 1`;
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await admin.close();
  }
}

const unreachable = await probe();
if (unreachable !== null) console.warn(`skipping the PostgreSQL tests: cannot connect to ${ADMIN_URL} (${unreachable}); start PostgreSQL 15 or set SURFCAST_TEST_POSTGRES_URL`);

/** `describe` when PostgreSQL answers, `describe.skip` otherwise. */
export const describeWithPostgres = describe.skipIf(unreachable !== null);

export interface TestDatabase {
  name: string;
  /** Its URL, with `password` in it when given (trust authentication ignores it: the tests check it is never printed). */
  url(password?: string): string;
  /** A client of its own on the database. */
  sql: SQL;
  drop(): Promise<void>;
}

export async function createTestDatabase(prefix = "surfcast_test"): Promise<TestDatabase> {
  const name = `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = new SQL({ url: ADMIN_URL, max: 1 });
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  const url = (password?: string) => {
    const parsed = new URL(ADMIN_URL);
    parsed.pathname = `/${name}`;
    if (password !== undefined) parsed.password = password;
    return parsed.href;
  };
  const sql = new SQL({ url: url(), max: 2 });
  return {
    name,
    url,
    sql,
    async drop() {
      await sql.close();
      // FORCE: a connection a failed test left open must not keep the database alive.
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.close();
    },
  };
}
