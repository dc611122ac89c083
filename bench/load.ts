/**
 * The load generator: wrk on loopback, one thread. Measured on the 2-core bench machine against a bare
 * Bun.serve: autocannon (Node, one thread) saturated its own core at ~60k req/s while the server sat ~40% idle;
 * wrk drove the same server to ~105k req/s with a third of the CPU. autocannon would cap the bare yardstick
 * and flatter every ratio, so wrk it is (installed from Debian with apt-get when missing).
 */
import { join } from "node:path";

export interface LoadOptions {
  connections: number;
  durationSeconds: number;
  /** API keys sent as X-API-Key, one per request in rotation (none: no key header). */
  keys?: string[];
  /** Paths requested in rotation on the URL's server (a mix of endpoints); none: the URL's own path. */
  paths?: string[];
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses outside 2xx/3xx plus socket errors: must be 0 for a valid case. */
  failures: number;
}

const SCRIPT = join(import.meta.dir, "wrk.lua");

/** Makes sure wrk is on PATH, installing the Debian package once if it is not. */
export function ensureWrk(): void {
  if (Bun.which("wrk")) return;
  console.log("wrk is missing: installing it with apt-get (Debian package 'wrk')");
  const r = Bun.spawnSync(["apt-get", "install", "-y", "-q", "wrk"], { stdout: "inherit", stderr: "inherit" });
  if (r.exitCode !== 0 || !Bun.which("wrk")) throw new Error("could not install wrk; install it (apt-get install wrk) and rerun");
}

export async function runLoad(url: string, opts: LoadOptions): Promise<LoadResult> {
  const args = ["wrk", "-t1", `-c${opts.connections}`, `-d${opts.durationSeconds}s`, "--timeout", "5s", "-s", SCRIPT, url, "--", ...(opts.keys ?? []), ...(opts.paths ?? [])];
  const proc = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
  await proc.exited;
  const line = out.split("\n").find((l) => l.startsWith("WRK_JSON "));
  if (!line) throw new Error(`wrk produced no report for ${url}:\n${out}\n${err}`);
  const r = JSON.parse(line.slice("WRK_JSON ".length)) as { requests: number; durationUs: number; p50Us: number; p99Us: number; non2xx3xx: number; socketErrors: number };
  return {
    requests: r.requests,
    rps: r.requests / (r.durationUs / 1e6),
    p50Ms: r.p50Us / 1000,
    p99Ms: r.p99Us / 1000,
    failures: r.non2xx3xx + r.socketErrors,
  };
}
