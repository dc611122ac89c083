/** Paths and temp dirs shared by the tests. */
import { mkdtempSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "../..");
export const BINARY = join(ROOT, "dist/surfcast");
export const SHARED = resolve(ROOT, "../shared");
export const CATALOG_PATH = join(SHARED, "data/spots/surfspots.json");
export const OPEN_METEO_FIXTURES = join(SHARED, "data/open-meteo");
/** Real NDBC files (station table, realtime2 `.txt` and `.spec`); read in place, never copied into the repository. */
export const NDBC_FIXTURES = join(SHARED, "data/ndbc");

/** A fresh directory under .test-tmp/ (git-ignored), kept after the run for post-mortems. */
export function tempDir(prefix: string): string {
  const base = join(ROOT, ".test-tmp");
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, prefix + "-"));
}

/** A free TCP port on 127.0.0.1, closed again: nothing listens there until someone binds it. */
export function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}
