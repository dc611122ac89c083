/**
 * Drives the real compiled binary: console commands and a running server on a free port.
 */
import { closeDatabase, openDatabase } from "../../src/db";
import { BINARY, tempDir } from "./env";

/** A fresh data directory with an empty, migrated database: what commands that need an install work on. */
export function installDir(prefix: string): string {
  const dir = tempDir(prefix);
  closeDatabase(openDatabase(dir));
  return dir;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function cli(dataDir: string, args: string[], env: Record<string, string> = {}): CliResult {
  const r = Bun.spawnSync([BINARY, "--data-dir", dataDir, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

/** Creates an account (if needed) and a key; returns the key in clear. */
export function createKey(dataDir: string, email = "dev@example.com", plan = "scale", extra: string[] = []): string {
  const accounts = cli(dataDir, ["accounts", "list", "--json"]);
  if (!accounts.stdout.includes(`"${email}"`)) {
    const made = cli(dataDir, ["accounts", "create", email, "--plan", plan, ...extra]);
    if (made.code !== 0) throw new Error(`accounts create failed: ${made.stderr}`);
  }
  const r = cli(dataDir, ["keys", "create", email, "--name", `test-${Math.random().toString(36).slice(2, 8)}`]);
  if (r.code !== 0) throw new Error(`keys create failed: ${r.stderr}`);
  return r.stdout.trim().split("\n").at(-1)!;
}

export interface RunningServer {
  url: string;
  dataDir: string;
  proc: ReturnType<typeof Bun.spawn>;
  output(): string;
  /** Sends a signal and waits for exit; returns the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** Starts `surfcast serve` on `port` (default: a free one; null: no --port, as with --https) and waits for its "http(s)://" line. */
export async function startServer(opts: { dataDir?: string; env?: Record<string, string>; args?: string[]; port?: number | null } = {}): Promise<RunningServer> {
  const dataDir = opts.dataDir ?? tempDir("server");
  const port = opts.port === null ? [] : ["--port", String(opts.port ?? 0)];
  const proc = Bun.spawn([BINARY, "--data-dir", dataDir, "serve", ...port, "--host", "127.0.0.1", ...(opts.args ?? ["--no-scheduler"])], {
    env: { SURFCAST_NDBC_URL: "http://127.0.0.1:9", ...process.env, SURFCAST_OPEN_METEO_MARINE_URL: "http://127.0.0.1:9", SURFCAST_OPEN_METEO_FORECAST_URL: "http://127.0.0.1:9", ...opts.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) out += decoder.decode(chunk);
  };
  void pump(proc.stdout as ReadableStream<Uint8Array>);
  void pump(proc.stderr as ReadableStream<Uint8Array>);
  const deadline = Date.now() + 20_000;
  let url: string | undefined;
  while (!url) {
    const m = /Surfcast is serving on (https?:\/\/[^\s]+)/.exec(out);
    if (m) url = m[1]!.replace("localhost", "127.0.0.1");
    else if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${out}`);
    else await Bun.sleep(20);
  }
  return {
    url,
    dataDir,
    proc,
    output: () => out,
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      return await proc.exited;
    },
  };
}

/** The metrics port's /metrics URL of a server started with SURFCAST_METRICS=on, once it has logged it. */
export async function metricsUrlOf(server: RunningServer): Promise<string> {
  const line = /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/;
  const deadline = Date.now() + 10_000;
  while (!line.test(server.output())) {
    if (Date.now() > deadline) throw new Error(`the server logged no metrics URL:\n${server.output()}`);
    await Bun.sleep(20);
  }
  return line.exec(server.output())![1]!;
}

/** `cli` without blocking the test's event loop, for when the binary talks to a server in this process. */
export async function cliAsync(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const proc = Bun.spawn([BINARY, "--data-dir", dataDir, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}
