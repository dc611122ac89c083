/** The `meta` table's small facts, read and written through drizzle: the one helper every room uses. */
import { eq } from "drizzle-orm";
import type { Db } from ".";
import { meta } from "./schema";

export function readMeta(db: Db, key: string): string | null {
  return db.select({ value: meta.value }).from(meta).where(eq(meta.key, key)).get()?.value ?? null;
}

/** The value stored under `key`, storing `make()`'s first when there is none (the first writer wins a race). */
export function metaOnce(db: Db, key: string, make: () => string): string {
  const stored = readMeta(db, key);
  if (stored !== null) return stored;
  db.insert(meta).values({ key, value: make() }).onConflictDoNothing().run();
  return readMeta(db, key)!;
}

/** Stores `value` under `key`; null removes the key. */
export function writeMeta(db: Db, key: string, value: string | null): void {
  if (value === null) db.delete(meta).where(eq(meta.key, key)).run();
  else db.insert(meta).values({ key, value }).onConflictDoUpdate({ target: meta.key, set: { value } }).run();
}
