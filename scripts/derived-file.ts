/**
 * Files the build derives from the default catalog (dist/, never committed: the catalog carries no open licence),
 * each made again only when what it was made from changed.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { gzipJson, readGzipJson } from "../src/core/gzip-json";

/**
 * Writes `make()` as gzipped JSON to `out` unless the file there already has every field of `stamp` (what it was made from);
 * returns whether it wrote. Replaced whole (a rename): tests reading it from source may run while a release build writes it.
 */
export async function writeDerived(out: string, stamp: Record<string, string>, make: () => Promise<object> | object): Promise<boolean> {
  if (existsSync(out)) {
    const made = readGzipJson<Record<string, unknown>>(out);
    if (Object.entries(stamp).every(([k, v]) => made[k] === v)) return false;
  }
  const data = await make();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(`${out}.${process.pid}`, gzipJson(data));
  renameSync(`${out}.${process.pid}`, out);
  return true;
}

/** Runs a writer as a script of its own: `bun scripts/<name>.ts [catalog.json] [out]` (default: ../shared's catalog, dist/`file`). */
export async function writeAlone(label: string, file: string, write: (catalogText: string, out: string) => Promise<boolean>): Promise<void> {
  const root = resolve(import.meta.dir, "..");
  const catalog = resolve(process.argv[2] ?? join(root, "../shared/data/spots/surfspots.json"));
  const out = resolve(process.argv[3] ?? join(root, "dist", file));
  const started = performance.now();
  const wrote = await write(readFileSync(catalog, "utf8"), out);
  console.log(`${label}: ${wrote ? "written" : "unchanged"} → ${out} (${((performance.now() - started) / 1000).toFixed(1)}s)`);
}
