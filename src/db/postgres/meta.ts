/** The `meta` table's small facts on the shared database: the PostgreSQL counterpart of db/meta.ts. */
import { eq } from "drizzle-orm";
import { meta } from "./schema";
import type { PgQueryable } from "./transaction";

export async function readMeta(db: PgQueryable, key: string): Promise<string | null> {
  const [row] = await db.select({ value: meta.value }).from(meta).where(eq(meta.key, key));
  return row?.value ?? null;
}

/** The value stored under `key`, storing `make()`'s first when there is none (the first writer wins a race). */
export async function metaOnce(db: PgQueryable, key: string, make: () => string): Promise<string> {
  const stored = await readMeta(db, key);
  if (stored !== null) return stored;
  await db.insert(meta).values({ key, value: make() }).onConflictDoNothing();
  return (await readMeta(db, key))!;
}

/** Stores `value` under `key`; null removes the key. */
export async function writeMeta(db: PgQueryable, key: string, value: string | null): Promise<void> {
  if (value === null) await db.delete(meta).where(eq(meta.key, key));
  else await db.insert(meta).values({ key, value }).onConflictDoUpdate({ target: meta.key, set: { value } });
}
